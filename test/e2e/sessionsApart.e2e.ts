// Issue 34 item 3 (and item 6 for it): sessions told apart in the Sessions view at the default sidebar width, in
// Chromium against code-server. Screenshots: test-artifacts/screenshots/apart-*.png (looked at by the developer).
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Page } from 'playwright-core';
import { runCommand, screenshot, showActivityView } from '../support/vscode/browser';
import { e2e } from './context';
import { chooseMenuItem, collapseAll, contextMenuItem, expandRow, inView, row, sessionRow, sidebar, waitInView } from './sessionsView';
import { closeNotifications, notification } from './notifications';
import { emptySessionsWelcome } from './userSettings';
import { peekSession, peekTitleFacts } from '../../src/engine/tree/sessionPeek';
import { sessionTitles, titleLine } from '../../src/engine/tree/sessionTitle';
import { byLastActivity } from '../../src/engine/tree/sessionOrder';

const shot = (name: string) => screenshot(e2e.page, `apart-${name}`);
const sessionsDir = () => path.join(e2e.workspacePath, '.pi', 'sessions');
const SHARED = 'Take a look at this project and tell me what it does.';

/** The session rows' labels, top to bottom (the view collapsed: every row is a session). */
async function sessionLabels(page: Page): Promise<string[]> {
  return sidebar(page).locator('.monaco-list-row[aria-level="1"] .label-name').allInnerTexts();
}

/** What the engine says the rows should read, in its order: the title rule over the files as they are now. */
async function expectedLabels(): Promise<{ labels: string[]; shared: number }> {
  const files = fs
    .readdirSync(sessionsDir())
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => path.join(sessionsDir(), f));
  const peeks = await Promise.all(files.map((f) => peekSession(f)));
  const titles = sessionTitles(peeks.map(peekTitleFacts));
  const rows = files.map((file, k) => ({
    file,
    lastActivityMs: peeks[k].lastActivityMs,
    label: titleLine(titles[k], file, { narrow: true }),
  }));
  return {
    labels: byLastActivity(rows, (r) => r).map((r) => r.label),
    shared: titles.filter((t) => t.title === SHARED).length,
  };
}

interface Rect {
  right: number;
}
interface DomNode {
  nodeType: number;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
  getBoundingClientRect(): Rect;
  querySelector(selector: string): DomNode | null;
  ownerDocument: {
    createRange(): { setStart(n: DomNode, k: number): void; setEnd(n: DomNode, k: number): void; getBoundingClientRect(): Rect };
  };
}

/** Runs in the page (tests compile without the DOM lib): how many characters after " › " / " · " of a row's label are on screen. */
function shownAfterSeparator(el: unknown): { label: string; shown: number } | undefined {
  const r = el as DomNode;
  const name = r.querySelector('.label-name');
  const box = r.querySelector('.monaco-icon-label-container') ?? r;
  const text = name?.textContent ?? '';
  const at = Math.max(text.indexOf(' › '), text.indexOf(' · '));
  // The label's one text node (VS Code wraps it in a span or two).
  const find = (n: DomNode): DomNode | undefined =>
    n.nodeType === 3 && (n.textContent ?? '').length === text.length ? n : Array.from(n.childNodes).map(find).find(Boolean);
  const node = name ? find(name) : undefined;
  if (at < 0 || !node) return undefined;
  const right = box.getBoundingClientRect().right;
  const range = r.ownerDocument.createRange();
  let shown = 0;
  for (let k = at + 3; k < text.length; k++) {
    range.setStart(node, 0);
    range.setEnd(node, k + 1);
    if (range.getBoundingClientRect().right > right) break;
    shown = k + 1 - (at + 3);
  }
  return { label: text, shown };
}

/**
 * For each row whose label says what tells it apart (after " › " or " · "), how many characters of that part are on
 * screen: the label is cut by the view's width with an ellipsis, and the part must not be cut away.
 */
async function visibleDiffers(page: Page): Promise<{ label: string; shown: number }[]> {
  const rows = sidebar(page).locator('.monaco-list-row[aria-level="1"]');
  const out: { label: string; shown: number }[] = [];
  for (let k = 0; k < (await rows.count()); k++) {
    const v = await rows.nth(k).evaluate(shownAfterSeparator);
    if (v) out.push(v);
  }
  return out;
}

/**
 * The quick pick's group separators on screen, by the row they head, paged through from the top of the list to its end
 * with the keyboard (the list only draws the rows in view).
 */
async function quickPickSeparators(page: Page): Promise<Map<string, string>> {
  const list = page.locator('.quick-input-list');
  const rows = list.locator('.monaco-list-row');
  const active = list.locator('.monaco-list-row.focused').first();
  const byRow = new Map<string, string>();
  let at: string | null = null;
  for (let k = 0; k < 200; k++) {
    for (let r = 0; r < (await rows.count()); r++) {
      const separator = rows.nth(r).locator('.quick-input-list-separator');
      const text = (await separator.count()) ? (await separator.first().innerText()).trim() : '';
      if (text && (await separator.first().isVisible())) byRow.set((await rows.nth(r).getAttribute('data-index')) ?? '', text);
    }
    await page.keyboard.press('PageDown');
    const next = (await active.count()) ? await active.getAttribute('data-index') : null;
    if (next === at) break;
    at = next;
  }
  return byRow;
}

