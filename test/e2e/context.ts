// Shared state for UI tests (*.e2e.ts), filled in by test/e2e/run.ts before mocha starts:
//   import { e2e } from './context';   ...   await e2e.page.click(...)
import type { Page } from 'playwright-core';

export interface E2EContext {
  /** The workbench page (Chromium, 1400x900), already loaded. */
  readonly page: Page;
  /** Workbench URL (folder + extension payload); reload with page.goto(e2e.serverUrl). */
  readonly serverUrl: string;
  /** The temp workspace folder open in the workbench. */
  readonly workspacePath: string;
  /** The extension under test. */
  readonly extensionPath: string;
  /** The test VS Code's machine settings.json (the server's user settings for machine-scoped settings, which a workspace cannot set). */
  readonly userSettingsPath: string;
}

let current: E2EContext | undefined;

export function setE2EContext(ctx: E2EContext | undefined): void {
  current = ctx;
}

function get<K extends keyof E2EContext>(key: K): E2EContext[K] {
  if (!current) throw new Error('e2e context is not set: run UI tests through out/test/e2e/run.js');
  return current[key];
}

export const e2e: E2EContext = {
  get page() {
    return get('page');
  },
  get serverUrl() {
    return get('serverUrl');
  },
  get workspacePath() {
    return get('workspacePath');
  },
  get extensionPath() {
    return get('extensionPath');
  },
  get userSettingsPath() {
    return get('userSettingsPath');
  },
};
