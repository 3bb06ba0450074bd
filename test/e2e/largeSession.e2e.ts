// UI test of a long session in the Sessions view (issue 8 item 12), in Chromium against code-server:
// it opens scrolled to the leaf, "Go to Start" brings the first entry, "Show All Entries of This Line"
// drops the paging row, and an expanded branch point is brought into view.
// Screenshots go to test-artifacts/screenshots/large-*.png (looked at by the developer).
import * as assert from 'assert';
import * as path from 'path';
import type { Page } from 'playwright-core';
import { generateTreeSession } from '../../bench/generateTreeSession';
import { runCommand, screenshot, showActivityView } from '../support/vscode/browser';
import { e2e } from './context';
import { collapseAll, pageToRow, row, sidebar, waitInView } from './sessionsView';

const ENTRIES = 1500;
const shot = (name: string) => screenshot(e2e.page, `large-${name}`);

describe('A long session in the Sessions view', function () {
  this.timeout(240_000);
  let page: Page;

  before(() => {
    page = e2e.page;
    // 1500 entries on one line with a one-entry side branch every 100: the line is several pages long.
    const dir = path.join(e2e.workspacePath, '.pi', 'sessions');
    generateTreeSession({ file: path.join(dir, '2026-01-01T00-00-00-000Z_large-session.jsonl'), entries: ENTRIES, branchEvery: 100 });
  });

  // The tests after these find session rows on screen.
  after(() => collapseAll(page));

  it('opens scrolled to the current leaf, with a row for the earlier entries', async () => {
    await showActivityView(page, 'Arbor');
    await collapseAll(page);
    const session = sidebar(page).locator('.monaco-list-row[aria-level="1"]', { hasText: 'user message 0: please look' }).first();
    await session.waitFor({ timeout: 60_000 });
    assert.match(await session.innerText(), /1,?500 entries/);
    await session.click();
    await page.keyboard.press('ArrowRight');
    // The newest page ends with the leaf; the view shows it without scrolling by hand.
    const leafText = /current/;
    await waitInView(page, row(page, leafText), 'the current leaf');
    assert.match(await row(page, leafText).innerText(), /message 1485/);
    await shot('01-opens-at-leaf');
    // The paging row sits above the page (off screen now): scroll up to it.
    await pageToRow(page, row(page, /Show 200 earlier entries/), { first: 'PageUp' });
    await waitInView(page, row(page, /Show 200 earlier entries/), 'the "Show 200 earlier entries" row');
    assert.match(await row(page, /Show 200 earlier entries/).innerText(), /not shown/);
    await shot('02-earlier-row');
  });

  it('Go to Start shows the first entry of the session, selected', async () => {
    await sidebar(page).locator('.monaco-list-row[aria-level="1"]', { hasText: 'user message 0: please look' }).first().click();
    await runCommand(page, 'Arbor: Go to Start');
    const first = sidebar(page).locator('.monaco-list-row[aria-level="2"]', { hasText: 'user message 0: please look' }).first();
    await waitInView(page, first, 'the first entry after Go to Start');
    await sidebar(page).locator('.monaco-list-row.selected', { hasText: 'message 0:' }).first().waitFor({ timeout: 10_000 });
    // Now the rest of the line is below, behind a "later entries" row.
    await pageToRow(page, row(page, /later entr/), { first: 'PageDown' });
    await waitInView(page, row(page, /later entr/), 'the "later entries" row');
    await shot('03-go-to-start');
  });

  it('Show All Entries of This Line drops the paging rows; every entry of the line is a row', async () => {
    const more = row(page, /later entr/);
    // The paging row's inline action.
    await more.hover();
    await more.locator('.action-label[aria-label^="Show All Entries of This Line"]').first().click();
    await row(page, /Show \d+ later entr/).waitFor({ state: 'detached', timeout: 20_000 });
    assert.strictEqual(await row(page, /Show \d+ (earlier|later) entr/).count(), 0, 'no paging row is left');
    // Scroll to the end of the line: the leaf is there, so nothing was skipped.
    // 1,500 rows paged down: a loaded machine needs more than the default time.
    await pageToRow(page, row(page, /current/), { first: 'PageDown', timeoutMs: 150_000 });
    await waitInView(page, row(page, /current/), 'the leaf at the end of the whole line');
    await shot('04-whole-line');
  });

  it('an expanded branch point is brought into view with its first rows', async () => {
    // The branch point nearest the leaf: its side branch row is collapsed under it.
    const branch = sidebar(page)
      .locator('.monaco-list-row[aria-expanded="false"]', { hasText: /(user|assistant) message \d+/ })
      .last();
    await pageToRow(page, branch, { first: 'PageUp' });
    await branch.waitFor({ timeout: 20_000 });
    // Put the branch point at the bottom edge, so its children would be off screen.
    await branch.scrollIntoViewIfNeeded();
    const list = sidebar(page).locator('.monaco-list').first();
    const [box, area] = [await branch.boundingBox(), await list.boundingBox()];
    assert.ok(box && area);
    await page.mouse.move(area.x + area.width / 2, area.y + area.height / 2);
    await page.mouse.wheel(0, -(area.y + area.height - box.y - box.height - 2));
    await page.waitForTimeout(500);
    const label = (await branch.innerText()).split('\n')[0];
    await branch.locator('.monaco-tl-twistie').click();
    const childText = /user message \d+: please look at src\/module\d+\.ts/;
    const child = sidebar(page).locator(`.monaco-list-row[aria-level]`).filter({ hasText: childText });
    const expanded = sidebar(page).locator('.monaco-list-row[aria-expanded="true"]', { hasText: label }).first();
    await expanded.waitFor({ timeout: 10_000 });
    const level = Number(await expanded.getAttribute('aria-level'));
    const firstChild = child.and(sidebar(page).locator(`.monaco-list-row[aria-level="${level + 1}"]`)).first();
    await waitInView(page, firstChild, "the expanded branch point's first child", 15_000);
    await shot('05-branch-revealed');
  });
});
