import * as vscode from 'vscode';
import type { SessionModel, SessionStore } from '../sessionStore';
import { readConfig } from '../settings';
import { log } from '../logging';
import type { ArborNode, BranchNode, EntryNode, MoreNode, SessionNode } from './nodes';
import { nodeKey } from './nodes';
import { branchItem, entryItem, entryTooltip, moreItem, noticeItem, sessionItem, type EntryItemContext } from './treeItems';
import type { EstimatorName } from '../../engine/tokens/estimators';
import type { LayoutNode } from './layout';
import { LinePages } from './pages';

/**
 * The Sessions view: sessions, then each session's active path flat, branch
 * points expandable into their side branches. Children are computed when a
 * node is expanded; a session file is loaded on first expand. A long line
 * shows its newest page of entries under a "Show earlier entries" row (VS
 * Code resolves every child it is given, so 50,000 rows would take seconds).
 */
export class SessionTreeProvider implements vscode.TreeDataProvider<ArborNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<ArborNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  /** One object per node key and session, so the same element is handed out while the session is unchanged. */
  private readonly nodes = new Map<string, Map<string, ArborNode>>();
  private readonly subscription: vscode.Disposable;
  private readonly pages = new LinePages();
  /** arbor.tokenEstimator, read once per redraw (reading settings for every row is slow). */
  private estimator: EstimatorName | undefined;

  constructor(private readonly store: SessionStore) {
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

  dispose(): void {
    this.subscription.dispose();
    this.emitter.dispose();
  }

  /** Redraws every row (e.g. after a settings change) without re-reading files. */
  redraw(): void {
    this.estimator = undefined;
    this.nodes.clear();
    this.emitter.fire(undefined);
  }

  private intern<T extends ArborNode>(node: T): T {
    let perFile = this.nodes.get(node.file);
    if (!perFile) this.nodes.set(node.file, (perFile = new Map()));
    const key = nodeKey(node);
    const existing = perFile.get(key);
    if (existing) return existing as T;
    perFile.set(key, node);
    return node;
  }

  sessionNode(file: string): SessionNode {
    return this.intern({ type: 'session', file });
  }

  entryNode(model: SessionModel, index: number): EntryNode {
    return this.intern({ type: 'entry', file: model.file, index, entryId: model.index!.record(index).id });
  }

  branchNode(model: SessionModel, start: number): BranchNode {
    return this.intern({ type: 'branch', file: model.file, start, startId: model.index!.record(start).id });
  }

  moreNode(file: string, line: number, direction: MoreNode['direction']): MoreNode {
    return this.intern({ type: 'more', file, line, direction });
  }

  private fromLayout(model: SessionModel, n: LayoutNode): ArborNode {
    return n.kind === 'entry' ? this.entryNode(model, n.index) : this.branchNode(model, n.start);
  }

  /** The entries of a line (-1: the main line) in the layout. */
  private lineEntries(model: SessionModel, line: number): readonly number[] {
    return line < 0 ? model.layout!.mainLine : model.layout!.lineFrom(line);
  }

  /** The node holding a line's rows: the session for the main line, else the branch node. */
  private lineOwner(model: SessionModel, line: number): ArborNode {
    return line < 0 ? this.sessionNode(model.file) : this.branchNode(model, line);
  }

  /** The window of a line: the "earlier entries" row (if any), the entries shown, the "later entries" row (if any). */
  private pageOf(model: SessionModel, line: number): ArborNode[] {
    const entries = this.lineEntries(model, line);
    const { hiddenBefore, hiddenAfter, shown } = this.pages.page(model.file, line, entries);
    const rows: ArborNode[] = hiddenBefore > 0 ? [this.moreNode(model.file, line, 'earlier')] : [];
    for (const i of shown) rows.push(this.entryNode(model, i));
    if (hiddenAfter > 0) rows.push(this.moreNode(model.file, line, 'later'));
    return rows;
  }

  /** "Show earlier/later entries": a page more on that side. */
  showMore(node: MoreNode): void {
    const model = this.store.get(node.file);
    if (!model?.layout) return;
    if (this.pages.showMore(node.file, node.line, this.lineEntries(model, node.line), node.direction)) this.emitter.fire(this.lineOwner(model, node.line));
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
    if (node.type === 'session') return sessionItem(model, this.store.isLive(model));
    if (node.type === 'more') {
      const page = model.layout ? this.pages.page(node.file, node.line, this.lineEntries(model, node.line)) : undefined;
      return moreItem(node, page ? (node.direction === 'earlier' ? page.hiddenBefore : page.hiddenAfter) : 0);
    }
    const ctx = this.itemContext(model);
    if (!ctx) return noticeItem({ type: 'notice', file: node.file, message: 'Loading…', severity: 'info' });
    return node.type === 'entry' ? entryItem(node, ctx) : branchItem(node, ctx);
  }

  private itemContext(model: SessionModel): EntryItemContext | undefined {
    if (!model.index || !model.layout) return undefined;
    this.estimator ??= readConfig().estimator;
    return { index: model.index, layout: model.layout, estimator: this.estimator };
  }

  /** On hover: the tooltip of an entry row. */
  resolveTreeItem(item: vscode.TreeItem, node: ArborNode): vscode.TreeItem {
    if (node.type !== 'entry' || item.tooltip !== undefined) return item;
    const model = this.store.get(node.file);
    const ctx = model && this.itemContext(model);
    if (ctx && node.index < ctx.index.entryCount) item.tooltip = entryTooltip(node, ctx);
    return item;
  }

  async getChildren(node?: ArborNode): Promise<ArborNode[]> {
    if (!node) {
      if (!this.store.isListed) await this.store.refreshList();
      return this.store.list().map((m) => this.sessionNode(m.file));
    }
    if (node.type === 'notice' || node.type === 'more') return [];
    const model = this.store.get(node.file);
    if (!model) return [];
    if (!model.index) {
      try {
        await this.store.ensureLoaded(model);
      } catch (err) {
        log().error(`cannot load ${model.file}:`, err instanceof Error ? err.message : String(err));
        return [{ type: 'notice', file: model.file, message: `Cannot load: ${model.error ?? String(err)}`, severity: 'error' }];
      }
    }
    const layout = model.layout!;
    switch (node.type) {
      case 'session': {
        if (model.index!.entryCount === 0) return [{ type: 'notice', file: model.file, message: 'No entries yet', severity: 'info' }];
        return [...this.pageOf(model, -1), ...layout.extraRoots.map((r) => this.branchNode(model, r))];
      }
      case 'entry':
        if (node.index >= model.index!.entryCount) return [];
        return layout.branchesAt(node.index).map((c) => this.branchNode(model, c));
      case 'branch':
        if (node.start >= model.index!.entryCount) return [];
        return this.pageOf(model, node.start);
    }
  }

  getParent(node: ArborNode): ArborNode | undefined {
    if (node.type === 'session') return undefined;
    if (node.type === 'notice') return this.sessionNode(node.file);
    const model = this.store.get(node.file);
    if (node.type === 'more') return model?.layout && node.line >= 0 ? this.branchNode(model, node.line) : this.sessionNode(node.file);
    if (!model?.layout) return this.sessionNode(node.file);
    const parent = model.layout.parentOf(node.type === 'entry' ? { kind: 'entry', index: node.index } : { kind: 'branch', start: node.start });
    return parent ? this.fromLayout(model, parent) : this.sessionNode(node.file);
  }

  /** The node of an entry by id (the session must be loaded). */
  nodeForEntry(file: string, entryId: string): EntryNode | undefined {
    const model = this.store.get(file);
    if (!model?.index) return undefined;
    const i = model.index.indexOf(entryId);
    return i < 0 ? undefined : this.entryNode(model, i);
  }

  /** The current leaf's node (the session must be loaded). */
  leafNode(file: string): EntryNode | undefined {
    const model = this.store.get(file);
    if (!model?.index || model.index.leafIndex < 0) return undefined;
    return this.entryNode(model, model.index.leafIndex);
  }
}
