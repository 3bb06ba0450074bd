// UI test of issue 34 item 2: Jump Here with a summary is reviewed like Compact. From the row's context menu:
// summarize with instructions and a label → the review panel (figures, checklist, jump line) → Edit → Apply →
// the tree at the new leaf → Undo Jump from the notification → the old leaf back, nothing removed.
// Screenshots go to test-artifacts/screenshots/jump-*.png.
import * as assert from 'assert';
import * as fs from 'fs';
import type { Page } from 'playwright-core';
import { screenshot, showActivityView, webviewWith } from '../support/vscode/browser';
import { e2e } from './context';
import { digits } from './figures';
import { collapseAll, contextMenuItem, expandRow, row, sidebar } from './sessionsView';
import { closeNotifications, notification } from './notifications';
import { ownSessionCopy, sessionEntries } from './sessionFiles';

const TREE = '01a228c2-4ccd'; // 03-tree: three branch points
const NAME = 'Jump demo: review and undo';
/** The leaf: the session_info entry naming the session (as Pi's /name writes it), under 03-tree's last reply. */
const OLD_LEAF = '5e55a0b1';
const LANDING = 'f5413bc4'; // the parent of the user message jumped to
const shot = (name: string) => screenshot(e2e.page, `jump-${name}`);

/** The test's own copy of 03-tree (other UI tests jump and compact the workspace's copy). */
const ownSession = () => ownSessionCopy(TREE, 'jump-demo');
const entries = sessionEntries;

