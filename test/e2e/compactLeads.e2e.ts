// Issue 34 items 1 and 4 in the real VS Code: a session row says whether Compact can do something now and why not;
// Compact on a session within the kept budget names the figures and offers "Compact Keeping Less (N tokens)", which
// compacts; the proposal's tokens after are the written entry's (panel) and its tree row's. Screenshots go to
// test-artifacts/screenshots/compact-leads-*.png.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import { runCommand, screenshot, showActivityView, webviewWith } from '../support/vscode/browser';
import { e2e } from './context';
import { digits } from './figures';
import { sessionEntries as entries } from './sessionFiles';
import { collapseAll, expandRow, row } from './sessionsView';
import { closeNotifications, notification } from './notifications';
import { formatTokens } from '../../src/engine/tokens/formatTokens';

const SMALL = '01a228c2-4ccd'; // a short session: all of it within the kept budget
const NAME = 'Compact leads somewhere';
const shot = (name: string) => screenshot(e2e.page, `compact-leads-${name}`);

/** The test's own copy of a workspace session, named (what Pi's /name writes) so its row is found whatever ran before. */
function ownSession(idPrefix: string): string {
  const fixtures = path.join(e2e.extensionPath, 'test', 'fixtures', 'workspace', '.pi', 'sessions');
  const name = fs.readdirSync(fixtures).find((f) => f.includes(`_${idPrefix}`));
  assert.ok(name, `no session ${idPrefix}`);
  const copy = path.join(e2e.workspacePath, '.pi', 'sessions', `compact-leads-${name}`);
  if (!fs.existsSync(copy)) {
    const text = fs.readFileSync(path.join(fixtures, name), 'utf8');
    const lines = text.split('\n').filter((l) => l.trim());
    const leaf = JSON.parse(lines[lines.length - 1]) as { id: string };
    const info = { type: 'session_info', id: 'c0de1ead', parentId: leaf.id, timestamp: new Date().toISOString(), name: NAME };
    fs.writeFileSync(copy, `${lines.join('\n')}\n${JSON.stringify(info)}\n`);
  }
  return copy;
}

describe('Compact always leads somewhere; one figure per quantity (UI)', function () {
  this.timeout(300_000);
  let page: Page;

  before(async () => {
    page = e2e.page;
    ownSession(SMALL);
    await showActivityView(page, 'Arbor');
    await collapseAll(page);
    await row(page, NAME).waitFor({ timeout: 30_000 });
  });

  it('the row says why Compact has nothing to do; Compact names the figures and Compact Keeping Less compacts', async () => {
    const file = ownSession(SMALL);
    const before = entries(file).length;
    const session = row(page, NAME);
    // The row's note (planned in the background as Compact plans): within the kept budget, with the figures.
    await page
      .locator('[id="workbench.parts.sidebar"] .monaco-list-row', { hasText: NAME })
      .filter({ hasText: /tokens ≤ kept/ })
      .first()
      .waitFor({ timeout: 60_000 });
    await session.hover();
    await page.locator('.monaco-hover', { hasText: 'nothing to compact now' }).waitFor({ timeout: 15_000 });
    await shot('01-row-note');
    await page.mouse.move(600, 400);

    await session.click();
    await runCommand(page, 'Arbor: Compact...');
    const toast = await notification(page, 'nothing to compact in');
    const text = (await toast.innerText()).replace(/\s+/g, ' ');
    assert.match(text, /session's messages \([\d,]+ tokens\) all fit in the kept budget \(keepRecentTokens [\d,]+ tokens\)/);
    const keepLess = toast.locator('.monaco-button', { hasText: /Compact Keeping Less \([\d,]+ tokens\)/ }).first();
    await keepLess.waitFor();
    await shot('02-nothing-to-compact');
    assert.strictEqual(entries(file).length, before, 'nothing written yet');

    await keepLess.click();
    await page.locator('.quick-input-widget', { hasText: 'Optional instructions' }).waitFor({ timeout: 30_000 });
    await page.keyboard.press('Enter');
    const view = await webviewWith(page, '#apply', 90_000);
    const proposedAfter = digits(await view.locator('#stat-after dd').textContent());
    const proposedBefore = digits(await view.locator('#stat-before dd').textContent());
    assert.ok(proposedAfter > 0 && proposedBefore > 0);
    const replacesText = (await view.locator('body').innerText()).match(/Replaces (\d+) entr/);
    assert.ok(replacesText, 'the panel says how many entries it replaces');
    await shot('03-proposal');

    // Tokens after and saved follow an edit of the summary (a shorter text leaves a smaller context), and come back with it.
    await view.locator('#edit').click();
    await view.locator('#editor').fill('## Goal\n- Add mul and pow to src/math.js');
    const after = view.locator('#stat-after dd');
    const shown = new RegExp(`^${proposedAfter.toLocaleString('en-US')}$`);
    await after.filter({ hasNotText: shown }).waitFor({ timeout: 30_000 });
    const editedAfter = digits(await after.textContent());
    assert.ok(editedAfter < proposedAfter, `tokens after follows the edit: ${editedAfter} < ${proposedAfter}`);
    await shot('03b-edited');
    await view.locator('#cancel-edit').click();
    await after.filter({ hasText: shown }).waitFor({ timeout: 30_000 });
    assert.strictEqual(digits(await after.textContent()), proposedAfter, 'back to the proposal with its text');

    await view.locator('#apply').click();
    await view.locator('#mode-badge', { hasText: 'In session' }).waitFor({ timeout: 60_000 });
    const written = entries(file).filter((e) => e.type === 'compaction');
    assert.strictEqual(written.length, 1, 'the compaction is written');
    assert.strictEqual(digits(await view.locator('#stat-after dd').textContent()), proposedAfter, 'tokens after: proposal vs written');
    assert.strictEqual(digits(await view.locator('#stat-before dd').textContent()), proposedBefore, 'tokens before: proposal vs written');
    assert.match((await view.locator('body').innerText()) ?? '', new RegExp(`Replaces ${replacesText[1]} entr`));
    await closeNotifications(page);

    // The tree row of the written compaction: the same before → after, and the same count of entries replaced.
    await collapseAll(page);
    await expandRow(row(page, NAME));
    const compactionRow = row(page, /active compaction/);
    await compactionRow.waitFor({ timeout: 30_000 });
    const rowText = (await compactionRow.innerText()).replace(/\s+/g, ' ');
    assert.match(rowText, new RegExp(`active compaction: replaces ${replacesText[1]} entr`));
    assert.ok(
      rowText.includes(`${formatTokens(proposedBefore)} → ${formatTokens(proposedAfter)} tokens`),
      `${rowText} vs ${proposedBefore} → ${proposedAfter}`,
    );
    // The session's row now says it is compacted.
    await row(page, NAME)
      .filter({ hasText: /compacted/ })
      .waitFor({ timeout: 30_000 });
    await shot('04-written');
  });
});
