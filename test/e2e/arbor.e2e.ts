// UI tests in Chromium against code-server with Arbor loaded and the sample workspace open:
// open the view, expand a session, compact with the offline summarizer (review, edit, apply),
// follow file links, jump to another branch with a summary, and reload the window.
// Screenshots go to test-artifacts/screenshots/arbor-*.png.
import * as assert from 'assert';
import * as fs from 'fs';
import * as http from 'http';
import * as path from 'path';
import type { FrameLocator, Page } from 'playwright-core';
import { runCommand, screenshot, showActivityView, webviewWith } from '../support/vscode/browser';
import { e2e } from './context';
import { collapseAll, contextMenuItem, expandRow, row, sidebar } from './sessionsView';
import { closeNotifications, notification } from './notifications';
import { sessionEntries as entries } from './sessionFiles';
import { emptySessionsWelcome, setUserSettings } from './userSettings';

const sessionsDir = () => path.join(e2e.workspacePath, '.pi', 'sessions');

function sessionFile(idPrefix: string): string {
  const name = fs.readdirSync(sessionsDir()).find((f) => f.includes(`_${idPrefix}`));
  assert.ok(name, `no session ${idPrefix}`);
  return path.join(sessionsDir(), name);
}

/** What Pi writes when the user names a session (/name): a session_info entry under the leaf. */
function piRename(file: string, name: string): void {
  const leaf = entries(file).pop()!;
  const id = `5e55${Math.random().toString(16).slice(2, 6)}`;
  fs.appendFileSync(
    file,
    `${JSON.stringify({ type: 'session_info', id, parentId: leaf.id, timestamp: new Date().toISOString(), name })}\n`,
  );
}

const shot = (name: string) => screenshot(e2e.page, `arbor-${name}`);

/** A wait raced against another: the one that loses ends in a timeout later, caught here (not an unhandled rejection). */
const quietly = (p: Promise<void>) => p.catch(() => undefined);

/** Runs in the page (tests compile without the DOM lib): the summary editor's focus, caret, scroll and whether its top is in view. */
function editorPlace(el: unknown): {
  focused: boolean;
  start: number;
  end: number;
  scrollTop: number;
  overflows: boolean;
  pageTop: boolean;
} {
  const ta = el as {
    ownerDocument: { activeElement: unknown };
    selectionStart: number;
    selectionEnd: number;
    scrollTop: number;
    scrollHeight: number;
    clientHeight: number;
    getBoundingClientRect(): { top: number };
  };
  return {
    focused: ta.ownerDocument.activeElement === el,
    start: ta.selectionStart,
    end: ta.selectionEnd,
    scrollTop: ta.scrollTop,
    overflows: ta.scrollHeight > ta.clientHeight,
    pageTop: ta.getBoundingClientRect().top >= 0,
  };
}

/** The summary panel (the entry panel, opened by clicking rows, may be another webview). */
function summaryPanel(page: Page, timeoutMs = 60_000): Promise<FrameLocator> {
  return webviewWith(page, '#summary-title', timeoutMs);
}

async function waitForDisk<T>(get: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out waiting for the session file');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Rewrites the workspace settings (VS Code picks the change up from disk). */
function setWorkspaceSettings(update: Record<string, unknown>): () => void {
  const file = path.join(e2e.workspacePath, '.vscode', 'settings.json');
  const original = fs.readFileSync(file, 'utf8');
  fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(original), ...update }, null, 2));
  return () => fs.writeFileSync(file, original);
}

const TREE = '01a228c2-4ccd'; // 03-tree: three branch points
const PLAIN = '01a228c2-47b3'; // 01-plain: one long linear conversation

