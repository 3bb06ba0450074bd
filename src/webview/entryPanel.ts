import { parseMarkdown } from './markdown';
import { el, renderMarkdown } from './dom';
import type { EntryView, FromWebview, PartView } from './protocol';
import type { ToolArgField } from '../engine/export/entryParts';
import { editDiffLines } from '../engine/text/lineDiff';

/** Lines / characters of a tool result shown before "Show all". */
const COLLAPSED_LINES = 20;
const COLLAPSED_CHARS = 2000;

const fmt = (n: number | undefined): string => (n === undefined || !Number.isFinite(n) ? '–' : n.toLocaleString('en-US'));

function moreNotice(more: number | undefined): HTMLElement | undefined {
  return more
    ? el(
        'p',
        { class: 'more-notice' },
        `… ${fmt(more)} more characters not shown (Copy Text copies the whole entry; Open at Line shows the raw line).`,
      )
    : undefined;
}

/** A block of preformatted text, collapsed with a "Show all" button when long. */
function longText(text: string, cls: string): HTMLElement {
  const wrap = el('div', { class: `long ${cls}` });
  const lines = text.split('\n');
  const long = lines.length > COLLAPSED_LINES || text.length > COLLAPSED_CHARS;
  const pre = el('pre', { tabindex: '0' });
  const short = long ? lines.slice(0, COLLAPSED_LINES).join('\n').slice(0, COLLAPSED_CHARS) : text;
  pre.append(document.createTextNode(short));
  wrap.append(pre);
  if (long) {
    const btn = el(
      'button',
      { type: 'button', class: 'button secondary show-all', 'aria-expanded': 'false' },
      `Show all (${fmt(lines.length)} lines, ${fmt(text.length)} characters)`,
    );
    btn.addEventListener('click', () => {
      const expanded = btn.getAttribute('aria-expanded') === 'true';
      pre.textContent = expanded ? short : text;
      btn.setAttribute('aria-expanded', String(!expanded));
      btn.textContent = expanded ? `Show all (${fmt(lines.length)} lines, ${fmt(text.length)} characters)` : 'Show less';
    });
    wrap.append(btn);
  }
  return wrap;
}

/** A tool call's arguments as key and value: short values on the key's line, long or multi-line ones as code blocks. */
function toolArgs(fields: ToolArgField[]): HTMLElement {
  const list = el('dl', { class: 'tool-args' });
  for (const f of fields) {
    list.append(
      el('dt', {}, f.key),
      f.block ? el('dd', { class: 'block' }, longText(f.value, 'plain')) : el('dd', {}, el('code', {}, f.value)),
    );
  }
  return list;
}

/** An edit's replacement as a diff: the lines it keeps around the change, the old lines removed, the new ones added. */
function editDiff(edit: { oldText: string; newText: string }, n: number | undefined): HTMLElement {
  const pre = el('pre', { class: 'diff', tabindex: '0', 'aria-label': `Edit${n ? ` ${n}` : ''}: lines removed and added` });
  for (const line of editDiffLines(edit.oldText, edit.newText)) {
    const mark = line.kind === 'removed' ? '-' : line.kind === 'added' ? '+' : ' ';
    pre.append(el('span', { class: `diff-line ${line.kind}` }, `${mark} ${line.text}\n`));
  }
  return el('div', { class: 'edit' }, n ? el('h4', {}, `Edit ${n}`) : undefined, pre);
}

function markdownBlock(text: string): HTMLElement {
  const body = el('div', { class: 'markdown' });
  renderMarkdown(parseMarkdown(text), body, 1);
  return body;
}

function part(p: PartView): HTMLElement {
  switch (p.kind) {
    case 'text':
      return el('section', { class: 'part text' }, markdownBlock(p.text), moreNotice(p.more));
    case 'thinking': {
      const d = el('details', { class: 'part thinking' });
      d.append(
        el('summary', {}, `Thinking (${fmt(p.text.length)} characters)`),
        el('div', { class: 'thinking-body' }, longText(p.text, 'plain')),
        moreNotice(p.more) ?? '',
      );
      return d;
    }
    case 'toolCall':
      return el(
        'section',
        { class: 'part tool-call' },
        el('h3', {}, 'Tool call ', el('code', {}, p.name), p.id ? el('span', { class: 'dim' }, ` ${p.id}`) : undefined),
        p.fields ? toolArgs(p.fields) : longText(p.args, 'json'),
        ...(p.edits ?? []).map((e, k, all) => editDiff(e, all.length > 1 ? k + 1 : undefined)),
        moreNotice(p.more),
      );
    case 'toolResult':
      return el(
        'section',
        { class: `part tool-result${p.isError ? ' error' : ''}` },
        el('h3', {}, p.isError ? 'Tool error ' : 'Tool result ', p.toolName ? el('code', {}, p.toolName) : undefined),
        longText(p.text, 'plain'),
        moreNotice(p.more),
      );
    case 'image':
      return el(
        'section',
        { class: 'part image' },
        el(
          'span',
          { class: 'image-placeholder', role: 'img', 'aria-label': `image ${p.mimeType}` },
          `🖼 Image · ${p.mimeType} · ${fmt(p.bytes)} bytes (not shown)`,
        ),
      );
    case 'bash':
      return el(
        'section',
        { class: 'part bash' },
        el(
          'h3',
          {},
          'Shell',
          p.exitCode !== undefined && p.exitCode !== null
            ? el('span', { class: p.exitCode === 0 ? 'dim' : 'bad' }, ` exit ${p.exitCode}`)
            : undefined,
        ),
        el('pre', { class: 'command' }, `$ ${p.command}`),
        longText(p.output, 'plain'),
        moreNotice(p.more),
      );
    case 'custom':
      return el(
        'section',
        { class: 'part custom' },
        el('h3', {}, 'Custom message ', el('code', {}, p.customType)),
        markdownBlock(p.text),
        moreNotice(p.more),
      );
    case 'summary':
      return el(
        'section',
        { class: 'part summary' },
        el('h3', {}, p.summaryKind === 'compaction' ? 'Compaction summary' : 'Branch summary'),
        markdownBlock(p.text),
        moreNotice(p.more),
      );
    case 'meta':
      return el('section', { class: 'part meta-part' }, longText(p.text, 'plain'), moreNotice(p.more));
  }
}

