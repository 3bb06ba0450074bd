import type { PanelKind, PanelState, ToWebview } from './protocol';
import { startSummaryPage } from './summaryPage';
import { startViewPage } from './viewPage';

/**
 * The one page script of Arbor's panels (dist/webview.js). The host's page
 * names its kind (data-kind on #root); that kind's page draws what the
 * extension sends. The extension is the only sender of these messages.
 */
const PAGES: Record<PanelKind, (api: VsCodeApi<PanelState>, root: HTMLElement) => (msg: ToWebview) => void> = {
  summary: startSummaryPage,
  entry: startViewPage,
  context: startViewPage,
};

const root = document.getElementById('root')!;
const kind = Object.keys(PAGES).find((k): k is PanelKind => k === root.dataset.kind) ?? 'summary';
const receive = PAGES[kind](acquireVsCodeApi<PanelState>(), root);

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const msg = event.data;
  if (msg && typeof msg === 'object' && 'type' in msg && typeof msg.type === 'string') receive(msg as ToWebview);
});
