// Over 400 lines: VS Code's TreeDataProvider is one object (children, items, parents, refresh events, reveal support);
// row text is in treeItems.ts, layout, filters and pages in engine/tree/.
import * as vscode from 'vscode';
import type { SessionModel, SessionStore } from '../sessions/sessionStore';
import { readConfig } from '../platform/settings';
import { log } from '../platform/logging';
import type { ArborNode, BranchNode, EntryNode, MoreNode, SessionNode } from './nodes';
import { nodeKey } from './nodes';
import {
  branchItem,
  entryItem,
  entryTooltip,
  moreItem,
  noticeItem,
  sessionItem,
  sessionsByActivity,
  type EntryItemContext,
} from './treeItems';
import { estimatorByName, type EstimatorName } from '../../engine/tokens/estimators';
import { compactionNumbersWalk } from '../../engine/context/contextNumbers';
import { runEntryWalk } from '../../engine/session/entryWalkLoads';
import { branchRowEntries, countBranchChanges } from './branchRows';
import type { LayoutNode } from '../../engine/tree/layout';
import { LinePages } from '../../engine/tree/pages';
import { adoptPreviewWork } from './adoptPreview';
import { RowRequests } from './rowRequests';
import type { EntryLease, SessionIndex } from '../../engine/session/sessionIndex';
import type { SessionLayout } from '../../engine/tree/layout';
import { contextBoundary } from '../../engine/tree/contextBoundary';
import { withCompactability, type CompactabilityNotes } from './compactability';
import {
  LineRows,
  emptyUnderFilterText,
  isTreeFilter,
  passesFilter,
  shownAncestor,
  shownLeaf,
  type TreeFilter,
} from '../../engine/tree/rowFilter';

const FILTER_KEY = 'arbor.treeFilter';

/**
 * What an entry row shows that can change while the session grows: whether
 * it is the leaf, on the active path, its side branches and its label (its
 * text and tokens never change; the estimator is fixed until a redraw).
 */
function rowStamp(data: TreeData & Pick<EntryItemContext, 'shownLeaf' | 'boundary'>, pos: number, id: string): string {
  const { layout, index, boundary } = data;
  const context = boundary
    ? `${boundary.isSummarized(pos) ? 's' : ''}${boundary.firstKept === pos ? 'f' : ''}${boundary.compaction === pos ? `c${boundary.replacedCount}` : ''}`
    : '';
  const leaf = pos === data.shownLeaf.index ? `L${data.shownLeaf.hidden}` : '';
  return `${context}${leaf}${layout.isOnActivePath(pos) ? 1 : 0}${layout.branchesAt(pos).length}:${index.children(pos).length}:${index.labelOf(id) ?? ''}`;
}

/** What rows are made from: a session's full index and layout, or a preview of its end while it loads. */
interface TreeData {
  index: SessionIndex;
  layout: SessionLayout;
  preview: boolean;
}

/**
 * The Sessions view: sessions, then each session's active path flat, branch
 * points expandable into their side branches. Children are computed when a
 * node is expanded; a session file is loaded on first expand. A long line
 * shows its newest page of entries under a "Show earlier entries" row (VS
 * Code resolves every child it is given, so 50,000 rows would take seconds).
 */
/** Tries of a page whose session reloads while its rows load (each try waits for a load, never for a time). */
const PAGE_LOAD_ATTEMPTS = 5;

