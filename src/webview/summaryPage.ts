// Over 400 lines: the summary panel's page is one view whose sections, retention checklist and edit mode share one state and one render.
import { parseMarkdown } from './markdown';
import { el, renderMarkdown } from './dom';
import {
  CONTRADICTION_KIND_TITLES,
  RETENTION_KIND_TITLES,
  SECTION_TITLES,
  isSummaryView,
  type FileLink,
  type FromWebview,
  type ContradictionItem,
  type PanelState,
  type RetentionItem,
  type SummarySections,
  type SummaryView,
  type ToWebview,
} from './protocol';

/**
 * The summary panel's page (a kind of the one page, dist/webview.js). Renders
 * a SummaryView sent by the extension; in review mode offers Apply / Edit /
 * Discard. State survives a window reload through setState (the extension's
 * serializer re-sends fresh data when it can).
 */
interface SummaryState {
  view: SummaryView | undefined;
  editing: string | undefined;
}

let vscode: VsCodeApi<PanelState>;
let root: HTMLElement;
const state: SummaryState = { view: undefined, editing: undefined };
let busy: { busy: boolean; message?: string } = { busy: false };
let error: string | undefined;

function post(message: FromWebview): void {
  vscode.postMessage(message);
}

function save(): void {
  vscode.setState(state);
}

function fmt(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return '–';
  return n.toLocaleString('en-US');
}

function kindTitle(view: SummaryView): string {
  return view.kind === 'compaction' ? 'Compaction summary' : 'Branch summary';
}

function badge(view: SummaryView): HTMLElement {
  const text = view.mode === 'review' ? 'Proposed, not written yet' : view.mode === 'expired' ? 'Proposal expired' : inSessionBadge(view);
  return el('span', { id: 'mode-badge', class: `badge ${view.mode}` }, text);
}

/**
 * Who wrote a summary in the session: its summarizer when this window knows it (Arbor's own summary, written to the file
 * or through Pi, where Pi marks it as a hook's), else the file's mark of a summary an extension or hook supplied.
 */
function inSessionBadge(view: SummaryView): string {
  if (view.author && view.author !== 'hook') return `In session · summarized by ${view.author}`;
  return view.fromHook ? 'In session · supplied by an extension or hook' : 'In session';
}

function statsRow(view: SummaryView): HTMLElement {
  const row = el('dl', { class: 'stats', id: 'stats' });
  const add = (label: string, value: string, id?: string) => {
    row.append(el('div', { class: 'stat', id }, el('dt', {}, label), el('dd', {}, value)));
  };
  // A jump's figures are two contexts (at the leaf left, and at the landing with the summary): no "saved" between them.
  const jump = view.kind === 'branch_summary';
  if (view.tokensBefore !== undefined) add(jump ? 'Context at the leaf left' : 'Tokens before', fmt(view.tokensBefore), 'stat-before');
  if (view.tokensAfter !== undefined) add(jump ? 'Context after the jump' : 'Tokens after', fmt(view.tokensAfter), 'stat-after');
  if (!jump && view.tokensBefore !== undefined && view.tokensAfter !== undefined && view.tokensBefore > 0) {
    // A summary no smaller than what it replaces saves nothing: said so, never "0%".
    if (view.tokensAfter >= view.tokensBefore) add('Saved', `none: ${fmt(view.tokensAfter - view.tokensBefore)} more`, 'stat-saved-none');
    else add('Saved', `${Math.round((1 - view.tokensAfter / view.tokensBefore) * 100)}%`);
  }
  if (view.usage) {
    add('Summary call', `${fmt(view.usage.input)} in · ${fmt(view.usage.output)} out`, 'stat-usage');
    add('Cost', view.usage.cost !== undefined ? `$${view.usage.cost.toFixed(4)}` : '–', 'stat-cost');
  } else if (view.summarizerNote) add('Summary call', view.summarizerNote, 'stat-usage');
  if (view.author) add('Summarizer', view.author, 'stat-author');
  return row;
}

