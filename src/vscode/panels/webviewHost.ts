import * as vscode from 'vscode';
import { webviewPage } from './webviewPage';
import {
  PANEL_VIEW_TYPES,
  parseFromWebview,
  type FromWebview,
  type PanelKind,
  type PanelView,
  type ToWebview,
} from '../../webview/protocol';
import { log } from '../platform/logging';

/** Style sheets of each kind of panel, in order (relative to the extension). */
const PANEL_STYLES: Readonly<Record<PanelKind, readonly string[]>> = {
  summary: ['media/summary.css'],
  entry: ['media/summary.css', 'media/views.css'],
  context: ['media/summary.css', 'media/views.css'],
};

/** The page's title before the first view (the panel's title follows each view). */
const PAGE_TITLES: Readonly<Record<PanelKind, string>> = { summary: 'Arbor Summary', entry: 'Arbor', context: 'Arbor' };

/** What one kind of panel adds to the host. */
export interface PanelKindOptions<V extends PanelView> {
  kind: PanelKind;
  /** The panel's title for a view. */
  titleOf(view: V): string;
  /** A validated message of this kind (not 'ready', which the host answers); `view` is what the panel shows. */
  onMessage(message: Exclude<FromWebview, { type: 'ready' }>, view: V | undefined): Promise<unknown>;
  /** A failed message is shown on the page as a notice (else only logged: the kind reports its own failures). */
  noticeOnFailure?: boolean;
}

export interface ShowOptions {
  /** false: update an open (or new) panel where it is, without bringing it forward. Default true. */
  reveal?: boolean;
  /** Reveal without taking focus. Default false. */
  preserveFocus?: boolean;
}

/**
 * The one host of Arbor's webview panels: the panel's life (create, adopt
 * after a reload, hide, dispose), its page (dist/webview.js under the CSP of
 * webviewPage, the kind's styles), and its messages: what it sends waits
 * until the page says it is ready, what the page sends is validated by the
 * protocol's one validator (and only a message of this kind counts) before
 * the kind's `onMessage` sees it. The summary panel, the entry panel and the
 * context view are kinds of it.
 */
export class WebviewHost<V extends PanelView> implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private view: V | undefined;
  private ready = false;
  private queued: ToWebview[] = [];
  private readonly shown = new vscode.EventEmitter<V>();
  /** Fires whenever the panel shows a view. */
  readonly onDidShow = this.shown.event;
  readonly viewType: string;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly options: PanelKindOptions<V>,
  ) {
    this.viewType = PANEL_VIEW_TYPES[options.kind];
  }

  dispose(): void {
    this.panel?.dispose();
    this.shown.dispose();
  }

  get currentView(): V | undefined {
    return this.view;
  }

  get isOpen(): boolean {
    return !!this.panel;
  }

  /** Shows a view, opening the panel if needed. */
  show(view: V, options: ShowOptions = {}): void {
    this.view = view;
    const panel = this.ensurePanel();
    panel.title = this.options.titleOf(view);
    if (options.reveal !== false) panel.reveal(panel.viewColumn ?? vscode.ViewColumn.Active, options.preserveFocus ?? false);
    this.post({ type: 'show', view });
    this.shown.fire(view);
  }

  /** Redraws the open panel with `view` where it is: not revealed, no focus taken. Nothing when closed. */
  update(view: V): void {
    if (this.panel) this.show(view, { reveal: false });
  }

  /** Remembers `view` as the one shown without sending it (a restored page already draws its saved state). */
  remember(view: V | undefined): void {
    this.view = view;
  }

  /** Closes the panel; its view is forgotten. */
  close(): void {
    this.view = undefined;
    this.panel?.dispose();
  }

  /** Sends a message; until the page is ready it waits (only the latest 'show' matters for a page that is loading). */
  post(message: ToWebview): void {
    if (!this.panel) return;
    if (!this.ready) {
      if (message.type === 'show') this.queued = this.queued.filter((m) => m.type !== 'show');
      this.queued.push(message);
      return;
    }
    void this.panel.webview.postMessage(message);
  }

  /** Takes over a panel VS Code restored after a window reload (the kind's serializer calls this). */
  adopt(panel: vscode.WebviewPanel): void {
    if (this.panel && this.panel !== panel) this.panel.dispose();
    this.panel = panel;
    this.ready = false;
    this.queued = [];
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'arbor.svg');
    panel.webview.options = this.webviewOptions();
    panel.webview.html = webviewPage({
      webview: panel.webview,
      extensionUri: this.extensionUri,
      script: 'dist/webview.js',
      styles: PANEL_STYLES[this.options.kind],
      title: PAGE_TITLES[this.options.kind],
      kind: this.options.kind,
    });
    const subs = [
      panel.webview.onDidReceiveMessage((raw) => void this.receive(raw)),
      // A hidden page is destroyed (retainContextWhenHidden is off); it says 'ready' again when shown.
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.ready = false;
      }),
      panel.onDidDispose(() => {
        for (const s of subs) s.dispose();
        if (this.panel === panel) {
          this.panel = undefined;
          this.ready = false;
          this.queued = [];
        }
      }),
    ];
  }

  /**
   * A message from the page. It is untrusted (the page shows text from
   * session files): validated, and only this kind's messages count.
   */
  async receive(raw: unknown): Promise<void> {
    const msg = parseFromWebview(raw, this.options.kind);
    if (!msg) {
      log().warn(`${this.viewType}: ignored a malformed message`);
      return;
    }
    if (msg.type === 'ready') {
      this.ready = true;
      const queued = this.queued;
      this.queued = [];
      if (this.view && !queued.some((m) => m.type === 'show')) queued.unshift({ type: 'show', view: this.view });
      for (const m of queued) void this.panel?.webview.postMessage(m);
      return;
    }
    try {
      await this.options.onMessage(msg, this.view);
    } catch (err) {
      log().error(`${this.viewType}: ${msg.type} failed:`, err instanceof Error ? (err.stack ?? err.message) : String(err));
      if (this.options.noticeOnFailure)
        this.post({ type: 'notice', message: `${msg.type} failed: ${err instanceof Error ? err.message : String(err)}` });
    }
  }

  private ensurePanel(): vscode.WebviewPanel {
    if (this.panel) return this.panel;
    const panel = vscode.window.createWebviewPanel(
      this.viewType,
      PAGE_TITLES[this.options.kind],
      vscode.ViewColumn.Active,
      this.webviewOptions(),
    );
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
}