export class SessionTreeProvider implements vscode.TreeDataProvider<ArborNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<ArborNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  /** One object per node key and session, so the same element is handed out while the session is unchanged. */
  private readonly nodes = new Map<string, Map<string, ArborNode>>();
  private readonly subscription: vscode.Disposable;
  private readonly pages = new LinePages();
  /** The entries of each line's latest page (file and line as key) and of each session's row, held while their rows may be rendered. */
  private readonly pageLeases = new Map<string, { index: SessionIndex; lease: EntryLease }>();
  /** Entry rows made, with what they depend on that can change (see rowStamp). */
  private rows = new WeakMap<EntryNode, { stamp: string; index: SessionIndex; item: vscode.TreeItem }>();
  /** Sessions shown from a preview, waiting for their full index. */
  private readonly replacing = new Set<string>();
  /** Who waits for VS Code to ask for a session's rows from its full index (see fullRowsShown). */
  private readonly fullRowsWaiters = new Map<string, Array<() => void>>();
  /** When VS Code was last answered a session's rows from its full index (performance.now()). */
  private readonly fullRowsAnsweredAt = new Map<string, number>();
  /** arbor.tokenEstimator, read once per redraw (reading settings for every row is slow). */
  private estimator: EstimatorName | undefined;
  private readonly lineRows = new LineRows();
  private readonly requests = new RowRequests();
  private currentFilter: TreeFilter;
  private readonly filterChanged = new vscode.EventEmitter<TreeFilter>();
  /** Fires when the filter changes (the view's title and context keys follow it). */
  readonly onDidChangeFilter = this.filterChanged.event;

  constructor(
    private readonly store: SessionStore,
    /** Where the filter is remembered (the workspace's state). */
    private readonly state?: vscode.Memento,
  ) {
    const saved = state?.get<string>(FILTER_KEY);
    this.currentFilter = isTreeFilter(saved) ? saved : 'default';
    this.subscription = store.onDidChange((model) => {
      if (model) {
        // Node objects are kept (their keys are stable); only rows are redrawn.
        this.emitter.fire(this.sessionNode(model.file));
      } else {
        this.nodes.clear();
        this.emitter.fire(undefined);
      }
    });
  }

  /** Each session row's "can compact / why not" (set once the services exist: see useCompactability). */
  private compactability: CompactabilityNotes | undefined;

  /** Session rows say whether Compact does something now, from these notes (their changes redraw the row). */
  useCompactability(notes: CompactabilityNotes): vscode.Disposable {
    this.compactability = notes;
    const sub = notes.onDidChange((file) => this.store.get(file) && this.emitter.fire(this.sessionNode(file)));
    return vscode.Disposable.from(sub, notes);
  }

  dispose(): void {
    for (const held of this.pageLeases.values()) held.lease.release();
    this.pageLeases.clear();
    this.subscription.dispose();
    this.emitter.dispose();
    this.filterChanged.dispose();
  }

  /** Which entries are rows (see rowFilter.ts); remembered per workspace. */
  get filter(): TreeFilter {
    return this.currentFilter;
  }

  async setFilter(filter: TreeFilter): Promise<void> {
    if (filter === this.currentFilter) return;
    this.currentFilter = filter;
    await this.state?.update(FILTER_KEY, filter);
    // Row positions in each line change: the pages start again from the newest entries.
    this.pages.forgetAll();
    this.lineRows.clear();
    this.redraw();
    this.filterChanged.fire(filter);
  }

  /** Redraws every row (e.g. after a settings change) without re-reading files. */
  redraw(): void {
    this.estimator = undefined;
    this.rows = new WeakMap();
    // Session nodes stay the same objects (VS Code knows elements by object: a reveal racing the refresh still finds them).
    for (const file of this.nodes.keys()) this.forgetRows(file);
    this.emitter.fire(undefined);
  }

  /**
   * The node already handed out for this key, unless `stale` says it was
   * made from another index (a preview, or an index since dropped): its
   * position would be wrong, so the new node takes its place.
   */
  private intern<T extends ArborNode>(node: T, stale?: (existing: T) => boolean): T {
    let perFile = this.nodes.get(node.file);
    if (!perFile) this.nodes.set(node.file, (perFile = new Map()));
    const key = nodeKey(node);
    const existing = perFile.get(key) as T | undefined;
    if (existing && !stale?.(existing)) return existing;
    perFile.set(key, node);
    return node;
  }

  sessionNode(file: string): SessionNode {
    return this.intern({ type: 'session', file });
  }

  /**
   * What the rows are made from: the session's index and layout, or, while a
   * large session is still being indexed, a preview of its end (see
   * SessionStore.loadForTree).
   */
  private data(model: SessionModel): TreeData | undefined {
    if (model.index && model.layout) return { index: model.index, layout: model.layout, preview: false };
    return model.preview ? { index: model.preview.index, layout: model.preview.layout, preview: true } : undefined;
  }

  entryNode(model: SessionModel, index: number): EntryNode {
    const rec = this.data(model)!.index.record(index);
    return this.intern({ type: 'entry', file: model.file, index, entryId: rec.id, offset: rec.start }, (old) => old.index !== index);
  }

  branchNode(model: SessionModel, start: number): BranchNode {
    const rec = this.data(model)!.index.record(start);
    return this.intern({ type: 'branch', file: model.file, start, startId: rec.id, offset: rec.start }, (old) => old.start !== start);
  }

  /**
   * The position of a node's entry in `data`: the node's own position when it
   * was made from the same index, else found by id (a row made from the
   * preview, asked about after the full index replaced it). -1 if gone.
   */
  private positionIn(data: TreeData, node: EntryNode | BranchNode): number {
    const [i, id] = node.type === 'entry' ? [node.index, node.entryId] : [node.start, node.startId];
    if (i < data.index.entryCount) {
      const rec = data.index.record(i);
      if (rec.id === id && rec.start === node.offset) return i;
    }
    return data.index.indexAtOffset(node.offset, id);
  }

  /** The line (-1: main) a "more" row stands for, in `data` (its start may have been a preview position). */
  private lineIn(data: TreeData, node: MoreNode): number {
    if (node.line < 0 || node.lineId === undefined || node.lineOffset === undefined) return node.line;
    return this.positionIn(data, { type: 'branch', file: node.file, start: node.line, startId: node.lineId, offset: node.lineOffset });
  }

  moreNode(model: SessionModel, line: number, direction: MoreNode['direction']): MoreNode {
    if (line < 0) return this.intern({ type: 'more', file: model.file, line, direction });
    const rec = this.data(model)!.index.record(line);
    return this.intern(
      { type: 'more', file: model.file, line, direction, lineId: rec.id, lineOffset: rec.start },
      (old) => old.line !== line,
    );
  }

  private fromLayout(model: SessionModel, n: LayoutNode): ArborNode {
    return n.kind === 'entry' ? this.entryNode(model, n.index) : this.branchNode(model, n.start);
  }

  /** The rows of a line (-1: the main line) under the filter: its entries that pass it, and those where branches start. */
  private lineEntries(model: SessionModel, line: number): readonly number[] {
    const { layout } = this.data(model)!;
    return this.lineRows.rows(layout, line, line < 0 ? layout.mainLine : layout.lineFrom(line), this.currentFilter);
  }

  /** The node holding a line's rows: the session for the main line, else the branch node. */
  private lineOwner(model: SessionModel, line: number): ArborNode {
    return line < 0 ? this.sessionNode(model.file) : this.branchNode(model, line);
  }

  /**
   * The window of a line: the "earlier entries" row (if any), the entries shown, the "later entries" row (if any).
   * The entries its rows show are loaded first (asynchronously: the extension host never waits on a read) and stay
   * loaded while the page is the line's latest (see pageLeases).
   */
  private async pageOf(model: SessionModel, line: number): Promise<ArborNode[]> {
    // Reloaded while the rows loaded (a label or a jump just written): the page of the new index, so that a reveal
    // in progress finds its row. A session rewritten on every try gives no rows; its change event asks again.
    for (let attempt = 0; attempt < PAGE_LOAD_ATTEMPTS; attempt++) {
      const data = this.data(model);
      if (!data) return [];
      const { index, layout } = data;
      const entries = this.lineEntries(model, line);
      const { hiddenBefore, hiddenAfter, shown } = this.pages.page(model.file, line, entries);
      // VS Code asks for every row next: load them in one pass over the file (neighbouring lines, one read).
      await this.hold(model.file, String(line), index, [
        ...shown,
        ...shown.flatMap((i) => layout.branchesAt(i).flatMap((b) => branchRowEntries(index, layout, b))),
      ]);
      // What rows read beyond their own entry: a compaction's before/after (its context, walked a batch at a time), a
      // branch row's changed files. Computed here, once, and kept for the rows.
      this.estimator ??= readConfig().estimator;
      const estimator = estimatorByName(this.estimator);
      for (const i of shown) {
        if (!passesFilter(index, i, this.currentFilter)) for (const b of layout.branchesAt(i)) await countBranchChanges(index, layout, b);
        else if (index.record(i).type === 'compaction') await runEntryWalk(index, compactionNumbersWalk(index, i, estimator));
      }
      if (this.data(model)?.index !== index) continue;
      const rows: ArborNode[] = hiddenBefore > 0 ? [this.moreNode(model, line, 'earlier')] : [];
      for (const i of shown) {
        if (passesFilter(index, i, this.currentFilter)) rows.push(this.entryNode(model, i));
        // Filtered out, but side branches start there: they are rows of the line.
        else for (const b of layout.branchesAt(i)) rows.push(this.branchNode(model, b));
      }
      if (hiddenAfter > 0) rows.push(this.moreNode(model, line, 'later'));
      return rows;
    }
    return [];
  }

  /** Branch rows starting at `starts`, with what they read loaded and held (see branchRows.ts) under `part`. */
  private async branchRows(model: SessionModel, data: TreeData, part: string, starts: readonly number[]): Promise<BranchNode[]> {
    const { index, layout } = data;
    for (const s of starts) await countBranchChanges(index, layout, s);
    await this.hold(
      model.file,
      part,
      index,
      starts.flatMap((s) => branchRowEntries(index, layout, s)),
    );
    return starts.map((s) => this.branchNode(model, s));
  }

  /**
   * Loads entries rows show and keeps them until the next load of the same part of the session (a line's page, its row)
   * replaces them: VS Code renders the rows after. Leases on an index the session no longer has (reloaded) are released.
   */
  private async hold(file: string, part: string, index: SessionIndex, indexes: readonly number[]): Promise<void> {
    const lease = await index.load(indexes);
    const key = `${file}\n${part}`;
    this.pageLeases.get(key)?.lease.release();
    this.pageLeases.set(key, { index, lease });
    for (const [k, held] of this.pageLeases) {
      if (held.index === index || !k.startsWith(`${file}\n`)) continue;
      held.lease.release();
      this.pageLeases.delete(k);
    }
  }

  /** "Show earlier/later entries": a page more on that side. */
  showMore(node: MoreNode): void {
    const model = this.store.get(node.file);
    if (!model) return;
    if (!model.layout) {
      // Still a preview: once the whole session is indexed (the pages start again from there).
      void this.store.ensureLoaded(model).then(
        () => this.showMore(node),
        () => undefined,
      );
      return;
    }
    const line = this.lineIn(this.data(model)!, node);
    if (node.line >= 0 && line < 0) return;
    if (this.pages.showMore(node.file, line, this.lineEntries(model, line), node.direction)) this.emitter.fire(this.lineOwner(model, line));
  }

  /**
   * Resolves to true once VS Code has the session's rows from its full index:
   * when it asks for them after loading, or after a preview gave way (revealing
   * a row before that races VS Code's refresh of the session and leaves the
   * preview's rows in the view). With `since` (a performance.now() time, e.g.
   * when the row was expanded) an answer before that time does not count, as
   * the rows VS Code is fetching for the expansion are not in the view yet.
   * Resolves to false when the full rows are not there within `timeoutMs`
   * (60 s; 1 s when the index is loaded already and only the answer is
   * awaited: VS Code may hold the rows and not ask), so a caller that reveals
   * leaves the view alone rather than move it much later.
   */
  fullRowsShown(file: string, options: { since?: number; timeoutMs?: number } = {}): Promise<boolean> {
    const model = this.store.get(file);
    if (!model) return Promise.resolve(false);
    const ready = () => !!model.index && !model.preview && !this.replacing.has(file);
    const answered = options.since === undefined || (this.fullRowsAnsweredAt.get(file) ?? -Infinity) >= options.since;
    if (ready() && answered) return Promise.resolve(true);
    const timeoutMs = options.timeoutMs ?? (ready() ? 1000 : 60_000);
    return new Promise<boolean>((resolve) => {
      const list = this.fullRowsWaiters.get(file) ?? [];
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        const waiting = this.fullRowsWaiters.get(file);
        const at = waiting?.indexOf(wake) ?? -1;
        if (waiting && at >= 0) waiting.splice(at, 1);
        resolve(ready());
      }, timeoutMs);
      list.push(wake);
      this.fullRowsWaiters.set(file, list);
    });
  }

  private wakeFullRowsWaiters(file: string): void {
    this.fullRowsAnsweredAt.set(file, performance.now());
    const list = this.fullRowsWaiters.get(file);
    if (!list) return;
    this.fullRowsWaiters.delete(file);
    // After VS Code got this answer (the waiters reveal rows of it).
    setTimeout(() => list.forEach((wake) => wake()), 0);
  }

  /** "Go to Start": the first page of the session's main line; returns its first row (to reveal). */
  async goToStart(file: string): Promise<ArborNode | undefined> {
    const model = this.store.get(file);
    if (!model) return undefined;
    await this.store.ensureLoaded(model);
    const rows = this.lineEntries(model, -1);
    this.pages.showStart(file, -1, rows);
    this.emitter.fire(this.sessionNode(file));
    return (await this.pageOf(model, -1))[0];
  }

  /** Shows every row of a line: the one a "more" row or a branch node stands for (the main line for a session). */
  async showWholeLine(node: ArborNode): Promise<boolean> {
    const model = this.store.get(node.file);
    if (!model) return false;
    await this.store.ensureLoaded(model);
    const data = this.data(model)!;
    let line = -1;
    if (node.type === 'more') line = this.lineIn(data, node);
    else if (node.type === 'branch') line = this.positionIn(data, node);
    if ((node.type === 'more' && node.line >= 0 && line < 0) || (node.type === 'branch' && line < 0)) return false;
    this.pages.showAll(node.file, line, this.lineEntries(model, line));
    this.emitter.fire(this.lineOwner(model, line));
    return true;
  }

  /** The number of rows hidden above the page of the session's main line (0: it shows from the start). */
  hiddenAtStart(file: string): number {
    const model = this.store.get(file);
    if (!model || !this.data(model)) return 0;
    return this.pages.page(file, -1, this.lineEntries(model, -1)).hiddenBefore;
  }

  /** Rows above the current leaf's row in the session's main line as shown (its page); 0 when the leaf is not on it. */
  rowsAboveLeaf(file: string): number {
    const model = this.store.get(file);
    const data = model && this.data(model);
    if (!model || !data) return 0;
    const page = this.pages.page(file, -1, this.lineEntries(model, -1));
    const at = page.shown.indexOf(shownLeaf(data.layout, this.currentFilter).index);
    return at < 0 ? 0 : at + (page.hiddenBefore > 0 ? 1 : 0);
  }

  /**
   * Makes sure an entry's row, and the rows of the branch points leading to
   * it, are in the pages shown (before revealing it). Returns whether a page
   * changed.
   */
  ensureShown(node: ArborNode): boolean {
    if (node.type !== 'entry') return false;
    const model = this.store.get(node.file);
    const layout = model?.layout;
    if (!model || !layout || node.index >= layout.index.entryCount) return false;
    let changed = false;
    for (const step of layout.ancestry(node.index)) {
      if (step.kind !== 'entry') continue;
      const start = layout.lineStart(step.index);
      const line = start === layout.mainLine[0] ? -1 : start;
      if (!this.pages.include(node.file, line, this.lineEntries(model, line), step.index)) continue;
      this.emitter.fire(this.lineOwner(model, line));
      changed = true;
    }
    return changed;
  }

  getTreeItem(node: ArborNode): vscode.TreeItem {
    if (node.type === 'notice') return noticeItem(node);
    const model = this.store.get(node.file);
    if (!model) return noticeItem({ type: 'notice', file: node.file, message: 'Session no longer listed', severity: 'info' });
    if (node.type === 'session')
      return withCompactability(
        sessionItem(model, this.store.isLive(model), Date.now(), this.store.titles().get(model.file), this.store.piStateOf(model.file)),
        this.compactability?.of(model),
      );
    const data = this.data(model);
    if (node.type === 'more') {
      const line = data ? this.lineIn(data, node) : -1;
      if (!data || (node.line >= 0 && line < 0)) return moreItem(node, 0);
      const page = this.pages.page(node.file, line, this.lineEntries(model, line));
      // A preview does not know how many entries come before it: say so rather than show a wrong count.
      return moreItem(
        node,
        node.direction === 'earlier' ? page.hiddenBefore : page.hiddenAfter,
        data.preview && node.direction === 'earlier',
      );
    }
    const ctx = this.itemContext(data);
    if (!ctx) return noticeItem({ type: 'notice', file: node.file, message: 'Loading…', severity: 'info' });
    const pos = this.positionIn(ctx, node);
    if (pos < 0) {
      const gone = noticeItem({ type: 'notice', file: node.file, message: 'No longer in the session', severity: 'info' });
      gone.id = nodeKey(node);
      return gone;
    }
    if (node.type === 'entry') {
      // VS Code asks for every row of a session again when one entry is appended: reuse the rows that did not change.
      const stamp = rowStamp(ctx, pos, node.entryId);
      const cached = this.rows.get(node);
      if (cached?.stamp === stamp && cached.index === ctx.index) return cached.item;
      const item = entryItem(pos === node.index ? node : { ...node, index: pos }, ctx);
      this.rows.set(node, { stamp, index: ctx.index, item });
      return item;
    }
    return branchItem(pos === node.start ? node : { ...node, start: pos }, ctx);
  }

  private itemContext(data: TreeData | undefined): (EntryItemContext & TreeData) | undefined {
    if (!data) return undefined;
    this.estimator ??= readConfig().estimator;
    return {
      ...data,
      estimator: this.estimator,
      filter: this.currentFilter,
      shownLeaf: shownLeaf(data.layout, this.currentFilter),
      boundary: contextBoundary(data.layout),
    };
  }

  /** On hover: the tooltip of an entry row. */
  resolveTreeItem(item: vscode.TreeItem, node: ArborNode): vscode.TreeItem {
    if (node.type !== 'entry' || item.tooltip !== undefined) return item;
    const model = this.store.get(node.file);
    const ctx = model && this.itemContext(this.data(model));
    const pos = ctx ? this.positionIn(ctx, node) : -1;
    if (ctx && pos >= 0) item.tooltip = entryTooltip({ ...node, index: pos }, ctx);
    return item;
  }

  getChildren(node?: ArborNode): Promise<ArborNode[]> {
    return this.requests.track(this.children(node));
  }

  /** Resolves once VS Code has the answers to every request for rows it made (see RowRequests): then a reveal can select. */
  rowsSettled(timeoutMs?: number): Promise<boolean> {
    return this.requests.idle(timeoutMs);
  }

  private async children(node?: ArborNode): Promise<ArborNode[]> {
    if (!node) {
      if (!this.store.isListed) await this.store.refreshList();
      // Each loaded session's last entry (its time orders the list and shows on its row), loaded first and held.
      await Promise.all(
        this.store
          .list()
          .map((m) =>
            m.index && m.index.entryCount > 0
              ? this.hold(m.file, 'last', m.index, [m.index.entryCount - 1]).catch((err) =>
                  log().debug(`last entry of ${m.file}: ${String(err)}`),
                )
              : undefined,
          ),
      );
      // Most recently active first (the file order of the list is not what users look for).
      return sessionsByActivity(this.store.list()).map((m) => this.sessionNode(m.file));
    }
    if (node.type === 'notice' || node.type === 'more') return [];
    const model = this.store.get(node.file);
    if (!model) return [];
    if (!model.index) {
      try {
        if ((await this.store.loadForTree(model)) === 'preview') this.replacePreviewWhenLoaded(model);
      } catch (err) {
        log().error(`cannot load ${model.file}:`, err instanceof Error ? err.message : String(err));
        return [{ type: 'notice', file: model.file, message: `Cannot load: ${model.error ?? String(err)}`, severity: 'error' }];
      }
    }
    const data = this.data(model);
    if (!data) return [];
    switch (node.type) {
      case 'session': {
        if (data.index.entryCount === 0) return [{ type: 'notice', file: model.file, message: 'No entries yet', severity: 'info' }];
        // A preview's roots other than its main line are mostly lines cut where the preview starts: not shown.
        const extra = data.preview ? [] : await this.branchRows(model, data, 'roots', data.layout.extraRoots);
        const rows = [...(await this.pageOf(model, -1)), ...extra];
        // A filter that hides every entry (Labeled Only in a session without labels) says so rather than expand to nothing.
        if (rows.length === 0 && !data.preview)
          return [{ type: 'notice', file: model.file, message: emptyUnderFilterText(this.currentFilter), severity: 'info' }];
        // Once the rows are the answer: a waiter reveals one of them, and a reveal racing the answer selects nothing.
        if (!data.preview && this.data(model)?.index === data.index) this.wakeFullRowsWaiters(model.file);
        return rows;
      }
      case 'entry': {
        const pos = this.positionIn(data, node);
        if (pos < 0 || !passesFilter(data.index, pos, this.currentFilter)) return [];
        return this.branchRows(model, data, `branches ${pos}`, data.layout.branchesAt(pos));
      }
      case 'branch': {
        const pos = this.positionIn(data, node);
        return pos < 0 ? [] : await this.pageOf(model, pos);
      }
    }
  }

  /** Once the whole session is indexed, the rows made from its preview give way to rows of the full index. */
  private replacePreviewWhenLoaded(model: SessionModel): void {
    if (this.replacing.has(model.file)) return;
    this.replacing.add(model.file);
    const replace = () => {
      this.replacing.delete(model.file);
      const preview = model.preview;
      model.preview = undefined;
      try {
        if (preview && model.index) adoptPreviewWork(preview.index, model.index);
      } catch (err) {
        log().warn(`carrying the preview of ${model.file} over failed: ${String(err)}`);
      }
      this.pages.forget(model.file);
      this.forgetRows(model.file);
      // On a failed load, model.error is set: the next getChildren shows it (and previews no more).
      this.emitter.fire(this.sessionNode(model.file));
    };
    this.store.ensureLoaded(model).then(replace, replace);
  }

  /** Drops the row nodes of a session (not the session node, which VS Code knows by object). */
  private forgetRows(file: string): void {
    const perFile = this.nodes.get(file);
    if (!perFile) return;
    for (const [key, node] of perFile) if (node.type !== 'session') perFile.delete(key);
  }

  getParent(node: ArborNode): ArborNode | undefined {
    if (node.type === 'session') return undefined;
    if (node.type === 'notice') return this.sessionNode(node.file);
    const model = this.store.get(node.file);
    const data = model && this.data(model);
    if (node.type === 'more') {
      const line = model && data && node.line >= 0 ? this.lineIn(data, node) : -1;
      return model && line >= 0 ? this.branchNode(model, line) : this.sessionNode(node.file);
    }
    if (!model || !data) return this.sessionNode(node.file);
    const pos = this.positionIn(data, node);
    if (pos < 0) return this.sessionNode(node.file);
    const parent = data.layout.parentOf(node.type === 'entry' ? { kind: 'entry', index: pos } : { kind: 'branch', start: pos });
    // A branch starting at a filtered-out entry is a row of that entry's line.
    if (parent?.kind === 'entry' && !passesFilter(data.index, parent.index, this.currentFilter)) {
      const start = data.layout.lineStart(parent.index);
      return start === data.layout.mainLine[0] ? this.sessionNode(node.file) : this.branchNode(model, start);
    }
    return parent ? this.fromLayout(model, parent) : this.sessionNode(node.file);
  }

  /**
   * The row showing an entry (the session must be loaded): the entry's own,
   * or when the filter hides it, the row of its nearest ancestor that passes.
   */
  nodeForEntry(file: string, entryId: string): EntryNode | undefined {
    const model = this.store.get(file);
    if (!model?.index) return undefined;
    const i = model.index.indexOf(entryId);
    const shown = i < 0 ? -1 : shownAncestor(model.index, i, this.currentFilter);
    return shown < 0 ? undefined : this.entryNode(model, shown);
  }

  /** The row the user sees as current (the session must be loaded): the leaf, or its nearest ancestor that is a row. */
  leafNode(file: string): EntryNode | undefined {
    const model = this.store.get(file);
    if (!model?.index || !model.layout || model.index.leafIndex < 0) return undefined;
    const shown = shownLeaf(model.layout, this.currentFilter).index;
    return shown < 0 ? undefined : this.entryNode(model, shown);
  }
}
