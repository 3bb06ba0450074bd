// Over 400 lines: one generated 100 MB session shared by every measurement (generating it is most of the run).
// Benchmark-style test in the extension host with a generated 100 MB session (ARBOR_PERF_MB to change):
//  - opening it in the Sessions view: time to the first page of children VS Code asks for,
//    with the index cold (loaded on expand) and warm;
//  - the second render of those rows recounts no tokens (per-entry cache);
//  - one entry appended to the watched file: time from the file change event to VS Code getting the
//    new entry's row, and the bytes read from the file meanwhile (only the appended line).
// Prints its measurements next to their targets; asserts exact counts (bytes, recounts, rows) and no time at all
// (the machine is shared and noisy; issue 22 item 8: figures are printed, never asserted under a deadline).
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { generateSession } from '../../../bench/generateSession';
import { repoRoot } from '../../support/fixtures';
import type { ArborNode, BranchNode, EntryNode } from '../../../src/vscode/tree/nodes';
import type { SessionIndex } from '../../../src/engine/session/sessionIndex';
import { passesFilter } from '../../../src/engine/tree/rowFilter';
import { arborApi, waitFor, withSetting, labelText } from './arborHelpers';
import { median, ms, ProviderSpy, ReadCounter, type ProviderCall } from './perfHelpers';

const MB = Number(process.env.ARBOR_PERF_MB) || 100;
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

/** Targets from issue 5; printed next to the numbers (not asserted). */
const TARGET_FIRST_PAGE_MS = 300;
const TARGET_APPEND_MS = 20;

/** The entry ids among the rows of a getChildren answer. */
function rowIds(result: unknown): string[] {
  return ((result as ArborNode[] | undefined) ?? []).filter((n): n is EntryNode => n.type === 'entry').map((n) => n.entryId);
}

function lastLineId(file: string): string {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const len = Math.min(size, 256 * 1024);
    const buf = Buffer.alloc(len);
    fs.readSync(fd, buf, 0, len, size - len);
    const lines = buf.toString('utf8').trimEnd().split('\n');
    return String((JSON.parse(lines[lines.length - 1]) as { id: string }).id);
  } finally {
    fs.closeSync(fd);
  }
}