function toolbar(view: SummaryView): HTMLElement | undefined {
  if (view.mode === 'expired') {
    return el(
      'div',
      { class: 'toolbar' },
      el(
        'p',
        { class: 'hint' },
        view.kind === 'branch_summary'
          ? 'This branch summary was not written and is gone after the window reloaded; the leaf did not move. Jump Here again to get a new one.'
          : 'This proposal was not written and is gone after the window reloaded. Compact again to get a new one.',
      ),
      view.kind === 'branch_summary'
        ? undefined
        : button('compact-again', 'Compact Again', 'primary', () => post({ type: 'compactAgain', file: view.file })),
    );
  }
  if (view.mode !== 'review' || !view.proposalId) return undefined;
  const id = view.proposalId;
  if (state.editing !== undefined) {
    return el(
      'div',
      { class: 'toolbar' },
      button('apply-edited', 'Apply Edited Summary', 'primary', () => post({ type: 'apply', proposalId: id, summary: state.editing })),
      button('cancel-edit', 'Cancel Edit', 'secondary', () => {
        state.editing = undefined;
        post({ type: 'recheck', proposalId: id, summary: view.markdown });
        save();
        render();
      }),
      button('discard', 'Discard', 'secondary', () => post({ type: 'discard', proposalId: id })),
    );
  }
  return el(
    'div',
    { class: 'toolbar' },
    button('apply', 'Apply', 'primary', () => post({ type: 'apply', proposalId: id })),
    button('edit', 'Edit', 'secondary', () => {
      state.editing = view.markdown;
      save();
      render();
      // At the top with the caret at the start (setting the value left the caret, and so the scroll, at the end).
      const editor = document.getElementById('editor');
      if (editor instanceof HTMLTextAreaElement) {
        editor.setSelectionRange(0, 0);
        editor.scrollTop = 0;
        editor.focus();
      }
    }),
    button('discard', 'Discard', 'secondary', () => post({ type: 'discard', proposalId: id })),
    el(
      'span',
      { class: 'hint' },
      view.kind === 'branch_summary'
        ? 'Nothing is written and the leaf does not move until you apply.'
        : 'Nothing is written to the session until you apply.',
    ),
  );
}

/** At most this many characters of a fact are shown (the whole text is in the tooltip). */
const FACT_SHOWN_CHARS = 240;

function factRow(view: SummaryView, f: RetentionItem): HTMLElement {
  const shown = f.text.length > FACT_SHOWN_CHARS ? `${f.text.slice(0, FACT_SHOWN_CHARS - 1)}…` : f.text;
  const li = el(
    'li',
    {
      class: `fact ${f.kept ? 'kept' : 'missing'}`,
      'data-kind': f.kind,
      title: f.text.length > FACT_SHOWN_CHARS ? f.text.slice(0, 2000) : undefined,
    },
    el('span', { class: 'mark', 'aria-label': f.kept ? 'kept' : 'missing' }, f.kept ? '\u2713' : '\u2717'),
    el('span', { class: 'fact-kind' }, RETENTION_KIND_TITLES[f.kind] ?? f.kind),
    el('span', { class: 'fact-text' }, shown),
  );
  if (f.entryId) {
    const a = el('a', { href: '#', class: 'entry-link', 'data-entry': f.entryId }, el('code', {}, f.entryId));
    a.addEventListener('click', (ev) => {
      ev.preventDefault();
      post({ type: 'reveal', file: view.file, entryId: f.entryId! });
    });
    li.append(' ', a);
  }
  if (!f.kept && !f.restorable && view.mode === 'review') li.append(el('span', { class: 'hint' }, ' (edit to add it)'));
  return li;
}

/** One thing the summary states that the span contradicts: the summary's words, the span's evidence, its entry. */
function contradictionRow(view: SummaryView, c: ContradictionItem): HTMLElement {
  const cut = (t: string) => (t.length > FACT_SHOWN_CHARS ? `${t.slice(0, FACT_SHOWN_CHARS - 1)}…` : t);
  const li = el(
    'li',
    { class: 'fact contradiction', 'data-kind': c.kind },
    el('span', { class: 'mark', 'aria-label': 'contradicted' }, '\u2717'),
    el('span', { class: 'fact-kind' }, CONTRADICTION_KIND_TITLES[c.kind] ?? c.kind),
    el('span', { class: 'fact-text' }, `\u201c${cut(c.summary)}\u201d \u2014 the span: ${cut(c.evidence)}`),
  );
  if (c.entryId) {
    const a = el('a', { href: '#', class: 'entry-link', 'data-entry': c.entryId }, el('code', {}, c.entryId));
    a.addEventListener('click', (ev) => {
      ev.preventDefault();
      post({ type: 'reveal', file: view.file, entryId: c.entryId! });
    });
    li.append(' ', a);
  }
  return li;
}

/**
 * The retention checklist (issues 19 and 32): what the summarized span holds that a continuation needs, missing
 * facts first, and what the summary states that the span contradicts; or why the span cannot be checked.
 */
