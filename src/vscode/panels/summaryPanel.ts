import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';
import {
  PANEL_VIEW_TYPE,
  isSummaryView,
  type FileLink,
  type FromWebview,
  type PanelState,
  type RetentionView,
  type SummaryView,
} from '../../webview/protocol';
import { log } from '../platform/logging';
import { redact } from '../platform/redact';
import { WebviewHost } from './webviewHost';
import { SummaryAuthors } from './summaryAuthors';

/** What the panel does when the user presses Apply or Discard on a proposal. */
export interface ProposalHandlers {
  /** Writes the proposal (with the edited text, if any); returns the view of the written entry. */
  apply(summary: string | undefined): Promise<SummaryView | undefined>;
  discard(): void;
  /** The retention check of an edited text (issues 19 and 32). */
  recheck?(summary: string): RetentionView;
  /** The text with the missing facts that can be put back mechanically put back. */
  putBack?(summary: string): string;
  /** The context the proposal leaves with this text as its summary (tokens after, and saved, follow an edit). */
  tokensAfter?(summary: string): number;
}

export interface PanelActions {
  /** A file link of the shown view was clicked (only links the view lists get here). */
  openFile(link: FileLink, view: SummaryView): Promise<unknown>;
  reveal(file: string, entryId: string): Promise<void>;
  compactAgain(file: string): Promise<void>;
  /** Fresh view of an entry after a reload (the file may have changed). */
  refreshEntry(file: string, entryId: string): Promise<SummaryView | undefined>;
}

/**
 * The summary panel: the summary kind of the webview host. Shows summaries in
 * the file and compaction proposals for review. Only Apply writes, through
 * the handlers registered with the proposal. A WebviewPanelSerializer brings
 * it back after a window reload: the page's own state is redrawn at once,
 * then replaced by fresh data from the file; a proposal cannot survive a
 * reload and is shown as expired.
 */