/** Left/Right/Home/End move between the toolbar's buttons (one tab stop for the toolbar). */
function rovingToolbar(bar: HTMLElement): void {
  const buttons = () => [...bar.querySelectorAll('button')];
  buttons().forEach((b, i) => b.setAttribute('tabindex', i === 0 ? '0' : '-1'));
  bar.addEventListener('keydown', (ev) => {
    const list = buttons();
    const at = list.indexOf(document.activeElement as HTMLButtonElement);
    if (at < 0) return;
    let next = at;
    if (ev.key === 'ArrowRight') next = (at + 1) % list.length;
    else if (ev.key === 'ArrowLeft') next = (at - 1 + list.length) % list.length;
    else if (ev.key === 'Home') next = 0;
    else if (ev.key === 'End') next = list.length - 1;
    else return;
    ev.preventDefault();
    list[at].setAttribute('tabindex', '-1');
    list[next].setAttribute('tabindex', '0');
    list[next].focus();
  });
}

export function renderEntry(view: EntryView, root: HTMLElement, post: (m: FromWebview) => void): void {
  document.title = `${view.title} ${view.entryId}`;
  const button = (id: string, label: string, title: string, msg: FromWebview) => {
    const b = el('button', { id, type: 'button', class: 'button secondary', title }, label);
    b.addEventListener('click', () => post(msg));
    return b;
  };
  const bar = el(
    'div',
    { class: 'toolbar', role: 'toolbar', 'aria-label': 'Entry actions' },
    button('copy-text', 'Copy Text', 'Copy the whole text of this entry', { type: 'copy', what: 'text' }),
    button('copy-id', 'Copy ID', `Copy the id ${view.entryId}`, { type: 'copy', what: 'id' }),
    button('open-at-line', `Open at Line ${view.line}`, 'Open the raw session file at this entry (read-only)', { type: 'openAtLine' }),
    button('jump-here', 'Jump Here', view.isLeaf ? 'This entry is already the current leaf' : 'Continue the session from this entry', {
      type: 'jump',
    }),
    view.parentId
      ? button('show-parent', '↑ Parent', `Show the parent entry ${view.parentId}`, { type: 'showEntry', entryId: view.parentId })
      : undefined,
  );
  rovingToolbar(bar);
  const stats = el('dl', { class: 'stats', id: 'entry-stats' });
  const stat = (label: string, value: string | undefined, id: string) =>
    value && stats.append(el('div', { class: 'stat', id }, el('dt', {}, label), el('dd', {}, value)));
  stat('Tokens', view.tokens !== undefined ? `${fmt(view.tokens)} (${view.estimator})` : undefined, 'stat-tokens');
  if (view.usage) {
    stat(
      'Usage',
      `${fmt(view.usage.input)} in · ${fmt(view.usage.output)} out · ${fmt(view.usage.cacheRead)} cache read · ${fmt(view.usage.cacheWrite)} cache write`,
      'stat-usage',
    );
    stat('Total', fmt(view.usage.totalTokens), 'stat-total');
    if (view.usage.cost !== undefined) stat('Cost', `$${view.usage.cost.toFixed(4)}`, 'stat-cost');
  }
  stat('Model', view.model, 'stat-model');
  stat('Id', view.entryId, 'stat-id');
  stat('Line', String(view.line), 'stat-line');
  stat('Time', view.timestamp ? new Date(view.timestamp).toLocaleString() : undefined, 'stat-time');
  const header = el(
    'header',
    { class: 'header' },
    el(
      'div',
      { class: 'title-row' },
      el('h1', { id: 'entry-title' }, view.title),
      view.isLeaf ? el('span', { class: 'badge entry' }, 'Current leaf') : undefined,
      view.label ? el('span', { class: 'badge label' }, `#${view.label}`) : undefined,
    ),
    el('p', { class: 'meta' }, view.sessionTitle),
    stats,
    bar,
  );
  const main = el('main', { class: 'parts', id: 'entry-parts' });
  for (const p of view.parts) main.append(part(p));
  if (!view.parts.length) main.append(el('p', { class: 'empty' }, 'This entry has no content.'));
  if (view.moreParts)
    main.append(el('p', { class: 'more-notice' }, `… ${fmt(view.moreParts)} more parts not shown: the entry is too large for the panel.`));
  root.replaceChildren(header, main);
}

/** Escape closes an open "Thinking" block or a shown-all result and puts the focus on its control. */
export function escapeCollapses(ev: KeyboardEvent): void {
  if (ev.key !== 'Escape') return;
  const target = ev.target as HTMLElement;
  const details = target.closest('details');
  if (details?.open) {
    details.open = false;
    details.querySelector('summary')?.focus();
    ev.preventDefault();
    return;
  }
  const long = target.closest('.long');
  const btn = long?.querySelector<HTMLButtonElement>('button.show-all');
  if (btn?.getAttribute('aria-expanded') === 'true') {
    btn.click();
    btn.focus();
    ev.preventDefault();
  }
}
