import * as vscode from 'vscode';
import { webviewPage } from './webviewPage';
import { randomBytes } from 'node:crypto';
import {
  PANEL_VIEW_TYPE,
  parseFromWebview,
  type FileLink,
  type FromWebview,
  type PanelState,
  type RetentionItem,
  type SummaryView,
  type ToWebview,
} from '../../webview/protocol';
import { log } from '../platform/logging';
import { redact } from '../platform/redact';

/** What the panel does when the user presses Apply or Discard on a proposal. */
export interface ProposalHandlers {
  /** Writes the proposal (with the edited text, if any); returns the view of the written entry. */
  apply(summary: string | undefined): Promise<SummaryView | undefined>;
  discard(): void;
  /** The retention check of an edited text (issue 19). */
  recheck?(summary: string): RetentionItem[];
  /** The text with the missing facts that can be put back mechanically put back. */
  putBack?(summary: string): string;
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
 * The one summary panel (a webview). Shows summaries in the file and
 * compaction proposals for review. Only Apply writes, through the handlers
 * registered with the proposal. A WebviewPanelSerializer brings it back after
 * a window reload: the webview's own state is redrawn at once, then replaced
 * by fresh data from the file; a proposal cannot survive a reload and is
 * shown as expired.
 */
export class SummaryPanel implements vscode.Disposable, vscode.WebviewPanelSerializer<PanelState> {
  private panel: vscode.WebviewPanel | undefined;
  private view: SummaryView | undefined;
  private ready = false;
  private queued: ToWebview[] = [];
  private readonly proposals = new Map<string, ProposalHandlers>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly shown = new vscode.EventEmitter<SummaryView>();
  /** Fires whenever the panel shows a view (used by tests and the API). */
  readonly onDidShow = this.shown.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly actions: PanelActions,
  ) {
    this.disposables.push(vscode.window.registerWebviewPanelSerializer(PANEL_VIEW_TYPE, this));
  }

  dispose(): void {
    this.panel?.dispose();
    for (const d of this.disposables) d.dispose();
    this.shown.dispose();
  }

  get currentView(): SummaryView | undefined {
    return this.view;
  }

  get isOpen(): boolean {
    return !!this.panel;
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

  /** Shows a view; `reveal: false` updates an open panel in place without bringing it forward or taking focus. */
  show(view: SummaryView, options: { reveal?: boolean } = {}): void {
    this.view = view;
    const panel = this.ensurePanel();
    panel.title = this.titleFor(view);
    if (options.reveal !== false) panel.reveal(panel.viewColumn ?? vscode.ViewColumn.Active, false);
    this.post({ type: 'show', view });
    this.shown.fire(view);
  }

  /** Apply from outside the webview (command / API / tests): same path as the button. */
  async apply(proposalId: string, summary?: string): Promise<SummaryView | undefined> {
    const handlers = this.proposals.get(proposalId);
    if (!handlers) throw new Error(`no pending proposal ${proposalId} (it was applied, discarded, or lost on reload)`);
    this.post({ type: 'busy', busy: true, message: 'Writing the compaction to the session…' });
    try {
      const written = await handlers.apply(summary);
      if (written === undefined) {
        this.post({ type: 'busy', busy: false });
        return undefined;
      }
      this.proposals.delete(proposalId);
      this.show(written);
      return written;
    } catch (err) {
      this.post({ type: 'error', message: redact(`Not written: ${err instanceof Error ? err.message : String(err)}`) });
      throw err;
    }
  }

  discard(proposalId: string): boolean {
    const handlers = this.proposals.get(proposalId);
    if (!handlers) return false;
    this.proposals.delete(proposalId);
    handlers.discard();
    this.view = undefined;
    this.panel?.dispose();
    return true;
  }

  /**
   * Puts the missing facts back into the proposal's text (or `summary`, the text being edited) and
   * opens the result in the panel's editor: an edit the user still applies. Returns the new text.
   */
  putBack(proposalId: string, summary?: string): string | undefined {
    const handlers = this.proposals.get(proposalId);
    const base = summary ?? (this.view?.proposalId === proposalId ? this.view.markdown : undefined);
    if (!handlers?.putBack || !handlers.recheck || base === undefined) return undefined;
    const text = handlers.putBack(base);
    this.post({ type: 'retention', proposalId, items: handlers.recheck(text), summary: text });
    return text;
  }

  private recheck(proposalId: string, summary: string): void {
    const handlers = this.proposals.get(proposalId);
    if (handlers?.recheck) this.post({ type: 'retention', proposalId, items: handlers.recheck(summary) });
  }

  /** Closes the panel (its view no longer belongs to the session the user acts on). Pending proposals stay pending. */
  close(): void {
    this.view = undefined;
    this.panel?.dispose();
  }

  private titleFor(view: SummaryView): string {
    const what = view.kind === 'compaction' ? 'Compaction' : 'Branch Summary';
    return view.mode === 'review' ? `Review ${what}` : `${what} ${view.entryId ?? ''}`.trim();
  }

  private ensurePanel(): vscode.WebviewPanel {
    if (this.panel) return this.panel;
    const panel = vscode.window.createWebviewPanel(PANEL_VIEW_TYPE, 'Arbor Summary', vscode.ViewColumn.Active, this.webviewOptions());
    this.adopt(panel);
    return panel;
  }

  private webviewOptions(): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return {
      enableScripts: true,
      enableCommandUris: false,
      retainContextWhenHidden: false,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist'), vscode.Uri.joinPath(this.extensionUri, 'media')],
    };
  }

