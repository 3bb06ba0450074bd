// Locators for the Sessions view in the side bar, shared by the UI tests.
import type { Locator, Page } from 'playwright-core';

export function sidebar(page: Page): Locator {
  return page.locator('[id="workbench.parts.sidebar"]');
}

/** The first row of the side bar's tree with that text (only rows near the viewport are in the page). */
export function row(page: Page, text: string | RegExp): Locator {
  return sidebar(page).locator('.monaco-list-row', { hasText: text }).first();
}

/**
 * Collapses the Sessions view so every session row is on screen. Also before clicking a session row
 * to expand it: a click on a row already expanded (by an earlier test) collapses it.
 */
export async function collapseAll(page: Page): Promise<void> {
  const button = sidebar(page).locator('.action-label[aria-label^="Collapse All"]');
  if ((await button.count()) && (await button.first().isVisible())) await button.first().click();
}

/** Expands a tree row with its twistie (a click on the row runs its command) and waits until it is expanded. */
export async function expandRow(target: Locator): Promise<void> {
  await target.scrollIntoViewIfNeeded();
  if ((await target.getAttribute('aria-expanded')) !== 'true') await target.locator('.monaco-tl-twistie').click();
  for (let k = 0; k < 100 && (await target.getAttribute('aria-expanded')) !== 'true'; k++) await new Promise((r) => setTimeout(r, 100));
  if ((await target.getAttribute('aria-expanded')) !== 'true') throw new Error(`row not expanded: ${await target.innerText()}`);
}

/**
 * Opens a row's context menu and waits for the item with that text. Headless Chromium now and then loses a
 * right-click on a row the tree is re-rendering (after a refresh or an append): the menu never opens, or
 * closes at once. Each try waits for the menu item (a state), then closes whatever opened and clicks again.
 */
export async function contextMenuItem(page: Page, target: Locator, item: string, tries = 4): Promise<Locator> {
  const menuItem = page.locator('.context-view .action-item', { hasText: item }).first();
  for (let attempt = 1; ; attempt++) {
    await target.scrollIntoViewIfNeeded();
    await target.click({ button: 'right' });
    try {
      await menuItem.waitFor({ timeout: 10_000 });
      return menuItem;
    } catch (err) {
      if (attempt >= tries) throw err;
      await page.keyboard.press('Escape');
    }
  }
}