export class SummaryPanel implements vscode.Disposable, vscode.WebviewPanelSerializer<PanelState> {
  private readonly host: WebviewHost<SummaryView>;
  private readonly proposals = new Map<string, ProposalHandlers>();
  /** Proposals whose Apply is writing now. */
  private readonly applying = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];
  /** Fires whenever the panel shows a view (used by tests and the API). */
  readonly onDidShow: vscode.Event<SummaryView>;

  private authors: SummaryAuthors | undefined;

  constructor(
    extensionUri: vscode.Uri,
    private readonly actions: PanelActions,
  ) {
    this.host = new WebviewHost<SummaryView>(extensionUri, {
      kind: 'summary',
      titleOf: (view) => this.titleFor(view),
      onMessage: (msg, view) => this.dispatch(msg, view),
    });
    this.onDidShow = this.host.onDidShow;
    this.disposables.push(this.host, vscode.window.registerWebviewPanelSerializer(PANEL_VIEW_TYPE, this));
  }

  /** Remembers the summarizers of the summaries Arbor writes in `memento` (VS Code's global state): summaryAuthors.ts. */
  rememberAuthorsIn(memento: vscode.Memento): void {
    this.authors = new SummaryAuthors(memento);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  get currentView(): SummaryView | undefined {
    return this.host.currentView;
  }

  get isOpen(): boolean {
    return this.host.isOpen;
  }

  /** Ids of proposals waiting for Apply or Discard. */
  pendingProposals(): string[] {
    return [...this.proposals.keys()];
  }

  newProposalId(): string {
    return randomBytes(6).toString('hex');
  }

  /** Shows a proposal for review; Apply/Discard call `handlers`. */
  showProposal(view: SummaryView, handlers: ProposalHandlers): void {
    if (!view.proposalId) throw new Error('a proposal view needs a proposalId');
    for (const [id, h] of this.proposals) if (id !== view.proposalId) h.discard();
    this.proposals.clear();
    this.proposals.set(view.proposalId, handlers);
    this.show(view);
  }

  /**
   * Shows a view (and returns it as shown); `reveal: false` updates an open panel in place without bringing it forward
   * or taking focus. A summary Arbor wrote is named by its summarizer, also when shown again (summaryAuthors.ts).
   */
  show(view: SummaryView, options: { reveal?: boolean; preserveFocus?: boolean } = {}): SummaryView {
    const shown = this.authors ? this.authors.follow(view) : view;
    this.host.show(shown, { reveal: options.reveal, preserveFocus: options.preserveFocus });
    return shown;
  }

  /** Apply from outside the webview (command / API / tests): same path as the button. */
  async apply(proposalId: string, summary?: string): Promise<SummaryView | undefined> {
    const handlers = this.proposals.get(proposalId);
    if (!handlers) throw new Error(`no pending proposal ${proposalId} (it was applied, discarded, or lost on reload)`);
    // One write at a time: a second Apply while the first is in flight (a busy Pi, a slow disk) writes nothing.
    if (this.applying.has(proposalId)) {
      log().info(`summary panel: Apply of ${proposalId} ignored, its write is in flight`);
      return undefined;
    }
    this.applying.add(proposalId);
    try {
      return await this.applyNow(proposalId, handlers, summary);
    } finally {
      this.applying.delete(proposalId);
    }
  }

  private async applyNow(proposalId: string, handlers: ProposalHandlers, summary: string | undefined): Promise<SummaryView | undefined> {
    const what =
      this.host.currentView?.kind === 'branch_summary' ? 'the branch summary and moving the leaf' : 'the compaction to the session';
    this.host.post({ type: 'busy', busy: true, message: `Writing ${what}…` });
    try {
      const written = await handlers.apply(summary);
      if (written === undefined) {
        this.host.post({ type: 'busy', busy: false });
        return undefined;
      }
      this.proposals.delete(proposalId);
      this.show(written);
      return written;
    } catch (err) {
      this.host.post({ type: 'error', message: redact(`Not written: ${err instanceof Error ? err.message : String(err)}`) });
      throw err;
    }
  }

  discard(proposalId: string): boolean {
    const handlers = this.proposals.get(proposalId);
    if (!handlers) return false;
    this.proposals.delete(proposalId);
    handlers.discard();
    this.host.close();
    return true;
  }

  /**
   * Puts the missing facts back into the proposal's text (or `summary`, the text being edited) and
   * opens the result in the panel's editor: an edit the user still applies. Returns the new text.
   */
  putBack(proposalId: string, summary?: string): string | undefined {
    const handlers = this.proposals.get(proposalId);
    const view = this.host.currentView;
    const base = summary ?? (view?.proposalId === proposalId ? view.markdown : undefined);
    if (!handlers?.putBack || !handlers.recheck || base === undefined) return undefined;
    const text = handlers.putBack(base);
    this.host.post({
      type: 'retention',
      proposalId,
      ...retentionMessage(handlers.recheck(text)),
      ...afterOf(handlers, text),
      summary: text,
    });
    return text;
  }

  private recheck(proposalId: string, summary: string): void {
    const handlers = this.proposals.get(proposalId);
    if (handlers?.recheck)
      this.host.post({ type: 'retention', proposalId, ...retentionMessage(handlers.recheck(summary)), ...afterOf(handlers, summary) });
  }

  /** Closes the panel (its view no longer belongs to the session the user acts on). Pending proposals stay pending. */
  close(): void {
    this.host.close();
  }

  private titleFor(view: SummaryView): string {
    const what = view.kind === 'compaction' ? 'Compaction' : 'Branch Summary';
    return view.mode === 'review' ? `Review ${what}` : `${what} ${view.entryId ?? ''}`.trim();
  }

  /**
   * A message from the page, as the page's own would arrive (validated by the
   * host: untrusted input). Public for Arbor's tests.
   */
  receive(raw: unknown): Promise<void> {
    return this.host.receive(raw);
  }

  /** A validated message: one about a file or a link only counts for the view the panel shows. */
  private async dispatch(msg: Exclude<FromWebview, { type: 'ready' }>, view: SummaryView | undefined): Promise<void> {
    if ((msg.type === 'reveal' || msg.type === 'compactAgain') && msg.file !== view?.file) {
      log().warn(`summary panel: ignored ${msg.type} for a session the panel does not show`);
      return;
    }
    switch (msg.type) {
      case 'apply':
        await this.apply(msg.proposalId, msg.summary);
        break;
      case 'discard':
        this.discard(msg.proposalId);
        break;
      case 'openFile': {
        const link = view ? [...view.readFiles, ...view.modifiedFiles].find((l) => l.resolved === msg.path) : undefined;
        if (!view || !link) {
          log().warn('summary panel: ignored a link that the shown summary does not list');
          break;
        }
        await this.actions.openFile(link, view);
        break;
      }
      case 'reveal':
        await this.actions.reveal(msg.file, msg.entryId);
        break;
      case 'putBack':
        this.putBack(msg.proposalId, msg.summary);
        break;
      case 'recheck':
        this.recheck(msg.proposalId, msg.summary);
        break;
      case 'compactAgain':
        this.host.close();
        await this.actions.compactAgain(msg.file);
        break;
    }
  }

  /** Restores the panel after a window reload. */
  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: PanelState | undefined): Promise<void> {
    this.host.adopt(panel);
    const view = state?.view;
    if (!view || !isSummaryView(view)) return;
    if (view.mode === 'review') {
      this.show({ ...view, mode: 'expired', proposalId: undefined });
      return;
    }
    this.host.remember(view);
    if (view.entryId) {
      try {
        const fresh = await this.actions.refreshEntry(view.file, view.entryId);
        if (fresh) this.show(fresh);
      } catch (err) {
        log().warn(`summary panel: could not refresh ${view.file} ${view.entryId}: ${String(err)}`);
      }
    }
  }
}

/** A retention view as the page's 'retention' message carries it. */
function retentionMessage(v: RetentionView): {
  items: RetentionView['items'];
  contradictions: RetentionView['contradictions'];
  cannotCheck?: string;
} {
  return { items: v.items, contradictions: v.contradictions, ...(v.cannotCheck ? { cannotCheck: v.cannotCheck } : {}) };
}

/** The tokens after of a text, when the proposal's handlers can tell. */
function afterOf(handlers: ProposalHandlers, summary: string): { tokensAfter?: number } {
  return handlers.tokensAfter ? { tokensAfter: handlers.tokensAfter(summary) } : {};
}