async function waitForDisk<T>(get: () => T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A wait raced against another: the loser's timeout is caught here. */
const quietly = (p: Promise<void>) => p.catch(() => undefined);

describe('Jump Here reviewed like Compact, and undone (UI, issue 34 item 2)', function () {
  this.timeout(300_000);
  let page: Page;
  let file: string;

  before(async () => {
    page = e2e.page;
    file = ownSession();
    // Named as Pi's /name does, so its row is found whatever ran before.
    const leaf = entries(file).pop()!;
    fs.appendFileSync(
      file,
      `${JSON.stringify({ type: 'session_info', id: OLD_LEAF, parentId: leaf.id, timestamp: new Date().toISOString(), name: NAME })}\n`,
    );
    await showActivityView(page, 'Arbor');
    await collapseAll(page);
    await row(page, NAME).waitFor({ timeout: 30_000 });
  });

  it('Jump Here → review panel with the checklist → Edit → Apply → new leaf → Undo Jump → old leaf back', async () => {
    const before = fs.readFileSync(file);
    await closeNotifications(page);
    await collapseAll(page);
    await row(page, NAME).click();
    await page.keyboard.press('ArrowRight');
    const bp = sidebar(page).locator('.monaco-list-row', { hasText: 'other branch' }).first();
    await bp.waitFor({ timeout: 30_000 });
    await expandRow(bp);
    await expandRow(row(page, /#alt-multiply/));
    const target = sidebar(page)
      .locator('.monaco-list-row', { hasText: 'Add a multiply function, but implement it with a loop' })
      .filter({ hasNotText: 'branch ·' })
      .first();
    await target.waitFor();
    await (await contextMenuItem(page, target, 'Jump Here')).click();
    // Within arbor.liveWriteSeconds of the rename Arbor asks first (another writer may be live); then the jump's question.
    const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Summarize with custom instructions' });
    const ask = page.locator('.monaco-dialog-box').getByRole('button', { name: 'Append Anyway' });
    await Promise.race([quietly(pick.waitFor({ timeout: 30_000 })), quietly(ask.waitFor({ timeout: 30_000 }))]);
    if (await ask.isVisible()) await ask.click();
    await pick.click();
    await page.locator('.quick-input-widget', { hasText: 'Focus for the branch summary' }).waitFor({ timeout: 15_000 });
    await page.keyboard.type('Keep the loop implementation.');
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget', { hasText: 'Label for the branch summary' }).waitFor({ timeout: 15_000 });
    await page.keyboard.type('loop-try');
    await page.keyboard.press('Enter');

    // The review panel: proposed, not written; the jump, its label and instructions; the figures; the checklist above Apply.
    const view = await webviewWith(page, '#jump-line', 90_000);
    await view.locator('#mode-badge', { hasText: 'Proposed, not written yet' }).waitFor();
    assert.match((await view.locator('#jump-line').textContent()) ?? '', new RegExp(`from leaf ${OLD_LEAF} to ${LANDING}.*#loop-try`));
    assert.match((await view.locator('#instructions').textContent()) ?? '', /Keep the loop implementation\./);
    assert.match((await view.locator('#stat-before').textContent()) ?? '', /Context at the leaf left\s*[\d,]+/);
    assert.match((await view.locator('#stat-after').textContent()) ?? '', /Context after the jump\s*[\d,]+/);
    assert.match((await view.locator('#retention-count').textContent()) ?? '', /^\d+ of \d+ facts kept/);
    const box = async (sel: string) => (await view.locator(sel).boundingBox())!;
    assert.ok((await box('#retention')).y < (await box('#apply')).y, 'the checklist is above Apply');
    assert.deepStrictEqual(fs.readFileSync(file), before, 'nothing written while the summary is reviewed');
    await shot('01-review');

    // Edit: a shorter text; the check and "Context after the jump" follow the edit (issue 34 item 2).
    const afterStat = view.locator('#stat-after dd');
    const proposedAfter = digits(await afterStat.textContent());
    await view.locator('#edit').click();
    const editor = view.locator('#editor');
    const edited = '## Goal\n- Try multiply with a loop on a side branch (kept for later).';
    await editor.fill(edited);
    await view.locator('#facts-missing li.fact').first().waitFor({ timeout: 15_000 });
    await afterStat.filter({ hasNotText: new RegExp(`^${proposedAfter.toLocaleString('en-US')}$`) }).waitFor({ timeout: 30_000 });
    const editedAfter = digits(await afterStat.textContent());
    assert.ok(editedAfter < proposedAfter, `context after the jump follows the edit: ${editedAfter} < ${proposedAfter}`);
    await shot('02-edit');
    await view.locator('#apply-edited').click();

    // Written: the edited summary with its label, under the landing; the panel shows it as in the session.
    const summary = await waitForDisk(() => entries(file).find((e) => e.type === 'branch_summary' && e.summary === edited), 'the summary');
    assert.strictEqual(summary.parentId, LANDING);
    assert.strictEqual(summary.fromId, OLD_LEAF);
    const label = await waitForDisk(() => entries(file).find((e) => e.type === 'label' && e.targetId === summary.id), 'the label');
    assert.strictEqual(label.label, 'loop-try');
    await view.locator('#mode-badge', { hasText: 'In session' }).waitFor({ timeout: 30_000 });
    assert.strictEqual(digits(await afterStat.textContent()), editedAfter, 'the written summary: the figure the edit showed');
    await row(page, /Branch summary.*● current/).waitFor({ timeout: 30_000 });
    const note = await notification(page, 'moved to just before your message');
    await shot('03-applied');

    // Undo Jump from the notification: one more entry, under the old leaf; the summary stays.
    const jumped = fs.readFileSync(file);
    await note.locator('.monaco-button', { hasText: 'Undo Jump' }).first().click();
    const marker = await waitForDisk(() => {
      const last = entries(file).pop()!;
      return last.customType === 'arbor/leaf-move' ? last : undefined;
    }, 'the leaf move back');
    assert.strictEqual(marker.parentId, OLD_LEAF);
    const after = fs.readFileSync(file);
    assert.deepStrictEqual(after.subarray(0, jumped.length), jumped, 'the undo removed nothing');
    await row(page, /pow\(a, b\).*● current/).waitFor({ timeout: 30_000 });
    await notification(page, 'jump undone: the leaf is back where it was');
    await shot('04-undone');
  });
});
