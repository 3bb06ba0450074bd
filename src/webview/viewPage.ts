import { el } from './dom';
import { escapeCollapses, renderEntry } from './entryPanel';
import { renderContext } from './contextPanel';
import type { FromWebview, PanelState, ToWebview } from './protocol';

/**
 * The entry panel's and the context view's page (kinds of the one page,
 * dist/webview.js): draws the EntryView or ContextView the extension sends.
 */
export function startViewPage(api: VsCodeApi<PanelState>, root: HTMLElement): (msg: ToWebview) => void {
  const post = (m: FromWebview) => api.postMessage(m);
  const render = (view: PanelState['view']): void => {
    if (view?.kind === 'entry') renderEntry(view, root, post);
    else if (view?.kind === 'context') renderContext(view, root, post);
    else root.replaceChildren(el('p', { class: 'empty' }, 'Loading…'));
  };
  root.addEventListener('keydown', escapeCollapses);
  render(api.getState()?.view);
  post({ type: 'ready' });
  return (msg) => {
    if (msg.type === 'show') {
      const before = api.getState()?.view;
      // The same entry redrawn (its leaf or label state changed): stay where the reader is.
      const same =
        before?.kind === 'entry' && msg.view.kind === 'entry' && before.file === msg.view.file && before.entryId === msg.view.entryId;
      const scrollY = window.scrollY;
      api.setState({ view: msg.view });
      render(msg.view);
      if (same) window.scrollTo(0, scrollY);
    } else if (msg.type === 'notice') {
      root.querySelector('.notice')?.remove();
      root.prepend(el('div', { class: 'notice error', role: 'alert' }, msg.message));
    }
  };
}
