import * as vscode from 'vscode';
import { webviewPage } from './webviewPage';
import { parseFromViews, type FromViews, type PanelView, type ToViews } from '../../webview/viewsProtocol';
import { log } from '../platform/logging';

/**
 * A webview panel that shows one PanelView at a time (the entry panel, the
 * context view), drawn by dist/views.js. Scripts run only with the page's
 * nonce, nothing loads from anywhere but the extension's files, and every
 * message from the page is validated before `onMessage` sees it.
 */
export class ViewPanel<V extends PanelView> implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private view: V | undefined;
  private ready = false;
  private readonly shown = new vscode.EventEmitter<V>();
  /** Fires whenever the panel shows a view. */
  readonly onDidShow = this.shown.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly viewType: string,
    private readonly titleOf: (view: V) => string,
    private readonly onMessage: (message: FromViews, view: V) => Promise<unknown>,
  ) {}

  dispose(): void {
    this.panel?.dispose();
    this.shown.dispose();
  }

  get currentView(): V | undefined {
    return this.view;
  }

  show(view: V, options: { preserveFocus?: boolean } = {}): void {
    this.view = view;
    const panel = this.ensurePanel();
    panel.title = this.titleOf(view);
    panel.reveal(panel.viewColumn ?? vscode.ViewColumn.Active, options.preserveFocus ?? false);
    this.post({ type: 'show', view });
    this.shown.fire(view);
  }

  /**
   * Redraws the open panel with `view` where it is: not revealed, no focus
   * taken (a background change such as a live append). Nothing when closed.
   */
  update(view: V): void {
    if (!this.panel) return;
    this.view = view;
    this.panel.title = this.titleOf(view);
    this.post({ type: 'show', view });
    this.shown.fire(view);
  }

  notice(message: string): void {
    this.post({ type: 'notice', message });
  }

  private ensurePanel(): vscode.WebviewPanel {
    if (this.panel) return this.panel;
    const panel = vscode.window.createWebviewPanel(this.viewType, 'Arbor', vscode.ViewColumn.Active, {
      enableScripts: true,
      enableCommandUris: false,
      retainContextWhenHidden: false,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist'), vscode.Uri.joinPath(this.extensionUri, 'media')],
    });
    this.panel = panel;
    this.ready = false;
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'arbor.svg');
    panel.webview.html = this.html(panel.webview);
    const subs = [
      panel.webview.onDidReceiveMessage((raw) => void this.receive(raw)),
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.ready = false;
      }),
      panel.onDidDispose(() => {
        for (const s of subs) s.dispose();
        if (this.panel === panel) {
          this.panel = undefined;
          this.ready = false;
        }
      }),
    ];
    return panel;
  }

  private post(message: ToViews): void {
    // Until the page says it is ready, the view is sent on 'ready' (a hidden page is rebuilt when shown again).
    if (this.panel && this.ready) void this.panel.webview.postMessage(message);
  }

  private async receive(raw: unknown): Promise<void> {
    const msg = parseFromViews(raw);
    if (!msg) {
      log().warn(`${this.viewType}: ignored a malformed message`);
      return;
    }
    if (msg.type === 'ready') {
      this.ready = true;
      if (this.view) this.post({ type: 'show', view: this.view });
      return;
    }
    const view = this.view;
    if (!view) return;
    try {
      await this.onMessage(msg, view);
    } catch (err) {
      log().error(`${this.viewType}: ${msg.type} failed:`, err instanceof Error ? (err.stack ?? err.message) : String(err));
      this.notice(`${msg.type} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private html(webview: vscode.Webview): string {
    return webviewPage({
      webview,
      extensionUri: this.extensionUri,
      script: 'dist/views.js',
      styles: ['media/summary.css', 'media/views.css'],
      title: 'Arbor',
    });
  }
}