function retentionBlock(view: SummaryView): HTMLElement | undefined {
  const items = view.retention ?? [];
  const contradictions = view.contradictions ?? [];
  const cannotCheck = view.retentionCannotCheck;
  if (!items.length && !contradictions.length && !cannotCheck) return undefined;
  const missing = items.filter((f) => !f.kept);
  const kept = items.filter((f) => f.kept);
  const block = el('section', {
    class: `retention${missing.length || contradictions.length ? ' has-missing' : ''}${cannotCheck ? ' cannot-check' : ''}`,
    id: 'retention',
    'aria-label': 'What the summary keeps',
  });
  const count = cannotCheck
    ? `Cannot check: ${cannotCheck}`
    : `${kept.length} of ${items.length} facts kept${missing.length ? `, ${missing.length} missing` : ''}` +
      (contradictions.length ? `; ${contradictions.length} contradicted by the span` : '');
  block.append(
    el(
      'div',
      { class: 'retention-head' },
      el('h2', {}, 'What the summary keeps'),
      el('span', { class: 'retention-count', id: 'retention-count' }, count),
    ),
  );
  if (view.retentionNote) block.append(el('p', { class: 'hint', id: 'retention-note' }, view.retentionNote));
  if (cannotCheck) return block;
  const restorable = missing.filter((f) => f.restorable).length;
  if (view.mode === 'review' && view.proposalId && restorable) {
    const id = view.proposalId;
    block.append(
      el(
        'div',
        { class: 'retention-actions' },
        button('put-back', `Put back ${restorable} missing`, 'secondary', () =>
          post({ type: 'putBack', proposalId: id, summary: state.editing }),
        ),
        el('span', { class: 'hint' }, 'Adds them to the text as an edit; nothing is written until you apply.'),
      ),
    );
  }
  if (contradictions.length)
    block.append(el('ul', { class: 'facts', id: 'facts-contradicted' }, ...contradictions.map((c) => contradictionRow(view, c))));
  if (missing.length) block.append(el('ul', { class: 'facts', id: 'facts-missing' }, ...missing.map((f) => factRow(view, f))));
  if (kept.length) {
    const details = el('details', { class: 'facts-kept', id: 'facts-kept' }, el('summary', {}, `Kept (${kept.length})`));
    details.append(el('ul', { class: 'facts' }, ...kept.map((f) => factRow(view, f))));
    block.append(details);
  }
  return block;
}

let recheckTimer: ReturnType<typeof setTimeout> | undefined;

/** Asks for the check of the edited text once typing pauses. */
function scheduleRecheck(): void {
  const id = state.view?.proposalId;
  if (!id || state.editing === undefined) return;
  if (recheckTimer) clearTimeout(recheckTimer);
  recheckTimer = setTimeout(() => {
    recheckTimer = undefined;
    if (state.editing !== undefined) post({ type: 'recheck', proposalId: id, summary: state.editing });
  }, 300);
}

function button(id: string, label: string, kind: 'primary' | 'secondary', onClick: () => void): HTMLButtonElement {
  const b = el('button', { id, class: `button ${kind}`, type: 'button' }, label);
  b.disabled = busy.busy;
  b.addEventListener('click', onClick);
  return b;
}

function section(key: keyof SummarySections | string, title: string, markdown: string, level = 2): HTMLElement | undefined {
  if (!markdown.trim()) return undefined;
  const s = el('section', { class: 'section', 'data-section': key });
  s.append(el(level === 2 ? 'h2' : 'h3', {}, title));
  const body = el('div', { class: 'markdown' });
  renderMarkdown(parseMarkdown(markdown), body, 2);
  s.append(body);
  return s;
}

function progress(sections: SummarySections): HTMLElement | undefined {
  const parts = [
    section('done', 'Done', sections.done, 3),
    section('inProgress', 'In Progress', sections.inProgress, 3),
    section('blocked', 'Blocked', sections.blocked, 3),
  ].filter((p): p is HTMLElement => !!p);
  if (!parts.length) return undefined;
  return el('section', { class: 'section progress', 'data-section': 'progress' }, el('h2', {}, 'Progress'), ...parts);
}

function fileList(title: string, id: string, files: FileLink[]): HTMLElement | undefined {
  if (!files.length) return undefined;
  const ul = el('ul', { class: 'files' });
  for (const f of files) {
    const a = el(
      'a',
      {
        href: '#',
        class: `file-link${f.exists ? '' : ' missing'}`,
        'data-path': f.resolved,
        title: f.exists ? f.resolved : `${f.resolved} (not found)`,
      },
      f.path,
    );
    a.addEventListener('click', (ev) => {
      ev.preventDefault();
      post({ type: 'openFile', path: f.resolved });
    });
    ul.append(el('li', {}, a));
  }
  return el('div', { class: 'file-group', id }, el('h3', {}, `${title} (${files.length})`), ul);
}

