// The test VS Code's user settings, for UI tests: machine-scoped settings (the summarizer's server, folders) only count
// from the user's settings, which a workspace cannot set.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Locator, Page } from 'playwright-core';
import { e2e } from './context';
import { closeNotifications } from './notifications';
import { sidebar } from './sessionsView';
import { showActivityView } from '../support/vscode/browser';

/** Merges `update` into the user's settings; returns the undo. */
export function setUserSettings(update: Record<string, unknown>): () => void {
  const file = e2e.userSettingsPath;
  const original = fs.readFileSync(file, 'utf8');
  fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(original), ...update }, null, 2));
  return () => fs.writeFileSync(file, original);
}

/** Points arbor.sessionDir at an empty folder and waits for the Sessions view's welcome; `restore` undoes the setting. */
export async function emptySessionsWelcome(page: Page): Promise<{ welcome: Locator; dir: string; restore: () => void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-no-sessions-'));
  const restore = setUserSettings({ 'arbor.sessionDir': dir });
  try {
    await closeNotifications(page);
    await showActivityView(page, 'Arbor');
    const welcome = sidebar(page).locator('.welcome-view-content', { hasText: 'No Pi sessions found' });
    await welcome.waitFor({ timeout: 20_000 });
    return { welcome, dir, restore };
  } catch (err) {
    restore();
    throw err;
  }
}
