// UI tests of the Sessions view as a daily instrument (issue 8 items 1, 3, 4, 5, 6, 13), in Chromium against code-server.
// Screenshots go to test-artifacts/screenshots/tree-*.png (looked at by the developer).
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import { runCommand, screenshot, showActivityView } from '../support/vscode/browser';
import { e2e } from './context';
import { collapseAll, pageToRow, row, sidebar } from './sessionsView';

const sessionsDir = () => path.join(e2e.workspacePath, '.pi', 'sessions');

function sessionFile(idPrefix: string): string {
  const name = fs.readdirSync(sessionsDir()).find((f) => f.includes(`_${idPrefix}`));
  assert.ok(name, `no session ${idPrefix}`);
  return path.join(sessionsDir(), name);
}

/** What Pi writes when the user names a session (/name): a session_info entry under the leaf. */
function piRename(file: string, name: string): void {
  const lines = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  const leaf = JSON.parse(lines[lines.length - 1]) as { id: string; timestamp: string };
  fs.appendFileSync(
    file,
    `${JSON.stringify({ type: 'session_info', id: `5e55${Math.random().toString(16).slice(2, 6)}`, parentId: leaf.id, timestamp: leaf.timestamp, name })}\n`,
  );
}

const shot = (name: string) => screenshot(e2e.page, `tree-${name}`);

