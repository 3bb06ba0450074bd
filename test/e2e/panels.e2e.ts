// UI tests for the entry panel (issue 8 item 2) and the context view (item 7), in Chromium against code-server:
// select an entry and show it, use its buttons by keyboard, open the raw file at its line; Show Context draws the
// chart, the role breakdown and token bars with the status bar's numbers. Screenshots in dark and light themes go to
// test-artifacts/screenshots/panels-*.png.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import { runCommand, screenshot, showActivityView, webviewWith } from '../support/vscode/browser';
import { e2e } from './context';
import { digits } from './figures';
import { collapseAll, pageToRow, row } from './sessionsView';

const MISC = 'misc: models, custom messages, errors';
const shot = (name: string) => screenshot(e2e.page, `panels-${name}`);

/** Runs in the page: whether the element has the focus. */
function isFocused(el: unknown): boolean {
  return (el as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement === el;
}

function setTheme(theme: string): () => void {
  const file = path.join(e2e.workspacePath, '.vscode', 'settings.json');
  const original = fs.readFileSync(file, 'utf8');
  fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(original), 'workbench.colorTheme': theme }, null, 2));
  return () => fs.writeFileSync(file, original);
}

describe('Entry panel and context view (UI)', function () {
  this.timeout(180_000);
  let page: Page;
  let restoreTheme: (() => void) | undefined;

  before(async () => {
    page = e2e.page;
    await showActivityView(page, 'Arbor');
    await collapseAll(page);
    await row(page, MISC).waitFor({ timeout: 30_000 });
    restoreTheme = setTheme('Default Dark Modern');
    await page.waitForTimeout(1500);
  });

  after(() => restoreTheme?.());

  it('selecting an entry and Show Entry renders the whole message, with keyboard-usable buttons', async () => {
    // Collapsed first: a click on an expanded session row would collapse it (earlier tests leave rows expanded).
    await collapseAll(page);
    await row(page, MISC).click();
    // The session opens scrolled to its leaf: the entry is rows up, paged to as a user scrolls.
    const entryRow = row(page, /There is no `?engines`? field|engines/);
    await pageToRow(page, entryRow);
    await entryRow.click();
    await runCommand(page, 'Arbor: Show Entry');
    const view = await webviewWith(page, '#entry-title');
    assert.strictEqual(await view.locator('#entry-title').textContent(), 'Assistant');
    // The thinking block is collapsible, the text rendered as markdown, ids and tokens shown.
    const thinking = view.locator('details.thinking');
    assert.strictEqual(await thinking.count(), 1);
    assert.strictEqual(await thinking.getAttribute('open'), null, 'thinking starts collapsed');
    await view.locator('details.thinking > summary').click();
    assert.notStrictEqual(await thinking.getAttribute('open'), null);
    assert.match((await view.locator('#stat-id dd').textContent()) ?? '', /^[0-9a-f]{8}$/);
    assert.match((await view.locator('#stat-tokens dd').textContent()) ?? '', /^\d[\d,]* \(/);
    assert.match((await view.locator('#stat-model dd').textContent()) ?? '', /\//);
    assert.ok(await view.locator('.part.text .markdown code').count(), 'inline code rendered as <code>');
    // Keyboard: the toolbar is one tab stop; arrows move between its buttons.
    await view.locator('#copy-text').focus();
    await page.keyboard.press('ArrowRight');
    assert.strictEqual(await view.locator('#copy-id').evaluate(isFocused), true, 'ArrowRight moves to Copy ID');
    await page.keyboard.press('ArrowRight');
    assert.strictEqual(await view.locator('#open-at-line').evaluate(isFocused), true);
    await page.keyboard.press('End');
    assert.strictEqual(await view.locator('.toolbar button').last().evaluate(isFocused), true, 'End goes to the last button');
    assert.strictEqual(await view.locator('.toolbar button[tabindex="0"]').count(), 1, 'one tab stop');
    await shot('01-entry-dark');
    // Open at Line: the raw session file, at the entry's line.
    const line = Number(await view.locator('#stat-line dd').textContent());
    await view.locator('#open-at-line').focus();
    await page.keyboard.press('Enter');
    await page.locator('.tabs-container .tab', { hasText: '.jsonl' }).first().waitFor({ timeout: 15_000 });
    // The editor opens at line 1 and then moves to the entry's line.
    await page.locator('.statusbar-item', { hasText: new RegExp(`Ln ${line}, Col \\d+`) }).waitFor({ timeout: 15_000 });
  });

  it('a tool result entry collapses a long output with "Show all"; Escape collapses it again', async () => {
    // Only the rows in view are in the page: collapse the sessions above, then open this one.
    await collapseAll(page);
    await row(page, MISC).click();
    const resultRow = row(page, /# tests 2|pass 2/);
    await resultRow.waitFor({ timeout: 30_000 });
    await resultRow.click();
    await runCommand(page, 'Arbor: Show Entry');
    const view = await webviewWith(page, '.part.tool-result');
    assert.match((await view.locator('#entry-title').textContent()) ?? '', /Tool result/);
    assert.match((await view.locator('.part.tool-result h3').textContent()) ?? '', /bash/);
  });

  it('Show Context is a view: chart with threshold and compaction marks, roles, token bars; the status bar numbers', async () => {
    await row(page, MISC).click();
    await runCommand(page, 'Arbor: Show Context');
    const view = await webviewWith(page, '#context-title');
    await view.locator('#context-chart').waitFor();
    assert.strictEqual(await view.locator('#threshold-line').count(), 1);
    assert.ok((await view.locator('#context-messages li').count()) > 0);
    assert.ok((await view.locator('#by-role tbody tr').count()) > 1);
    // Issue 34 item 4: the parts (each role, then "other" saying what it is) add up to the figure shown above.
    const partTokens = await view.locator('#by-role tbody tr td:nth-child(3)').allTextContents();
    const figure = digits((await view.locator('#stat-exact dd').textContent())?.split(' of ')[0] ?? '');
    const other = view.locator('#part-other');
    assert.match((await other.textContent()) ?? '', /^other.*(system prompt|system messages|estimates exceed|none)/);
    const otherTokens = Number(((await other.locator('td:nth-child(3)').textContent()) ?? '').replace(/[^\d-]/g, ''));
    const roleSum = partTokens.slice(0, -1).reduce((sum, t) => sum + digits(t), 0);
    assert.strictEqual(roleSum + otherTokens, figure, `${partTokens.join(' + ')} = ${figure}`);
    assert.strictEqual(digits(await view.locator('#part-total td:nth-child(3)').textContent()), figure);
    assert.ok((await view.locator('#context-messages .bar .fill').count()) > 0);
    const shown = ((await view.locator('#stat-context dd').textContent()) ?? '').trim();
    const bar = page.locator('.statusbar-item', { hasText: /\/ [\d.]+k \(\d+%\)/ }).first();
    await bar.waitFor({ timeout: 15_000 });
    assert.strictEqual(((await bar.textContent()) ?? '').trim(), shown, 'the view and the status bar agree');
    await shot('02-context-dark');
    await view.locator('#part-total').scrollIntoViewIfNeeded();
    await shot('02b-context-parts-dark');
    // A message row opens the entry panel; a summary's row, the summary panel (one view per summary entry).
    await view.locator('#context-messages button.msg-open:not(:has(.role-compactionSummary))').first().click();
    await webviewWith(page, '#entry-title');
  });

  it('a summary carrying pins shows them as pins (icon, label, what, entry, text); an edit call shows its diff', async () => {
    // The test's own session (issue 34 item 5): a compaction whose summary holds two pinned entries.
    const name = 'Pins demo: a summary carrying pinned entries';
    const fixture = path.join(e2e.extensionPath, 'test', 'fixtures', 'sessions', 'pinned-summary.jsonl');
    fs.copyFileSync(fixture, path.join(e2e.workspacePath, '.pi', 'sessions', 'pins-demo.jsonl'));
    await collapseAll(page);
    await row(page, name).waitFor({ timeout: 30_000 });
    await row(page, name).click();
    await runCommand(page, 'Arbor: Show Summary');
    const view = await webviewWith(page, '#pins');
    assert.strictEqual(await view.locator('#pins li.pin').count(), 2);
    assert.strictEqual(await view.locator('#pins li.pin .pin-name').first().textContent(), 'mul-done');
    assert.strictEqual(await view.locator('#pins li.pin .pin-what').first().textContent(), 'user message');
    assert.strictEqual(await view.locator('[data-section="other"]').count(), 0, 'nothing under "Other notes"');
    assert.doesNotMatch((await view.locator('main').textContent()) ?? '', /<pinned|<\/pinned>/);
    // The second pin's text holds a script tag: shown as text.
    assert.match((await view.locator('#pins li.pin').nth(1).textContent()) ?? '', /<script>alert\(1\)<\/script>/);
    await shot('05-summary-top-dark');
    await view.locator('#pins').scrollIntoViewIfNeeded();
    await shot('06-summary-pins-dark');

    const editRow = row(page, /edit the file now/);
    await editRow.waitFor({ timeout: 30_000 });
    await editRow.click();
    await runCommand(page, 'Arbor: Show Entry');
    const entry = await webviewWith(page, 'pre.diff');
    assert.strictEqual(await entry.locator('dl.tool-args dt').first().textContent(), 'path');
    assert.strictEqual(await entry.locator('pre.diff .diff-line.added').count(), 4, 'a blank line and the three of mul');
    assert.strictEqual(await entry.locator('pre.diff .diff-line.removed').count(), 0);
    await shot('07-entry-edit-diff-dark');
  });

  it('reads well in a light theme', async () => {
    restoreTheme?.();
    const restore = setTheme('Default Light Modern');
    restoreTheme = undefined;
    try {
      await page.waitForTimeout(1500);
      await collapseAll(page);
      await row(page, MISC).click();
      await runCommand(page, 'Arbor: Show Context');
      await (await webviewWith(page, '#context-chart')).locator('#context-chart').waitFor();
      await shot('03-context-light');
      const entryRow = row(page, /engines/);
      await pageToRow(page, entryRow);
      await entryRow.click();
      await runCommand(page, 'Arbor: Show Entry');
      await webviewWith(page, '#entry-title');
      await shot('04-entry-light');
    } finally {
      restore();
    }
  });
});
