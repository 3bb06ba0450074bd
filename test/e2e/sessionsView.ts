// Locators for the Sessions view in the side bar, shared by the UI tests.
import type { Locator, Page } from 'playwright-core';

export function sidebar(page: Page): Locator {
  return page.locator('[id="workbench.parts.sidebar"]');
}

/** The first row of the side bar's tree with that text (only rows near the viewport are in the page). */
export function row(page: Page, text: string | RegExp): Locator {
  return sidebar(page).locator('.monaco-list-row', { hasText: text }).first();
}

/** A session's own row (level 1, not its sticky copy at the top of the view) with that text. */
export function sessionRow(page: Page, text: string | RegExp): Locator {
  return sidebar(page).locator('.monaco-list-row[aria-level="1"]:not(.monaco-tree-sticky-row)', { hasText: text }).first();
}

/**
 * Collapses the Sessions view so every session row is on screen. Also before clicking a session row
 * to expand it: a click on a row already expanded (by an earlier test) collapses it. The view's title
 * actions show while the pointer is over the view's title, as for a user.
 */
export async function collapseAll(page: Page): Promise<void> {
  const title = sidebar(page).locator('.composite.title').first();
  if (await title.count()) await title.hover().catch(() => undefined);
  const button = sidebar(page).locator('.action-label[aria-label^="Collapse All"]');
  if ((await button.count()) && (await button.first().isVisible())) await button.first().click();
}

/**
 * True when the row is drawn inside the sidebar's visible area and not under the sticky rows at its top (the list
 * only renders rows near the viewport; a row under a sticky row cannot be clicked).
 */
export async function inView(page: Page, locator: Locator): Promise<boolean> {
  if (!(await locator.count())) return false;
  const list = sidebar(page).locator('.monaco-list').first();
  const sticky = list.locator('.monaco-tree-sticky-container').first();
  const [box, area, stuck] = await Promise.all([
    locator.boundingBox(),
    list.boundingBox(),
    sticky.count().then((n) => (n ? sticky.boundingBox() : null)),
  ]);
  if (!box || !area) return false;
  const top = stuck && stuck.height > 0 ? stuck.y + stuck.height : area.y;
  return box.y >= top - 1 && box.y + box.height <= area.y + area.height + 1;
}

/** The data-index of the Sessions view's focused row (undefined when none is drawn). */
async function focusedIndex(page: Page): Promise<string | undefined> {
  const focused = sidebar(page).locator('.monaco-list-row.focused:not(.monaco-tree-sticky-row)').first();
  return (await focused.count()) ? ((await focused.getAttribute('data-index')) ?? undefined) : undefined;
}

/**
 * Pages through the Sessions view with the keyboard until the row is drawn in view, below the sticky rows, the way a
 * user scrolls to it: `first` (PageUp by default: a session opens scrolled to its leaf, its earlier entries above),
 * then the other way once the focus stops moving (an end of the list), and back, until the row shows (a session still
 * loading adds rows meanwhile). Mouse-wheel scrolling in headless Chromium is eaten by the row hovers.
 */
export async function pageToRow(
  page: Page,
  locator: Locator,
  options: { first?: 'PageUp' | 'PageDown'; timeoutMs?: number } = {},
): Promise<void> {
  const end = Date.now() + (options.timeoutMs ?? 60_000);
  let key = options.first ?? 'PageUp';
  // The keys go to the list (its focused row stays the one it was).
  await sidebar(page).locator('.monaco-list').first().focus();
  while (!(await inView(page, locator))) {
    if (Date.now() > end) throw new Error(`row not in view after paging the Sessions view: ${locator}`);
    const before = await focusedIndex(page);
    await page.keyboard.press(key);
    if (before !== undefined && (await focusedIndex(page)) === before) key = key === 'PageUp' ? 'PageDown' : 'PageUp';
  }
}

/** Waits until the row is drawn in view (a state: the view scrolls on its own, e.g. to a session's leaf). */
export async function waitInView(page: Page, locator: Locator, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await inView(page, locator))) {
    if (Date.now() > end) throw new Error(`${what}: not in view after ${timeoutMs} ms`);
    await page.waitForTimeout(200);
  }
}

/** Expands a tree row with its twistie (a click on the row runs its command) and waits until it is expanded. */
export async function expandRow(target: Locator): Promise<void> {
  await target.scrollIntoViewIfNeeded();
  if ((await target.getAttribute('aria-expanded')) !== 'true') await target.locator('.monaco-tl-twistie').click();
  for (let k = 0; k < 100 && (await target.getAttribute('aria-expanded')) !== 'true'; k++) await new Promise((r) => setTimeout(r, 100));
  if ((await target.getAttribute('aria-expanded')) !== 'true') throw new Error(`row not expanded: ${await target.innerText()}`);
}

/**
 * Chooses a context menu item as a keyboard user does (highlighted, then Enter) and waits for the menu to close:
 * in headless Chromium a mouse click on a menu item is now and then not taken (the command never runs and the menu
 * stays open, blocking every later click).
 */
export async function chooseMenuItem(page: Page, item: Locator): Promise<void> {
  await item.hover();
  await page.keyboard.press('Enter');
  await page.locator('.context-view .monaco-menu').first().waitFor({ state: 'hidden', timeout: 10_000 });
}

/**
 * Opens a row's context menu and waits for the item with that text. Headless Chromium now and then loses a
 * right-click on a row the tree is re-rendering (after a refresh or an append): the menu never opens, or
 * closes at once. Each try waits for the menu item (a state), then closes whatever opened and clicks again.
 */
export async function contextMenuItem(page: Page, target: Locator, item: string, tries = 4): Promise<Locator> {
  const menuItem = page.locator('.context-view .action-item', { hasText: item }).first();
  for (let attempt = 1; ; attempt++) {
    // A menu left open (by an earlier step, or a click on its item the menu did not take) blocks the right-click.
    const openMenu = page.locator('.context-view .monaco-menu').first();
    if (await openMenu.isVisible().catch(() => false)) {
      await page.keyboard.press('Escape');
      await openMenu.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
    }
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
