import * as vscode from 'vscode';
import type { ArborServices } from '../services';
import type { SessionIndex } from '../../engine/session/sessionIndex';
import { latestSummaryOnPath } from '../../engine/tree/latestSummary';
import { viewFromEntry } from './summaryView';
import { readConfig } from '../platform/settings';

/**
 * Keeps the summary panel on the session the user acts on: when another
 * session becomes the active one (selected, compacted, jumped in), an open
 * panel showing a written summary switches to that session's newest summary
 * on its active path (or closes when it has none); when a jump moves a
 * session's leaf off the branch of the summary shown, the same. A proposal
 * under review is never replaced. The panel is updated in place (no focus).
 */
export class PanelFollower implements vscode.Disposable {
  private readonly subs: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The leaf of the shown view's session at the last check: a summary stays while it was and is on the path. */
  private lastLeaf: { file: string; leafIndex: number } | undefined;
  private activeChanged = false;

  constructor(private readonly arbor: ArborServices) {
    this.subs.push(
      arbor.onDidChangeActive(() => {
        this.activeChanged = true;
        this.schedule();
      }),
      arbor.store.onDidChange((m) => {
        if (m && m.file === arbor.panel.currentView?.file) this.schedule();
      }),
      arbor.panel.onDidShow((view) => {
        const index = arbor.store.get(view.file)?.index;
        this.lastLeaf = index ? { file: view.file, leafIndex: index.leafIndex } : undefined;
      }),
    );
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const s of this.subs) s.dispose();
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.sync();
    }, 50);
  }

  /** Brings the panel in line with the active session now. */
  async sync(): Promise<void> {
    const { panel, store } = this.arbor;
    const view = panel.currentView;
    const activeChanged = this.activeChanged;
    this.activeChanged = false;
    if (!panel.isOpen || !view || view.mode === 'review' || panel.pendingProposals().length) return;
    if (view.kind !== 'compaction' && view.kind !== 'branch_summary') return;
    const active = this.arbor.activeFile;
    const model = active ? store.get(active) : undefined;
    if (!model) return;
    const index = model.index ?? (await store.ensureLoaded(model));
    if (view.file === model.file) {
      // Same session: only a leaf that left the summary's branch changes what is shown.
      const before = this.lastLeaf?.file === model.file ? this.lastLeaf.leafIndex : index.leafIndex;
      this.lastLeaf = { file: model.file, leafIndex: index.leafIndex };
      if (!view.entryId || !onPath(index, before, view.entryId) || onPath(index, index.leafIndex, view.entryId)) return;
    } else if (!activeChanged && view.file !== model.file) {
      return;
    }
    const latest = latestSummaryOnPath(index);
    if (latest < 0) {
      panel.close();
      return;
    }
    const id = index.record(latest).id;
    if (view.file === model.file && view.entryId === id) return;
    panel.show(await viewFromEntry(index, id, model.title ?? model.file, readConfig().estimator), { reveal: false });
  }
}

function onPath(index: SessionIndex, leafIndex: number, entryId: string): boolean {
  const i = index.indexOf(entryId);
  return i >= 0 && leafIndex >= 0 && index.pathTo(leafIndex).includes(i);
}
