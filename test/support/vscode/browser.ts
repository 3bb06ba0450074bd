// Headless Debian Chromium via playwright-core, plus small helpers for the VS Code workbench UI.
import * as fs from 'fs';
import * as path from 'path';
import { chromium, type BrowserContext, type FrameLocator, type Locator, type Page } from 'playwright-core';
import { artifactsDir, makeTempDir, removeDir, xdgEnv } from './sandbox';

export const CHROMIUM_PATH = '/usr/bin/chromium';
/** The closed network refuses Chromium's background connections; these flags stop it trying. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface LaunchBrowserOptions {
  headless?: boolean;
  viewport?: { width: number; height: number };
  executablePath?: string;
}

export interface LaunchedBrowser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** A fresh profile each time; removed again by close(). */
export async function launchBrowser(options: LaunchBrowserOptions = {}): Promise<LaunchedBrowser> {
  const root = makeTempDir('arbor-chromium-');
  const profile = path.join(root, 'profile');
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: options.executablePath ?? CHROMIUM_PATH,
      headless: options.headless ?? true,
      viewport: options.viewport ?? { width: 1400, height: 900 },
      args: CHROMIUM_ARGS,
      env: { ...process.env, ...xdgEnv(root) } as Record<string, string>,
    });
    const page = context.pages()[0] ?? (await context.newPage());
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      await context.close().catch(() => undefined);
      removeDir(root);
    };
    return { context, page, close };
  } catch (err) {
    removeDir(root);
    throw err;
  }
}

/** Waits until the workbench's activity bar is shown. */
export async function waitForWorkbench(page: Page, timeoutMs = 60_000): Promise<void> {
  await page.locator('.monaco-workbench .part.activitybar').waitFor({ state: 'visible', timeout: timeoutMs });
}

/** The activity-bar entry whose aria-label starts with `labelPrefix` (the view container title). */
export function activityBarIcon(page: Page, labelPrefix: string): Locator {
  return page.locator(`.activitybar .action-item a[aria-label^=${JSON.stringify(labelPrefix)}]`);
}

/** Waits for the icon (and so for the extension's contributions) and returns it. */
export async function waitForActivityBarIcon(page: Page, labelPrefix: string, timeoutMs = 60_000): Promise<Locator> {
  const icon = activityBarIcon(page, labelPrefix);
  await icon.waitFor({ state: 'visible', timeout: timeoutMs });
  return icon;
}

/**
 * Shows the view container of that activity-bar entry and returns its icon. Clicking the icon of a
 * container already shown would hide the side bar, so it is clicked only when needed.
 */
export async function showActivityView(page: Page, labelPrefix: string, timeoutMs = 60_000): Promise<Locator> {
  const icon = await waitForActivityBarIcon(page, labelPrefix, timeoutMs);
  const shown = page.locator(`.activitybar .action-item.checked a[aria-label^=${JSON.stringify(labelPrefix)}]`);
  const sidebar = page.locator('[id="workbench.parts.sidebar"]');
  if (!(await shown.count()) || !(await sidebar.isVisible())) await icon.click();
  await shown.waitFor({ timeout: 15_000 });
  await sidebar.waitFor({ state: 'visible', timeout: 15_000 });
  return icon;
}

/**
 * Runs a command by its palette title, e.g. 'Arbor: Open Panel'. Starts again after Escape when the
 * palette does not take the text or closes before its row is clicked (it is briefly inert, or
 * closed by focus moving, while a panel or dialog opens or closes).
 */
export async function runCommand(page: Page, title: string, timeoutMs = 15_000): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  for (let attempt = 1; ; attempt++) {
    try {
      await page.keyboard.press('F1');
      await input.waitFor({ state: 'visible', timeout: timeoutMs });
      await input.fill(`>${title}`, { timeout: 5_000 }); // F1 pre-types '>'; fill replaces it
      await row.waitFor({ state: 'visible', timeout: timeoutMs });
      await row.click({ timeout: 5_000 });
      return;
    } catch (err) {
      if (attempt >= 4) throw err;
      await page.keyboard.press('Escape');
      await page.waitForTimeout(500);
    }
  }
}

export function webviewFrame(page: Page, nth = 0): FrameLocator {
  return page.locator('iframe.webview.ready').nth(nth).contentFrame().frameLocator('iframe#active-frame');
}

/** The first ready webview (of several: panels, views) whose page has `selector`; waits for one. */
export async function webviewWith(page: Page, selector: string, timeoutMs = 30_000): Promise<FrameLocator> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const frames = page.locator('iframe.webview.ready');
    const n = await frames.count();
    for (let i = 0; i < n; i++) {
      const f = frames.nth(i).contentFrame().frameLocator('iframe#active-frame');
      if (
        await f
          .locator(selector)
          .count()
          .catch(() => 0)
      )
        return f;
    }
    if (Date.now() > end) throw new Error(`no webview shows ${selector} after ${timeoutMs} ms`);
    await page.waitForTimeout(250);
  }
}

export function screenshotsDir(): string {
  return path.join(artifactsDir(), 'screenshots');
}

/** Saves `<dir>/<name>.png` (name sanitised) and returns the path. */
export async function screenshot(page: Page, name: string, dir: string = screenshotsDir()): Promise<string> {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name.replace(/[^\w.-]+/g, '_').slice(0, 120)}.png`);
  await page.screenshot({ path: file });
  return file;
}
