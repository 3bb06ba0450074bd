import { el } from './dom';
import { escapeCollapses, renderEntry } from './entryPanel';
import { renderContext } from './contextPanel';
import type { FromViews, PanelView, ToViews } from './viewsProtocol';

/** The entry panel and the context view (dist/views.js): draws the PanelView the extension sends. */
const vscode = acquireVsCodeApi<{ view?: PanelView }>();
const root = document.getElementById('root')!;
const post = (m: FromViews) => vscode.postMessage(m);

function render(view: PanelView | undefined): void {
  if (!view) {
    root.replaceChildren(el('p', { class: 'empty' }, 'Loading…'));
    return;
  }
  if (view.kind === 'entry') renderEntry(view, root, post);
  else renderContext(view, root, post);
}

window.addEventListener('message', (event: MessageEvent) => {
  const msg = event.data as ToViews;
  if (!msg || typeof msg !== 'object') return;
  if (msg.type === 'show') {
    const before = vscode.getState()?.view;
    // The same entry redrawn (its leaf or label state changed): stay where the reader is.
    const same =
      before?.kind === 'entry' && msg.view.kind === 'entry' && before.file === msg.view.file && before.entryId === msg.view.entryId;
    const scrollY = window.scrollY;
    vscode.setState({ view: msg.view });
    render(msg.view);
    if (same) window.scrollTo(0, scrollY);
  } else if (msg.type === 'notice') {
    root.querySelector('.notice')?.remove();
    root.prepend(el('div', { class: 'notice error', role: 'alert' }, msg.message));
  }
});
root.addEventListener('keydown', escapeCollapses);

render(vscode.getState()?.view);
post({ type: 'ready' });
