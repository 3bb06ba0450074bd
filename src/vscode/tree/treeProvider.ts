import * as vscode from 'vscode';
import type { SessionModel, SessionStore } from '../sessionStore';
import { readConfig } from '../settings';
import { log } from '../logging';
import type { ArborNode, BranchNode, EntryNode, SessionNode } from './nodes';
import { nodeKey } from './nodes';
import { branchItem, entryItem, noticeItem, sessionItem } from './treeItems';
import type { LayoutNode } from './layout';

/**
 * The Sessions view: sessions, then each session's active path flat, branch
 * points expandable into their side branches. Children are computed when a
 * node is expanded; a session file is loaded on first expand.
 */
export class SessionTreeProvider implements vscode.TreeDataProvider<ArborNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<ArborNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  /** One object per node key and session, so the same element is handed out while the session is unchanged. */
  private readonly nodes = new Map<string, Map<string, ArborNode>>();
  private readonly subscription: vscode.Disposable;

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

  private fromLayout(model: SessionModel, n: LayoutNode): ArborNode {
    return n.kind === 'entry' ? this.entryNode(model, n.index) : this.branchNode(model, n.start);
  }

  getTreeItem(node: ArborNode): vscode.TreeItem {
    if (node.type === 'notice') return noticeItem(node);
    const model = this.store.get(node.file);
    if (!model) return noticeItem({ type: 'notice', file: node.file, message: 'Session no longer listed', severity: 'info' });
    if (node.type === 'session') return sessionItem(model, this.store.isLive(model));
    if (!model.index || !model.layout) return noticeItem({ type: 'notice', file: node.file, message: 'Loading…', severity: 'info' });
    const ctx = { index: model.index, layout: model.layout, estimator: readConfig().estimator };
    return node.type === 'entry' ? entryItem(node, ctx) : branchItem(node, ctx);
  }

  async getChildren(node?: ArborNode): Promise<ArborNode[]> {
    if (!node) {
      if (!this.store.isListed) await this.store.refreshList();
      return this.store.list().map((m) => this.sessionNode(m.file));
    }
    if (node.type === 'notice') return [];
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
        return [...layout.mainLine.map((i) => this.entryNode(model, i)), ...layout.extraRoots.map((r) => this.branchNode(model, r))];
      }
      case 'entry':
        if (node.index >= model.index!.entryCount) return [];
        return layout.branchesAt(node.index).map((c) => this.branchNode(model, c));
      case 'branch':
        if (node.start >= model.index!.entryCount) return [];
        return layout.lineFrom(node.start).map((i) => this.entryNode(model, i));
    }
  }

  getParent(node: ArborNode): ArborNode | undefined {
    if (node.type === 'session') return undefined;
    if (node.type === 'notice') return this.sessionNode(node.file);
    const model = this.store.get(node.file);
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