describe('Arbor in VS Code (UI)', function () {
  this.timeout(120_000);
  let page: Page;

  before(async () => {
    page = e2e.page;
    // Give the two sessions the tests use names, as Pi's /name would: the tree must pick that up live.
    piRename(sessionFile(TREE), 'Tree demo: branches and summaries');
    piRename(sessionFile(PLAIN), 'Plain demo: a long conversation');
  });

  it('opens the Arbor view with the workspace sessions', async () => {
    await showActivityView(page, 'Arbor');
    await row(page, 'misc: models, custom messages, errors').waitFor({ timeout: 30_000 });
    await row(page, 'Tree demo: branches and summaries').waitFor({ timeout: 30_000 });
    await row(page, 'Plain demo: a long conversation').waitFor();
    const rows = await sidebar(page).locator('.monaco-list-row').count();
    assert.ok(rows >= 6, `${rows} sessions`);
    await shot('01-sessions');
  });

  it('expands a session: the active path flat, branch points expandable, the leaf marked', async () => {
    await row(page, 'Tree demo: branches and summaries').click();
    await row(page, 'Continue from here: add a `pow` function as well.').waitFor();
    await row(page, '● current').waitFor();
    // The active path has three branch points. The first is a thinking-level change, bookkeeping the
    // Default filter hides (as Pi's /tree does): its branch is a row of the line itself, at the top.
    // The other two are rows saying how many other branches they hold: expand each.
    await row(page, /branch · \d+ entries/).waitFor();
    const points = sidebar(page).locator('.monaco-list-row', { hasText: 'other branch' });
    assert.strictEqual(await points.count(), 2);
    for (let i = 0; i < 2; i++) await expandRow(points.nth(i));
    await row(page, /branch · \d+ entries · .*#alt-multiply/).waitFor();
    await shot('02-tree-expanded');
  });

  it("status bar shows the active session's context use", async () => {
    const item = page.locator('.statusbar-item', { hasText: /\/ 32\.8k \(\d+%\)/ });
    await item.waitFor({ timeout: 15_000 });
    const text = (await item.textContent()) ?? '';
    assert.match(text, /[\d.]+k? \/ 32\.8k \(\d+%\)/);
  });

  it('Compact with the offline summarizer: review, edit, apply; the compaction node and the panel', async () => {
    const file = sessionFile(PLAIN);
    const before = entries(file).length;
    await collapseAll(page);
    await row(page, 'Plain demo: a long conversation').click();
    await runCommand(page, 'Arbor: Compact...');
    await page.locator('.quick-input-widget', { hasText: 'Optional instructions' }).waitFor();
    const input = page.locator('.quick-input-widget input');
    await input.fill('Focus on the tests and the files changed');
    await page.keyboard.press('Enter');

    const view = await summaryPanel(page);
    assert.strictEqual(await view.locator('#summary-title').textContent(), 'Compaction summary');
    assert.match((await view.locator('#mode-badge').textContent()) ?? '', /Proposed, not written yet/);
    for (const s of ['goal', 'progress', 'nextSteps', 'criticalContext', 'files']) {
      assert.ok(await view.locator(`section[data-section="${s}"]`).count(), `section ${s}`);
    }
    assert.ok(await view.locator('section[data-section="turnContext"]').count(), 'split-turn context (01-plain splits a turn)');
    assert.ok((await view.locator('a.file-link').count()) >= 5, 'file links');
    assert.match((await view.locator('#stat-before').textContent()) ?? '', /Tokens before/);
    assert.strictEqual(entries(file).length, before, 'nothing written before Apply');
    await shot('03-compact-review');

    // Edit: the raw text in an editor, then back.
    await view.locator('#edit').click();
    const editor = view.locator('#editor');
    await editor.waitFor();
    assert.match(await editor.inputValue(), /## Goal/);
    // Issue 21 item 7: it opened scrolled to the bottom. At the top now, focused, the caret at the start.
    const at = await editor.evaluate(editorPlace);
    assert.deepStrictEqual(
      { focused: at.focused, start: at.start, end: at.end, scrollTop: at.scrollTop, pageTop: at.pageTop },
      { focused: true, start: 0, end: 0, scrollTop: 0, pageTop: true },
      `the editor scrolled: ${JSON.stringify(at)}`,
    );
    await shot('04-compact-edit');
    await editor.press('End');
    await view.locator('#cancel-edit').click();
    await view.locator('#apply').waitFor();

    await view.locator('#apply').click();
    // before() renamed this session as Pi's /name does: within arbor.liveWriteSeconds of that write Arbor asks first
    // (another writer may be live). Whichever state comes, the compaction is then written.
    const inSession = view.locator('#mode-badge', { hasText: 'In session' });
    const ask = page.locator('.monaco-dialog-box').getByRole('button', { name: 'Append Anyway' });
    await Promise.race([quietly(inSession.waitFor({ timeout: 30_000 })), quietly(ask.waitFor({ timeout: 30_000 }))]);
    if (await ask.isVisible()) await ask.click();
    await inSession.waitFor({ timeout: 30_000 });
    const after = entries(file);
    assert.strictEqual(after.length, before + 1, 'Apply appended exactly one entry');
    const written = after[after.length - 1];
    assert.strictEqual(written.type, 'compaction');
    assert.strictEqual(written.parentId, entries(file)[before - 1].id);
    assert.match((await view.locator('.meta').first().textContent()) ?? '', new RegExp(String(written.id)));
    // The tree shows the compaction as the current leaf.
    await row(page, /Compaction.*● current|● current.*Compaction/).waitFor({ timeout: 15_000 });
    await shot('05-compact-applied');

    // A file link opens the file from the workspace.
    await view.locator('a.file-link', { hasText: 'src/math.js' }).click();
    await page.locator('.tabs-container .tab', { hasText: 'math.js' }).waitFor({ timeout: 15_000 });
    await shot('06-file-link');
  });

  it('Jump Here to another branch with a summary; the file on disk gets the branch summary', async () => {
    const file = sessionFile(TREE);
    const oldLeaf = entries(file).pop()!;
    await closeNotifications(page);
    await collapseAll(page);
    await row(page, 'Tree demo: branches and summaries').click();
    await page.keyboard.press('ArrowRight');
    const points = sidebar(page).locator('.monaco-list-row', { hasText: 'other branch' });
    await points.first().waitFor();
    const bp = points.nth(0); // 088cfc63, where the alt-multiply branch starts (the hidden thinking-level change before it has no row)
    await expandRow(bp);
    // The side branch made at 088cfc63 (labelled alt-multiply): expand it and jump to its last reply.
    const branch = row(page, /#alt-multiply/);
    await expandRow(branch);
    const target = sidebar(page)
      .locator('.monaco-list-row', { hasText: 'Add a multiply function, but implement it with a loop' })
      .filter({ hasNotText: 'branch ·' })
      .first();
    await target.waitFor();
    const jump = await contextMenuItem(page, target, 'Jump Here');
    await jump.click();
    // before() renamed this session as Pi's /name does: within arbor.liveWriteSeconds of that write Arbor asks first
    // (another writer may be live), on a fast run. Whichever state comes, the jump's question follows.
    const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Summarize the branch I leave' });
    const ask = page.locator('.monaco-dialog-box').getByRole('button', { name: 'Append Anyway' });
    await Promise.race([quietly(pick.waitFor({ timeout: 30_000 })), quietly(ask.waitFor({ timeout: 30_000 }))]);
    if (await ask.isVisible()) await ask.click();
    await pick.waitFor();
    await shot('07-jump-quickpick');
    await pick.click();
    // An optional label for the summary (as Pi's /tree asks): none here.
    await page.locator('.quick-input-widget', { hasText: 'Label for the branch summary' }).waitFor({ timeout: 15_000 });
    await page.keyboard.press('Enter');
    // Issue 34 item 2: the branch summary is reviewed first, as a compaction is; Apply writes it.
    const review = await summaryPanel(page);
    await review.locator('#mode-badge', { hasText: 'Proposed' }).waitFor({ timeout: 60_000 });
    await review.locator('#apply').click();
    // The file on disk gets the branch summary under the new leaf.
    const last = await waitForDisk(() => {
      const e = entries(file).pop()!;
      return e.type === 'branch_summary' ? e : undefined;
    });
    assert.strictEqual(last.fromId, oldLeaf.id);
    assert.strictEqual(last.parentId, 'f5413bc4', 'the parent of the user message jumped to');
    assert.match(String(last.summary), /## Goal/);
    await row(page, /Branch summary.*● current/).waitFor({ timeout: 15_000 });
    // A user-message target: its text comes back for editing (notification with Edit / Copy / Undo Jump).
    await notification(page, 'moved to just before your message');
    await shot('08-jump-done');
    // The panel now shows the summary as written.
    const view = await summaryPanel(page, 15_000);
    await view.locator('#mode-badge', { hasText: 'In session' }).waitFor({ timeout: 15_000 });
    await view.locator('#summary-title', { hasText: 'Branch summary' }).waitFor({ timeout: 15_000 });
    await view.locator('#replaced').waitFor();
    await shot('09-branch-summary');
  });

  it('Show Context opens what the LLM sees', async () => {
    // Issue 8 item 7: a view, not a Markdown document (panels.e2e.ts tests it in depth).
    await runCommand(page, 'Arbor: Show Context');
    await page.locator('.tabs-container .tab', { hasText: 'Context:' }).waitFor({ timeout: 15_000 });
    await shot('10-context');
  });

  it('Cancel on the progress notification aborts the provider request; nothing is written', async () => {
    // An OpenAI-compatible server that never answers: the only way out is Cancel.
    const requests: { closedAt?: number }[] = [];
    const server = http.createServer((req, res) => {
      const r: { closedAt?: number } = {};
      requests.push(r);
      req.resume();
      res.on('close', () => (r.closedAt = Date.now()));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const restoreWorkspace = setWorkspaceSettings({ 'arbor.summarizer.provider': 'openai', 'arbor.summarizer.model': 'gpt-4o-mini' });
    const restoreUser = setUserSettings({ 'arbor.summarizer.baseURL': `http://127.0.0.1:${port}/v1` });
    const restore = () => {
      restoreUser();
      restoreWorkspace();
    };
    try {
      const file = sessionFile('01a228c2-4f38'); // 05-misc
      const before = fs.readFileSync(file, 'utf8');
      await closeNotifications(page);
      await collapseAll(page);
      await new Promise((r) => setTimeout(r, 1500)); // let the settings change arrive
      await row(page, 'misc: models, custom messages, errors').click();
      await runCommand(page, 'Arbor: Compact...');
      await page.locator('.quick-input-widget', { hasText: 'Optional instructions' }).waitFor();
      await page.locator('.quick-input-widget input').press('Enter');
      await waitForDisk(() => (requests.length ? true : undefined), 15_000);
      const progress = await notification(page, 'compacting');
      await shot('12-compact-in-progress');
      await progress.locator('.monaco-button', { hasText: 'Cancel' }).click();
      await waitForDisk(() => (requests[0].closedAt ? true : undefined), 10_000);
      await notification(page, 'Compact cancelled. Nothing was written.');
      assert.strictEqual(fs.readFileSync(file, 'utf8'), before, 'nothing written');
      await shot('13-compact-cancelled');
    } finally {
      restore();
      server.close();
      server.closeAllConnections();
    }
  });

  it('shows a welcome view when the workspace has no sessions', async () => {
    const { welcome, restore } = await emptySessionsWelcome(page);
    try {
      await welcome.locator('.monaco-button', { hasText: 'Open Session File...' }).waitFor();
      await shot('14-welcome');
    } finally {
      restore();
    }
    await row(page, 'Tree demo: branches and summaries').waitFor({ timeout: 20_000 });
  });

  it('restores the summary panel after a window reload', async () => {
    await collapseAll(page);
    await row(page, 'Tree demo: branches and summaries').click();
    await runCommand(page, 'Arbor: Show Summary');
    await summaryPanel(page, 15_000);
    await page.reload();
    await page.locator('.monaco-workbench .part.activitybar').waitFor({ timeout: 60_000 });
    await (await summaryPanel(page)).locator('section[data-section="goal"]').waitFor();
    await shot('11-restored-after-reload');
  });
});