  private adopt(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    this.ready = false;
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'arbor.svg');
    panel.webview.options = this.webviewOptions();
    panel.webview.html = this.html(panel.webview);
    const subs: vscode.Disposable[] = [];
    subs.push(panel.webview.onDidReceiveMessage((raw) => void this.receive(raw)));
    subs.push(
      panel.onDidChangeViewState(() => {
        // A hidden webview is destroyed (retainContextWhenHidden is off); it re-sends 'ready' when shown again.
        if (!panel.visible) this.ready = false;
      }),
    );
    subs.push(
      panel.onDidDispose(() => {
        for (const s of subs) s.dispose();
        if (this.panel === panel) {
          this.panel = undefined;
          this.ready = false;
          this.queued = [];
        }
      }),
    );
  }

  private post(message: ToWebview): void {
    if (!this.panel) return;
    if (!this.ready) {
      // Only the latest 'show' matters for a webview that is (re)loading.
      if (message.type === 'show') this.queued = this.queued.filter((m) => m.type !== 'show');
      this.queued.push(message);
      return;
    }
    void this.panel.webview.postMessage(message);
  }

  /**
   * A message from the webview. It is untrusted (the page shows text from
   * session files): it is validated, and a message about a file or a link
   * only counts for the view the panel shows. Public for Arbor's tests.
   */
  async receive(raw: unknown): Promise<void> {
    const msg: FromWebview | undefined = parseFromWebview(raw);
    if (!msg) {
      log().warn('summary panel: ignored a malformed message');
      return;
    }
    const view = this.view;
    if ((msg.type === 'reveal' || msg.type === 'compactAgain') && msg.file !== view?.file) {
      log().warn(`summary panel: ignored ${msg.type} for a session the panel does not show`);
      return;
    }
    try {
      switch (msg.type) {
        case 'ready': {
          this.ready = true;
          const queued = this.queued;
          this.queued = [];
          if (this.view && !queued.some((m) => m.type === 'show')) queued.unshift({ type: 'show', view: this.view });
          for (const m of queued) void this.panel?.webview.postMessage(m);
          break;
        }
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
          this.panel?.dispose();
          await this.actions.compactAgain(msg.file);
          break;
      }
    } catch (err) {
      log().error(`summary panel: ${msg.type} failed:`, err instanceof Error ? (err.stack ?? err.message) : String(err));
    }
  }

  /** Restores the panel after a window reload. */
  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: PanelState | undefined): Promise<void> {
    if (this.panel && this.panel !== panel) this.panel.dispose();
    this.adopt(panel);
    const view = state?.view;
    if (!view) return;
    if (view.mode === 'review') {
      this.show({ ...view, mode: 'expired', proposalId: undefined });
      return;
    }
    this.view = view;
    if (view.entryId) {
      try {
        const fresh = await this.actions.refreshEntry(view.file, view.entryId);
        if (fresh) this.show(fresh);
      } catch (err) {
        log().warn(`summary panel: could not refresh ${view.file} ${view.entryId}: ${String(err)}`);
      }
    }
  }

  private html(webview: vscode.Webview): string {
    return webviewPage({
      webview,
      extensionUri: this.extensionUri,
      script: 'dist/webview.js',
      styles: ['media/summary.css'],
      title: 'Arbor Summary',
    });
  }
}