describe('Sessions view as a daily instrument', function () {
  this.timeout(180_000);
  let page: Page;

  before(() => {
    page = e2e.page;
    piRename(sessionFile('01a228c2-4ccd'), 'Tree demo: branches and summaries');
    piRename(sessionFile('01a228c2-4980'), 'Compaction demo');
  });

  it('session rows: name, last activity, entry count and size; a distinct Arbor icon', async () => {
    await showActivityView(page, 'Arbor');
    await collapseAll(page);
    const tree = row(page, 'Tree demo: branches and summaries');
    await tree.waitFor({ timeout: 60_000 });
    const text = await tree.innerText();
    assert.match(text, /just now|ago|\d+\/\d+/, text);
    assert.match(text, /\d+ entries/);
    assert.match(text, /KB/);
    // The activity-bar icon is Arbor's own SVG (a tree), not a codicon.
    const svg = fs.readFileSync(path.join(e2e.extensionPath, 'media', 'arbor.svg'), 'utf8');
    assert.match(svg, /currentColor/);
    await shot('01-session-rows');
  });

  it('filters from the view title and the palette: Default hides bookkeeping, the others as in Pi', async () => {
    await collapseAll(page);
    await row(page, 'Tree demo: branches and summaries').click();
    await row(page, /Take a look at this project/).waitFor({ timeout: 30_000 });
    // Default: no "Label:" / "Model:" / "Thinking:" rows; the label is on the entry it names.
    assert.strictEqual(await row(page, /^Label:/).count(), 0);
    // The label on the path (#resume-original, or #alt-multiply after the UI tests' jump to that branch).
    await row(page, /#resume-original|#alt-multiply/).waitFor();
    await shot('02-filter-default');
    const filterButton = sidebar(page).locator('.action-label[aria-label^="Filter Tree"]').first();
    await filterButton.waitFor();
    await filterButton.click();
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'User Only' }).first().click();
    // The view's description (in its header, hidden while the view is alone in its container, and in the container's title).
    await sidebar(page)
      .locator('[aria-label="Sessions - Filter: User Only Section"]')
      .first()
      .waitFor({ state: 'attached', timeout: 10_000 });
    await shot('03-filter-user-only');
    for (const [title, tag] of [
      ['No Tools', 'no-tools'],
      ['Labeled Only', 'labeled-only'],
      ['All Entries', 'all'],
    ] as const) {
      await runCommand(page, `Arbor: Filter Tree: ${title}`);
      await sidebar(page)
        .locator(`[aria-label="Sessions - Filter: ${title} Section"]`)
        .first()
        .waitFor({ state: 'attached', timeout: 10_000 });
      await shot(`04-filter-${tag}`);
    }
    await row(page, /Label/).waitFor({ timeout: 10_000 });
    await runCommand(page, 'Arbor: Filter Tree: Default');
    await collapseAll(page);
  });

  it('the context boundary: summarized entries dimmed, where the context starts', async () => {
    await collapseAll(page);
    await row(page, 'Compaction demo').click();
    // The session opens scrolled to its leaf: the summarized entries are rows up, paged to as a user scrolls.
    await pageToRow(page, row(page, /summarized/));
    await shot('05-context-boundary');
    // Down the list to the row where the context starts (paged with the keyboard: a click on a row would open the
    // entry panel, which takes the keys).
    await pageToRow(page, row(page, /context starts here/), { first: 'PageDown' });
    await row(page, /context starts here/).waitFor({ timeout: 10_000 });
    await shot('05b-context-starts');
    await collapseAll(page);
  });

  it('search in all sessions streams results into a QuickPick; picking one reveals it', async () => {
    await runCommand(page, 'Arbor: Search in All Sessions...');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill('pow(');
    const first = page.locator('.quick-input-list .monaco-list-row', { hasText: 'pow(' }).first();
    await first.waitFor({ timeout: 20_000 });
    await page.locator('.quick-input-widget', { hasText: /found/ }).first().waitFor({ timeout: 20_000 });
    await shot('06-search');
    await page.keyboard.press('Enter');
    await sidebar(page).locator('.monaco-list-row.selected').first().waitFor({ timeout: 20_000 });
    await shot('07-search-revealed');
  });

  it('Jump Here from the palette without a selected entry asks with a QuickPick of entries', async () => {
    await collapseAll(page);
    await row(page, 'Tree demo: branches and summaries').click();
    await runCommand(page, 'Arbor: Jump Here');
    await page.locator('.quick-input-widget', { hasText: 'Jump Here: to which entry?' }).first().waitFor({ timeout: 15_000 });
    await page.locator('.quick-input-list .monaco-list-row').first().waitFor();
    await shot('08-jump-picker');
    await page.keyboard.press('Escape');
  });

  it('Export Branch from the palette: the current branch as a self-contained HTML page that loads nothing', async () => {
    await showActivityView(page, 'Arbor');
    await collapseAll(page);
    await row(page, 'Tree demo: branches and summaries').click();
    const before = new Set(fs.readdirSync(e2e.workspacePath));
    await runCommand(page, 'Arbor: Export Branch');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'HTML page' }).first().click();
    // VS Code's save dialog (in the browser, a path in the quick input), prefilled in the workspace folder.
    const input = page.locator('.quick-input-widget input');
    for (let k = 0; k < 60 && !/\.html$/.test(await input.inputValue()); k++) await page.waitForTimeout(250);
    assert.match(await input.inputValue(), /\.html$/);
    await shot('09-export-save-dialog');
    // OK (Enter would open the folder highlighted in the dialog's list).
    await page.locator('.quick-input-widget .monaco-button', { hasText: 'OK' }).first().click();
    const newHtml = () => fs.readdirSync(e2e.workspacePath).filter((f) => !before.has(f) && f.endsWith('.html'));
    for (let k = 0; k < 60 && !newHtml().length; k++) await page.waitForTimeout(250);
    const made = newHtml();
    assert.strictEqual(made.length, 1, `one HTML file written: ${made.join(', ')}`);
    const file = path.join(e2e.workspacePath, made[0]);
    const html = fs.readFileSync(file, 'utf8');
    // Messages are rendered Markdown in the page (issue 34 item 5): the inline code is a <code> element.
    assert.match(html, /Continue from here: add a (`?pow`?|<code>pow<\/code>)/);
    assert.doesNotMatch(html, /<(script|link|img|iframe)\b[^>]*\b(src|href)=["']?(https?:|\/\/)/i, 'no external resource');
    // Opened in the browser, the page asks for nothing but itself.
    const viewer = await page.context().newPage();
    const requests: string[] = [];
    viewer.on('request', (r) => requests.push(r.url()));
    try {
      await viewer.goto(`file://${file}`);
      await viewer.waitForTimeout(500);
      assert.deepStrictEqual(
        requests.filter((u) => !u.startsWith('file://')),
        [],
        'requests from the exported page',
      );
      await screenshot(viewer, 'tree-10-export-html');
    } finally {
      await viewer.close();
    }
  });
});