describe('Sessions told apart (issue 34 item 3)', function () {
  this.timeout(180_000);
  let page: Page;

  before(() => {
    page = e2e.page;
  });

  it('equal titles: what tells them apart is on screen at the default width; rows by last activity, the order said', async () => {
    await showActivityView(page, 'Arbor');
    await collapseAll(page);
    const { labels: expected, shared } = await expectedLabels();
    assert.ok(shared >= 2, `the fixture has sessions sharing "${SHARED}" (${shared})`);
    // The rows as the engine orders and names them (a row still loading may lag: wait for the state, not a time).
    await row(page, /Take a look… [›·] /).waitFor({ timeout: 60_000 });
    let labels: string[] = [];
    for (let k = 0; k < 100; k++) {
      labels = await sessionLabels(page);
      if (JSON.stringify(labels) === JSON.stringify(expected)) break;
      await page.waitForTimeout(200);
    }
    assert.deepStrictEqual(labels, expected);
    const apart = labels.filter((l) => l.startsWith('Take a look… '));
    assert.equal(apart.length, shared, 'each session sharing the title says what tells it apart');
    assert.equal(new Set(apart).size, apart.length, 'no two rows read the same');
    // Readable: at least 10 characters of what differs (or all of it) are on screen, not cut by the width.
    const visible = await visibleDiffers(page);
    assert.equal(visible.length, apart.length, JSON.stringify(visible));
    for (const v of visible) {
      const part = v.label.slice(Math.max(v.label.indexOf(' › '), v.label.indexOf(' · ')) + 3);
      assert.ok(v.shown >= Math.min(10, part.length), `"${v.label}": ${v.shown} characters of "${part}" on screen`);
    }
    // The order is said above the rows.
    await sidebar(page).locator('.message', { hasText: 'newest activity first' }).first().waitFor({ timeout: 10_000 });
    await shot('01-rows');
  });

  it("a row's tooltip: the whole title, the latest request, first and last activity in order", async () => {
    await collapseAll(page);
    // A session sharing its title (other UI tests name some of them: any one still sharing it).
    const target = row(page, /Take a look… › /);
    await target.hover();
    const tip = page.locator('.monaco-hover, .workbench-hover', { hasText: 'Last activity' }).first();
    await tip.waitFor({ timeout: 20_000 });
    const text = (await tip.innerText()).replace(/\u00a0/g, ' ');
    const latest = /Latest request: (.+)/.exec(text)?.[1];
    assert.ok(latest, text);
    assert.ok(text.includes(`${SHARED} (latest: ${latest})`), text);
    assert.ok((await target.innerText()).includes(latest.slice(0, 8)), 'the row says the start of it');
    const when = (name: string) =>
      new Date(String(/: (.*?) \(/.exec(text.split('\n').find((l) => l.startsWith(name)) ?? '')?.[1])).getTime();
    assert.ok(when('First activity') <= when('Last activity'), text);
    await shot('02-tooltip');
    await page.mouse.move(900, 500);
  });

  it('search in all sessions: hits grouped under each session, named whole', async () => {
    await runCommand(page, 'Arbor: Search in All Sessions...');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill('README');
    await page
      .locator('.quick-input-widget', { hasText: /found \(/ })
      .first()
      .waitFor({ timeout: 30_000 });
    // A separator per session with hits, its whole title and what tells it apart (no "…"), through the whole list
    // (other tests' sessions may come first): paged down as a user reads it.
    const named = [...(await quickPickSeparators(page)).values()];
    assert.ok(named.length >= 2, `separators on screen: ${JSON.stringify(named)}`);
    assert.equal(new Set(named).size, named.length, 'each session heads its hits once');
    assert.ok(
      named.some((s) => s.startsWith(`${SHARED} (`)),
      JSON.stringify(named),
    );
    for (const s of named) assert.ok(!s.endsWith('…'), `whole: ${s}`);
    await shot('03-search-grouped');
    await page.keyboard.press('Escape');
  });

  it('the filter is named above the rows; Labeled Only on a session without labels says so instead of expanding to nothing', async () => {
    await collapseAll(page);
    await runCommand(page, 'Arbor: Filter Tree: Labeled Only');
    try {
      await sidebar(page).locator('.message', { hasText: 'Filter: Labeled Only' }).first().waitFor({ timeout: 10_000 });
      const docs = row(page, 'Give me a quick overview of the docs folder.');
      await expandRow(docs);
      await row(page, /No labeled entries \(filter: Labeled Only/).waitFor({ timeout: 30_000 });
      await shot('04-labeled-only-empty');
    } finally {
      await runCommand(page, 'Arbor: Filter Tree: Default');
    }
    await sidebar(page)
      .locator('.message', { hasText: /^Sessions: newest activity first$/ })
      .first()
      .waitFor({ timeout: 10_000 });
    await collapseAll(page);
  });

  it('a workspace session opens scrolled to its leaf, not at its root with the leaf rows down', async () => {
    await collapseAll(page);
    // The session's own row (a compaction row below it may quote its first request).
    const docs = sessionRow(page, 'Give me a quick overview of the docs folder.');
    await docs.waitFor({ timeout: 30_000 });
    if ((await docs.getAttribute('aria-expanded')) === 'true') await docs.locator('.monaco-tl-twistie').click();
    await sessionRow(page, 'Give me a quick overview of the docs folder.').and(page.locator('[aria-expanded="false"]')).waitFor();
    await expandRow(docs);
    // Its rows put the leaf further down than the view is high: the view scrolls to it by itself, its own row going
    // off the top (the sticky row at the top still names the session).
    const leaf = sidebar(page).locator('.monaco-list-row:not(.monaco-tree-sticky-row)', { hasText: '● current' }).first();
    await waitInView(page, leaf, 'the leaf row of the opened session');
    assert.equal(await leaf.getAttribute('aria-level'), '2', "the leaf is on the session's own line");
    assert.ok(!(await inView(page, docs)), 'the view scrolled down to the leaf');
    await shot('08-opened-at-leaf');
    await collapseAll(page);
  });

  it('a session file added with Open Session File can be removed from the list (the file stays)', async () => {
    const TIME = '2026-11-29T19:22:34.000Z';
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-opened-'));
    const file = path.join(outside, 'opened-elsewhere.jsonl');
    const src = fs.readdirSync(sessionsDir()).find((f) => f.includes('_01a228c2-4f38'))!;
    // Named, so its row is found by its title.
    fs.writeFileSync(
      file,
      fs.readFileSync(path.join(sessionsDir(), src), 'utf8') +
        `${JSON.stringify({ type: 'session_info', id: 'feed0001', parentId: 'aaf3978b', timestamp: TIME, name: 'Opened from elsewhere' })}\n`,
    );
    // Taken off the list and its folder removed whatever happens: later tests see the workspace's sessions only.
    try {
      await closeNotifications(page);
      await collapseAll(page);
      await runCommand(page, 'Arbor: Open Session File...');
      // The browser's file dialog is a quick input holding a path.
      const input = page.locator('.quick-input-widget input');
      await input.waitFor();
      await input.fill(`${outside}/`);
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'opened-elsewhere.jsonl' }).first().click();
      const opened = row(page, 'Opened from elsewhere');
      // A click on the file picks it (or puts its path in the input: then the dialog's button opens it).
      for (let k = 0; k < 50 && !(await opened.count()); k++) {
        const button = page.locator('.quick-input-widget .monaco-button', { hasText: 'Open Session' });
        if (await button.isVisible().catch(() => false)) await button.click().catch(() => undefined);
        await page.waitForTimeout(200);
      }
      await opened.waitFor({ timeout: 30_000 });
      assert.match(await opened.innerText(), /opened/);
      await collapseAll(page);
      await shot('05-opened');
      // The item is chosen as a keyboard user chooses it (highlighted, then Enter): in headless Chromium a mouse click
      // on this menu's last item was not taken (the command never ran, the menu stayed open), three tries in a row.
      for (let attempt = 1; ; attempt++) {
        await chooseMenuItem(page, await contextMenuItem(page, row(page, 'Opened from elsewhere'), 'Remove from List'));
        const gone = await row(page, 'Opened from elsewhere')
          .waitFor({ state: 'detached', timeout: 15_000 })
          .then(() => true)
          .catch(() => false);
        if (gone) break;
        if (attempt >= 3) assert.fail('Remove from List left the row in the list');
      }
      assert.ok(fs.existsSync(file), 'the file itself is left alone');
      await shot('06-removed');
    } finally {
      const left = row(page, 'Opened from elsewhere');
      if (await left.count()) {
        await chooseMenuItem(page, await contextMenuItem(page, left, 'Remove from List'));
      }
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('the empty state names where this VS Code looks', async () => {
    const { welcome, dir: empty, restore } = await emptySessionsWelcome(page);
    try {
      assert.ok(!(await welcome.innerText()).includes('~/.pi/agent/sessions/ (one folder'), 'no fixed folder named');
      await welcome.locator('.monaco-button', { hasText: 'Where Arbor Looks' }).click();
      await notification(page, empty);
      await shot('07-empty-where');
    } finally {
      restore();
      await closeNotifications(page);
    }
    await row(page, /Take a look… › /).waitFor({ timeout: 20_000 });
  });
});