/** The pinned entries the summary carries: a pin each (icon, label, what it is, its entry), its text as markdown. */
function pinsBlock(view: SummaryView): HTMLElement | undefined {
  const pins = view.pins ?? [];
  if (!pins.length && !view.pinsNote) return undefined;
  const list = el('ul', { class: 'pins', id: 'pins' });
  for (const pin of pins) {
    const head = el(
      'div',
      { class: 'pin-head' },
      el('span', { class: 'pin-icon', 'aria-hidden': 'true' }, PIN_ICON),
      el('span', { class: 'pin-name' }, pin.name || 'Pinned'),
      el('span', { class: 'pin-what' }, pin.what),
    );
    if (pin.id) {
      const a = el(
        'a',
        { href: '#', class: 'entry-link', 'data-entry': pin.id, title: 'Show this entry in the Arbor view' },
        el('code', {}, pin.id),
      );
      a.addEventListener('click', (ev) => {
        ev.preventDefault();
        post({ type: 'reveal', file: view.file, entryId: pin.id });
      });
      head.append(a);
    }
    const body = el('div', { class: 'pin-text markdown' });
    renderMarkdown(parseMarkdown(pin.text), body, 3);
    list.append(el('li', { class: 'pin', 'data-entry': pin.id }, head, body));
  }
  const s = el('section', { class: 'section pinned', 'data-section': 'pinned' }, el('h2', {}, 'Pinned'), list);
  if (view.pinsNote) s.append(el('p', { class: 'hint', id: 'pins-note' }, view.pinsNote));
  return s;
}

/** The pin mark (U+1F4CC), drawn with an emoji font (media/summary.css names them). */
const PIN_ICON = '\u{1F4CC}';

function replacedBlock(view: SummaryView): HTMLElement | undefined {
  const r = view.replaced;
  if (!r) return undefined;
  const what =
    view.kind === 'compaction'
      ? `Replaces ${r.count} entr${r.count === 1 ? 'y' : 'ies'} in the context`
      : `Summarizes ${r.count} abandoned entr${r.count === 1 ? 'y' : 'ies'}`;
  const details = el('details', { class: 'replaced', id: 'replaced' });
  details.append(el('summary', {}, what));
  const list = el('ol', { class: 'entries' });
  for (const e of r.entries) {
    const a = el('a', { href: '#', class: 'entry-link', 'data-entry': e.id }, el('code', {}, e.id));
    a.addEventListener('click', (ev) => {
      ev.preventDefault();
      post({ type: 'reveal', file: view.file, entryId: e.id });
    });
    list.append(
      el(
        'li',
        {},
        a,
        e.label ? el('span', { class: 'entry-label' }, ` #${e.label}`) : undefined,
        el('span', { class: 'entry-title' }, ` ${e.title}: `),
        el('span', { class: 'entry-text' }, e.text),
      ),
    );
  }
  details.append(list);
  if (r.firstKeptEntryId) details.append(el('p', { class: 'hint' }, `Kept verbatim from entry ${r.firstKeptEntryId} on.`));
  if (r.fromId) details.append(el('p', { class: 'hint' }, `Left from leaf ${r.fromId}.`));
  return details;
}

/** A jump's branch summary: where the leaf goes from and to, and the label the jump writes on the summary. */
function jumpLine(view: SummaryView): HTMLElement | undefined {
  const j = view.jump;
  if (!j) return undefined;
  const from = view.replaced?.fromId;
  const to = j.newLeafId ?? 'the start of the session';
  const where =
    view.mode === 'review'
      ? `Jump${from ? ` from leaf ${from}` : ''} to ${to}, with this summary of the branch left behind`
      : `Written by a jump${from ? ` from leaf ${from}` : ''} to ${to}`;
  return el(
    'p',
    { class: 'meta', id: 'jump-line' },
    where,
    j.label ? el('span', { class: 'entry-label', id: 'jump-label' }, ` · label #${j.label}`) : undefined,
  );
}