describe(`Performance in the extension host (${MB} MB session)`, function () {
  this.timeout(900_000);
  const lines: string[] = [];
  const note = (s: string) => {
    lines.push(s);
    console.log(`      [perf] ${s}`);
  };
  let dir: string;
  let file: string;
  let restoreEstimator: (() => Promise<void>) | undefined;
  let spy: ProviderSpy | undefined;

  before(async function () {
    await arborApi();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-perf-'));
    file = path.join(dir, `session-${MB}mb.jsonl`);
    const cached = path.join(repoRoot, 'bench', '.data', `session-${MB}mb.jsonl`);
    const t0 = performance.now();
    if (fs.existsSync(cached)) fs.copyFileSync(cached, file);
    else await generateSession({ file, targetBytes: MB * 1024 * 1024 });
    note(
      `session: ${(fs.statSync(file).size / 1048576).toFixed(1)} MB ` +
        `(${fs.existsSync(cached) ? 'copied from bench/.data' : 'generated'} in ${ms(performance.now() - t0)})`,
    );
    const old = new Date(Date.now() - 3600_000);
    fs.utimesSync(file, old, old);
    // Users get the tokenizer by default; the test workspace uses chars. Measure the default: as in a
    // window that started with it, the extension loads the tokenizer in the background first.
    restoreEstimator = await withSetting('tokenEstimator', 'tokenizer');
    const api = await arborApi();
    await waitFor(() => api.internals.tokenizerLoaded(), 'the tokenizer preloaded after the setting changed', 10_000);
    await sleep(300);
  });

  after(async () => {
    spy?.dispose();
    await restoreEstimator?.();
    const { services } = (await arborApi()).internals;
    const model = services.store.get(file);
    if (model) {
      // Free the index for the tests that follow.
      model.index = undefined;
      model.layout = undefined;
    }
    fs.rmSync(dir, { recursive: true, force: true });
    console.log(`\n      [perf] summary (${MB} MB):\n${lines.map((l) => `        ${l}`).join('\n')}\n`);
  });

  async function collapseAll(): Promise<void> {
    await vscode.commands.executeCommand('workbench.actions.treeView.arbor.sessions.collapseAll');
    await sleep(300);
  }

  /** Times one expand of the session node in the real tree view. */
  async function expand(label: string): Promise<{ total: number; firstPage: number; rows: number }> {
    const { services } = (await arborApi()).internals;
    const session = services.tree.sessionNode(file);
    spy!.clear();
    const t0 = performance.now();
    await services.treeView.reveal(session, { expand: true, select: false, focus: false });
    const revealed = performance.now();
    const sessionCalls = spy!.calls.filter((c) => c.method === 'getChildren' && c.node?.type === 'session' && c.node.file === file);
    const childrenCall = sessionCalls[0];
    assert.ok(childrenCall, `${label}: VS Code asked for the session's children`);
    // The rows of that answer (not those of a later one, e.g. when the full index replaces a preview).
    const until = sessionCalls[1]?.start ?? Infinity;
    const items = spy!.calls.filter(
      (c) =>
        c.method === 'getTreeItem' &&
        c.node &&
        c.node.type !== 'session' &&
        c.node.file === file &&
        c.start >= childrenCall.start &&
        c.start < until,
    );
    const lastItem = items.length ? Math.max(...items.map((c) => c.end)) : childrenCall.end;
    const firstPage = lastItem - t0;
    note(
      `${label}: first page of ${items.length} rows ready ${ms(firstPage)} after expanding (getChildren ${ms(childrenCall.end - childrenCall.start)}, ` +
        `${items.length} getTreeItem ${ms(lastItem - childrenCall.end)}); reveal resolved after ${ms(revealed - t0)}; target < ${TARGET_FIRST_PAGE_MS} ms`,
    );
    return { total: revealed - t0, firstPage, rows: items.length };
  }

  /**
   * Holds back the full index of the session until the returned function is called: on a busy
   * machine it can otherwise finish before the tail preview, and the tree then shows no preview.
   */
  function holdFullIndex(sessionStore: unknown): () => void {
    const store = sessionStore as { loadIndex(f: string): Promise<SessionIndex> };
    const load = store.loadIndex;
    let open!: () => void;
    const held = new Promise<void>((r) => (open = r));
    store.loadIndex = async function (this: unknown, f: string) {
      if (f === file) await held;
      return load.call(this, f);
    };
    return () => {
      delete (store as Partial<typeof store>).loadIndex;
      open();
    };
  }

  /**
   * Drops the session's index (as in a new window) and asks for its rows: they come from the preview
   * (the full index is held back until `release()`).
   */
  async function showFromPreview() {
    const api = await arborApi();
    const { services } = api.internals;
    const model = services.store.get(file)!;
    const session = services.tree.sessionNode(file);
    const release = holdFullIndex(services.store);
    try {
      // Another session active, so that the status bar does not load this one meanwhile.
      services.setActive(services.store.list().find((m) => m.file !== file)?.file);
      await collapseAll();
      model.index = undefined;
      model.layout = undefined;
      services.store.touch(model);
      await sleep(300);
      // Never hand assert an index to compare: its diff of two large objects takes minutes.
      assert.ok(model.index === undefined, 'nothing loaded the session meanwhile');
      const rows = await services.tree.getChildren(session);
      assert.ok(model.preview, 'the rows come from the preview');
      return { services, model: model as typeof model & { preview: NonNullable<typeof model.preview> }, session, rows, release };
    } catch (err) {
      release();
      throw err;
    }
  }

  it('opens the session in the Sessions view: first page of children, index cold and warm', async () => {
    const api = await arborApi();
    const { services } = api.internals;
    await vscode.commands.executeCommand('arbor.sessions.focus');
    spy = new ProviderSpy(services.tree as never);

    // Open Session File: lists and indexes it, then reveals it expanded.
    const t0 = performance.now();
    const opened = await vscode.commands.executeCommand<string>('arbor.openSessionFile', vscode.Uri.file(file));
    assert.strictEqual(opened, file);
    const model = services.store.get(file)!;
    note(
      `Open Session File (index ${model.index!.entryCount} entries, main line ${model.layout!.mainLine.length}): ${ms(performance.now() - t0)}`,
    );

    // A large session opens at its current leaf (revealed once its rows are in the view): done before the cold expand below.
    await waitFor(
      () => (services.treeView.selection[0] as EntryNode | undefined)?.entryId === services.tree.leafNode(file)?.entryId,
      'Open Session File: the current leaf revealed and selected',
      30_000,
    );
    // Cold: the index dropped (as in a new window); expanding loads it. Another session is the active one,
    // so that the status bar does not load this one in the background meanwhile.
    services.setActive(services.store.list().find((m) => m.file !== file)?.file);
    await collapseAll();
    model.index = undefined;
    model.layout = undefined;
    services.store.touch(model); // VS Code forgets the children it had
    await sleep(300);
    const loads: string[] = [];
    const previews: string[] = [];
    const sub = api.internals.onDidLog((_level, line) => {
      if (line.startsWith(`loaded ${file}`)) loads.push(line.slice(`loaded ${file}: `.length));
      if (line.startsWith(`previewing ${file}`)) previews.push(line.slice(`previewing ${file}: `.length));
    });
    // Token counts live in the index (one count per entry and estimator): how many rows were counted is their number.
    const counted = () => [...((model.index ?? model.preview?.index)?.tokenCounts.values() ?? [])].reduce((n, m) => n + m.size, 0);
    const tCold = performance.now();
    const release = holdFullIndex(services.store);
    try {
      const cold = await expand('expand, index cold (loads the file)');
      assert.ok(cold.rows > 0, 'the cold expand shows rows');
    } finally {
      release();
    }
    const previewRows = rowIds(
      spy!.calls.find((c) => c.method === 'getChildren' && c.node?.type === 'session' && c.node.file === file)?.result,
    );
    // The full index replaces the preview: VS Code asks for the session's rows again.
    await waitFor(() => model.index !== undefined && model.preview === undefined, 'the full index loaded', 60_000);
    const answers = await waitFor(
      () => {
        const calls = spy!.calls.filter(
          (c) => c.method === 'getChildren' && c.node?.type === 'session' && c.node.file === file && c.start >= tCold,
        );
        return calls.length >= 2 ? calls : undefined;
      },
      'the rows of the full index',
      30_000,
    );
    const fullRows = rowIds(answers![1].result);
    // A large session opens scrolled to the row shown as current (issue 8 item 12): revealed and selected once the full index's rows are in the view.
    const current = services.tree.leafNode(file)!;
    await waitFor(
      () => (services.treeView.selection[0] as EntryNode | undefined)?.entryId === current.entryId,
      'the current leaf revealed and selected',
      30_000,
    );
    sub.dispose();
    note(
      `  shown from ${previews.length ? `a preview (${previews.join('; ')})` : 'the full index'}; the full index (${loads.join('; ')}) ` +
        `replaced it ${ms(answers![1].start - tCold)} after expanding; token counts kept for ${counted()} rows`,
    );
    assert.deepStrictEqual(previewRows, fullRows, 'the preview shows the rows the full index shows');
    assert.strictEqual(previews.length, 1, 'a 100 MB session is previewed while it loads');
    // Warm: the index loaded; VS Code asks again after a refresh.
    await collapseAll();
    services.store.touch(model);
    await sleep(300);
    const warm = await expand('expand, index warm');
    assert.ok(warm.rows > 0);
  });

  it('renders the rows a second time without counting tokens again', async () => {
    const api = await arborApi();
    const { services } = api.internals;
    const session = services.tree.sessionNode(file);
    const page = await services.tree.getChildren(session);
    const index = services.store.get(file)!.index!;
    const counted = () => [...index.tokenCounts.values()].reduce((n, m) => n + m.size, 0);
    const render = () => {
      const t = performance.now();
      for (const n of page) services.tree.getTreeItem(n);
      return performance.now() - t;
    };
    const before = counted();
    const first = render();
    const mid = counted();
    const second = render();
    const after = counted();
    note(`render ${page.length} rows: ${ms(first)}, again ${ms(second)}; entries counted: ${before} -> ${mid} -> ${after}`);
    assert.ok(mid > 0, 'the rows were counted (the counts are kept in the index)');
    assert.strictEqual(after, mid, 'the second render counts no tokens');
  });

  it('while the preview is shown: the "more" row says the rest is being indexed, its rows act on the full index, Show More waits for it', async () => {
    const { services, model, session, rows, release } = await showFromPreview();
    let entries: EntryNode[];
    try {
      assert.strictEqual(rows[0].type, 'more');
      assert.match(String(services.tree.getTreeItem(rows[0]).description), /indexing the rest/);
      entries = rows.filter((n): n is EntryNode => n.type === 'entry');
    } finally {
      release();
    }
    const target = entries[entries.length - 5];
    assert.ok(target.index < model.preview.index.entryCount, 'a position in the preview');
    // A command on a preview row waits for the full index and writes against it.
    assert.strictEqual(await vscode.commands.executeCommand('arbor.setLabel', target, 'from-preview'), 'from-preview');
    const written = JSON.parse(fs.readFileSync(file, 'utf8').trimEnd().split('\n').pop()!) as {
      type: string;
      targetId: string;
      label: string;
    };
    assert.deepStrictEqual([written.type, written.targetId, written.label], ['label', target.entryId, 'from-preview']);
    // "Show earlier entries" clicked on the preview applies once the full index replaced it.
    services.tree.showMore(rows[0] as never);
    await waitFor(() => model.index !== undefined && model.preview === undefined, 'the full index replacing the preview', 60_000);
    const full = await waitFor(
      async () => {
        const r = await services.tree.getChildren(session);
        return r.filter((n) => n.type === 'entry').length >= 400 ? r : undefined;
      },
      'a page more after the full index loaded',
      30_000,
    );
    assert.strictEqual(full![0].type, 'more');
    assert.match(String(services.tree.getTreeItem(full![0]).description), /[\d,]+ not shown/);
    // The row shows the label; the node made from the preview still finds its entry.
    const row = services.tree.nodeForEntry(file, target.entryId)!;
    assert.match(labelText(services.tree.getTreeItem(row)), /^#from-preview · /);
    assert.strictEqual(services.tree.getTreeItem(target).label, services.tree.getTreeItem(row).label);
    assert.strictEqual(
      services.tree.getTreeItem(target).id,
      services.tree.getTreeItem(row).id,
      'the same row id from the preview and the full index',
    );
  });

  it('follows one appended entry: in the tree soon after the change event, reading only the new bytes', async () => {
    const api = await arborApi();
    const { services } = api.internals;
    const model = services.store.get(file)!;
    const session = services.tree.sessionNode(file);
    await vscode.commands.executeCommand('arbor.sessions.focus');
    await services.treeView.reveal(session, { expand: true, select: false, focus: false });
    const watcher = (api.internals as { liveWatcher?: { lastChangeEventAt(file: string): number | undefined } }).liveWatcher;
    const counter = new ReadCounter(file);
    let storeChanged = NaN;
    const sub = services.store.onDidChange((m) => {
      if (m?.file === file) storeChanged = performance.now();
    });
    const fromEvent: number[] = [];
    const fromWrite: number[] = [];
    const index0 = model.index;
    try {
      let leaf = lastLineId(file);
      for (let k = 1; k <= 6; k++) {
        await sleep(500); // VS Code coalesces tree refreshes that come within 200 ms
        spy!.clear();
        counter.reset();
        storeChanged = NaN;
        const id = `perf${String(k).padStart(4, '0')}`;
        const message = { role: 'user', content: [{ type: 'text', text: `Appended while watched, number ${k}` }], timestamp: Date.now() };
        const line = `${JSON.stringify({ type: 'message', id, parentId: leaf, timestamp: new Date().toISOString(), message })}\n`;
        const tWrite = performance.now();
        fs.appendFileSync(file, line);
        const shown = (await waitFor<ProviderCall | undefined>(
          () =>
            spy!.calls.find(
              (c) => c.method === 'getTreeItem' && c.node?.type === 'entry' && (c.node as EntryNode).entryId === id && c.node.file === file,
            ),
          `VS Code asking for the row of ${id}`,
          30_000,
        )) as ProviderCall;
        const childrenCall = spy!.calls.find(
          (c) => c.method === 'getChildren' && c.result?.some((n: ArborNode) => n.type === 'entry' && n.entryId === id),
        );
        const event = watcher?.lastChangeEventAt(file);
        const sinceEvent = event !== undefined ? shown.end - event : NaN;
        fromEvent.push(sinceEvent);
        fromWrite.push(shown.end - tWrite);
        await sleep(100);
        note(
          `append ${k}: ${Buffer.byteLength(line)} bytes written; change event +${event !== undefined ? ms(event - tWrite) : '?'} after the write; ` +
            (`row ready ${ms(sinceEvent)} after the event (${ms(shown.end - tWrite)} after the write): read and indexed ` +
              `+${ms(storeChanged - (event ?? tWrite))}, `) +
            (`VS Code asked for the rows +${childrenCall ? ms(childrenCall.start - storeChanged) : '?'}, rows made ` +
              `+${childrenCall ? ms(shown.end - childrenCall.start) : '?'}; `) +
            `read ${counter.bytes} bytes in ${counter.opens} open(s)`,
        );
        if (counter.bytes !== Buffer.byteLength(line)) {
          const text = fs.readFileSync(file, 'utf8');
          note(
            `unexpected read: the file ends with ${JSON.stringify(text.slice(-1200))}; index committed ` +
              `${model.index!.committedSize} of ${fs.statSync(file).size}; reads ${JSON.stringify(counter.reads)}`,
          );
        }
        assert.strictEqual(counter.bytes, Buffer.byteLength(line), `append ${k}: only the new bytes are read`);
        leaf = id;
      }
      assert.strictEqual(model.index, index0, 'the same index grew (no reload)');
    } finally {
      counter.dispose();
      sub.dispose();
    }
    note(
      `append -> row: median ${ms(median(fromEvent))} after the change event (target < ${TARGET_APPEND_MS} ms), median ` +
        `${ms(median(fromWrite))} after the write`,
    );
    assert.ok(!fromEvent.some(Number.isNaN), 'the live watcher reports when it saw the change');
  });

  it('pages a long line: the newest entries first; Show More and reveal bring older ones', async () => {
    const api = await arborApi();
    const { services } = api.internals;
    const model = services.store.get(file)!;
    const session = services.tree.sessionNode(file);
    const main = model.layout!.mainLine;
    let rows = await services.tree.getChildren(session);
    assert.strictEqual(rows[0].type, 'more', 'the first row stands for the earlier entries');
    const shown = rows.filter((n): n is EntryNode => n.type === 'entry');
    assert.strictEqual(shown[shown.length - 1].index, model.index!.leafIndex, 'down to the leaf');
    const more = await services.tree.getTreeItem(rows[0]);
    assert.strictEqual(more.label, 'Show 200 earlier entries');
    // The rows of the line are its entries the filter shows (Default hides bookkeeping entries).
    const lineRows = main.filter((i) => passesFilter(model.index!, i, services.tree.filter)).length;
    assert.strictEqual(more.description, `${(lineRows - shown.length).toLocaleString('en-US')} not shown`);
    await vscode.commands.executeCommand('arbor.showMore', rows[0]);
    rows = await services.tree.getChildren(session);
    assert.strictEqual(rows.filter((n) => n.type === 'entry').length, shown.length + 200);
    // Revealing an old entry (from the summary panel's list, say): a page around it, in the real tree view.
    const old = main[100];
    const t0 = performance.now();
    assert.ok(await services.revealEntry(file, model.index!.record(old).id, { select: true }), 'revealed');
    note(`reveal an entry 47,000 rows up: ${ms(performance.now() - t0)}`);
    rows = await services.tree.getChildren(session);
    assert.ok(
      rows.some((n) => n.type === 'entry' && n.index === old),
      'the old entry is in the page',
    );
    assert.ok(rows.length <= 202, `a page, not everything after it (${rows.length} rows)`);
    assert.deepStrictEqual(rows[rows.length - 1].type, 'more', 'a row for the later entries');
    assert.deepStrictEqual(
      services.treeView.selection.map((n) => (n as EntryNode).index),
      [old],
    );
  });
  it("a side branch row made from the preview: Jump Here lands on that branch's newest entry (found in the full index)", async () => {
    const { services, model, rows, release } = await showFromPreview();
    let branch: BranchNode | undefined;
    let expected: string;
    try {
      for (const row of rows) {
        if (row.type !== 'entry') continue;
        const kids = await services.tree.getChildren(row);
        branch = kids.find((k): k is BranchNode => k.type === 'branch');
        if (branch) break;
      }
      assert.ok(branch, 'a branch point among the newest rows (the generated session branches now and then)');
      const previewLayout = model.preview.layout;
      expected = model.preview.index.record(previewLayout.latestUnder(branch.start)).id;
    } finally {
      release();
    }
    await waitFor(() => model.index !== undefined && model.preview === undefined, 'the full index', 60_000);
    // The appends of an earlier test made the session "live" (Arbor would ask before writing): let that pass.
    await waitFor(() => !services.store.isLive(model), 'the live flag to run out', 30_000);
    const r = await vscode.commands.executeCommand<{ kind: string; newLeafId?: string }>('arbor.jumpHere', branch, { summarize: 'none' });
    assert.strictEqual(r?.kind, 'jumped');
    assert.strictEqual(r?.newLeafId, expected, "the side branch's newest entry, not the entry at the preview's position");
  });
});