function render(): void {
  root.replaceChildren();
  const view = state.view;
  if (!view) {
    root.append(el('p', { class: 'empty' }, 'Select a compaction or branch summary in the Arbor view to see it here.'));
    return;
  }
  document.title = kindTitle(view);
  const header = el(
    'header',
    { class: 'header summary-header' },
    el('div', { class: 'title-row' }, el('h1', { id: 'summary-title' }, kindTitle(view)), badge(view)),
    el(
      'p',
      { class: 'meta' },
      [
        view.sessionTitle,
        view.entryId ? `entry ${view.entryId}` : undefined,
        view.timestamp ? new Date(view.timestamp).toLocaleString() : undefined,
      ]
        .filter(Boolean)
        .join(' · '),
    ),
    jumpLine(view),
    view.customInstructions
      ? el(
          'p',
          { class: 'meta', id: 'instructions' },
          `${view.jump?.replaceInstructions ? 'Instructions (instead of the defaults)' : 'Instructions'}: ${view.customInstructions}`,
        )
      : undefined,
    statsRow(view),
  );
  // Only the actions stay on screen while the summary scrolls: a sticky header holding the checklist hid the sections.
  const actions = toolbar(view);
  root.append(
    header,
    ...[retentionBlock(view), actions && el('div', { class: 'actions-bar' }, actions)].filter((x): x is HTMLElement => !!x),
  );
  if (busy.busy)
    root.append(
      el('div', { class: 'busy', role: 'status' }, el('span', { class: 'spinner', 'aria-hidden': 'true' }), busy.message ?? 'Working…'),
    );
  if (error) root.append(el('div', { class: 'error', role: 'alert' }, error));

  if (view.mode === 'review' && state.editing !== undefined) {
    const ta = el('textarea', { id: 'editor', class: 'editor', spellcheck: 'false', 'aria-label': 'Summary text (markdown)' });
    ta.value = state.editing;
    ta.addEventListener('input', () => {
      state.editing = ta.value;
      save();
      scheduleRecheck();
    });
    root.append(el('div', { class: 'edit-area' }, ta));
    return;
  }

  const main = el('main', { class: 'sections' });
  const s = view.sections;
  for (const part of [
    section('goal', 'Goal', s.goal),
    section('constraints', 'Constraints & Preferences', s.constraints),
    progress(s),
    section('decisions', 'Key Decisions', s.decisions),
    section('nextSteps', 'Next Steps', s.nextSteps),
    section('criticalContext', 'Critical Context', s.criticalContext),
    pinsBlock(view),
    section('turnContext', SECTION_TITLES.find(([k]) => k === 'turnContext')![1], s.turnContext),
    section('other', 'Other notes', s.other),
  ]) {
    if (part) main.append(part);
  }
  const files = [
    fileList('Read files', 'read-files', view.readFiles),
    fileList('Modified files', 'modified-files', view.modifiedFiles),
  ].filter((f): f is HTMLElement => !!f);
  if (files.length)
    main.append(el('section', { class: 'section files-section', 'data-section': 'files' }, el('h2', {}, 'Files'), ...files));
  const replaced = replacedBlock(view);
  if (replaced) main.append(replaced);
  root.append(main);
}

/** A message from the extension to the summary page. */
function receive(msg: ToWebview): void {
  switch (msg.type) {
    case 'show':
      if (!isSummaryView(msg.view)) break;
      if (state.view?.proposalId !== msg.view.proposalId || msg.view.mode !== 'review') state.editing = undefined;
      state.view = msg.view;
      error = undefined;
      busy = { busy: false };
      save();
      render();
      break;
    case 'retention': {
      const view = state.view;
      if (!view || view.proposalId !== msg.proposalId || view.mode !== 'review') break;
      state.view = { ...view, retention: msg.items, contradictions: msg.contradictions ?? [], retentionCannotCheck: msg.cannotCheck };
      if (msg.tokensAfter !== undefined) state.view.tokensAfter = msg.tokensAfter;
      if (msg.summary !== undefined) state.editing = msg.summary;
      save();
      // Tokens after and saved follow the text (issue 34 item 4): the figures are redrawn with the checklist.
      document.getElementById('stats')?.replaceWith(statsRow(state.view));
      // Typing goes on in the editor: redraw the checklist only, not the textarea under the cursor.
      const old = document.getElementById('retention');
      const fresh = retentionBlock(state.view);
      if (msg.summary === undefined && old && fresh) old.replaceWith(fresh);
      else render();
      break;
    }
    case 'busy':
      busy = { busy: msg.busy, message: msg.message };
      if (msg.busy) error = undefined;
      render();
      break;
    case 'error':
    case 'notice':
      error = msg.message;
      busy = { busy: false };
      render();
      break;
  }
}

/** Starts the summary page in `rootElement`: redraws the saved state, then tells the extension it is ready. */
export function startSummaryPage(api: VsCodeApi<PanelState>, rootElement: HTMLElement): (msg: ToWebview) => void {
  vscode = api;
  root = rootElement;
  const saved = api.getState();
  state.view = saved?.view && isSummaryView(saved.view) ? saved.view : undefined;
  state.editing = state.view ? saved?.editing : undefined;
  render();
  post({ type: 'ready' });
  return receive;
}
