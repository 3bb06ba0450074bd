import { el } from './dom';
import type { ContextView, FromWebview } from './protocol';

const SVG = 'http://www.w3.org/2000/svg';
const fmt = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
  ...children: (Node | string)[]
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const c of children) node.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return node;
}

/** Context tokens along the active path, with compactions, branch summaries, the threshold and the window. */
function chart(view: ContextView, post: (m: FromWebview) => void): HTMLElement {
  const W = 720;
  const H = 220;
  const pad = { l: 56, r: 12, t: 14, b: 26 };
  const pts = view.series;
  const maxY = view.axis.max;
  const x = (i: number) => pad.l + (pts.length <= 1 ? 0 : (i / (pts.length - 1)) * (W - pad.l - pad.r));
  const y = (t: number) => pad.t + (1 - t / maxY) * (H - pad.t - pad.b);
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-labelledby': 'chart-title', id: 'context-chart' });
  root.append(
    svg(
      'title',
      { id: 'chart-title' },
      `Context tokens along the active path: ${fmt(view.tokens)} now, threshold ${fmt(view.threshold)}, window ${fmt(view.contextWindow)}`,
    ),
  );
  for (const tick of view.axis.ticks) {
    root.append(
      svg('line', { x1: pad.l, x2: W - pad.r, y1: y(tick.value), y2: y(tick.value), class: 'grid' }),
      svg('text', { x: pad.l - 6, y: y(tick.value) + 4, class: 'axis', 'text-anchor': 'end' }, tick.label),
    );
  }
  root.append(svg('line', { x1: pad.l, x2: W - pad.r, y1: y(view.contextWindow), y2: y(view.contextWindow), class: 'window-line' }));
  root.append(
    svg('text', { x: W - pad.r, y: y(view.contextWindow) - 4, class: 'axis', 'text-anchor': 'end' }, `window ${view.short.window}`),
  );
  root.append(
    svg('line', { x1: pad.l, x2: W - pad.r, y1: y(view.threshold), y2: y(view.threshold), class: 'threshold-line', id: 'threshold-line' }),
  );
  root.append(
    svg(
      'text',
      { x: W - pad.r, y: y(view.threshold) + 13, class: 'axis threshold-label', 'text-anchor': 'end' },
      `compaction threshold ${view.short.threshold}`,
    ),
  );
  if (pts.length) {
    const d = pts.map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(p.tokens).toFixed(1)}`).join(' ');
    root.append(
      svg('path', { d: `${d} L${x(pts.length - 1).toFixed(1)},${y(0)} L${x(0).toFixed(1)},${y(0)} Z`, class: 'area' }),
      svg('path', { d, class: 'series' }),
    );
  }
  pts.forEach((p, i) => {
    if (!p.marker) return;
    const g = svg('g', { class: `marker ${p.marker}`, tabindex: '0', role: 'button', 'data-entry': p.entryId });
    g.append(
      svg('title', {}, `${p.marker === 'compaction' ? 'Compaction' : 'Branch summary'} ${p.entryId}: ${fmt(p.tokens)} tokens after it`),
      svg('line', { x1: x(i), x2: x(i), y1: pad.t, y2: y(0) }),
      svg('circle', { cx: x(i), cy: y(p.tokens), r: 4.5 }),
    );
    const open = () => post({ type: 'showEntry', entryId: p.entryId });
    g.addEventListener('click', open);
    g.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        open();
      }
    });
    root.append(g);
  });
  if (pts.length) {
    const last = pts[pts.length - 1];
    root.append(svg('circle', { cx: x(pts.length - 1), cy: y(last.tokens), r: 4, class: 'now' }));
  }
  const legend = el(
    'div',
    { class: 'legend' },
    el('span', { class: 'key series-key' }, 'context tokens'),
    el('span', { class: 'key threshold-key' }, 'compaction threshold'),
    el('span', { class: 'key window-key' }, 'context window'),
    el('span', { class: 'key compaction-key' }, 'compaction'),
    el('span', { class: 'key branch-key' }, 'branch summary'),
  );
  return el(
    'figure',
    { class: 'chart-figure' },
    root,
    legend,
    el(
      'figcaption',
      { class: 'hint' },
      `${pts.length} points, one per entry that changes the context on the path to ${view.leafId ?? '(none)'}; ` +
        `provider-reported usage where there is one, estimates (${view.estimator}) in between.`,
    ),
  );
}

function bar(tokens: number, max: number, cls: string): HTMLElement {
  const pct = max > 0 ? Math.min(100, (tokens / max) * 100) : 0;
  const b = el('span', { class: `bar ${cls}`, role: 'presentation' });
  const fill = el('span', { class: 'fill' });
  // The CSP allows no inline style: the width is one of the stylesheet's w0…w100 classes.
  fill.dataset.pct = String(Math.round(pct));
  fill.classList.add(`w${Math.round(pct)}`);
  b.append(fill);
  return b;
}

export function renderContext(view: ContextView, root: HTMLElement, post: (m: FromWebview) => void): void {
  document.title = `Context: ${view.sessionTitle}`;
  const stats = el('dl', { class: 'stats', id: 'context-stats' });
  const stat = (label: string, value: string, id: string) =>
    stats.append(el('div', { class: 'stat', id }, el('dt', {}, label), el('dd', {}, value)));
  stat('Context', view.short.status, 'stat-context');
  stat('Source', view.short.source, 'stat-source');
  stat('Tokens', `${fmt(view.tokens)} of ${fmt(view.contextWindow)}`, 'stat-exact');
  stat('Reported + estimated', `${fmt(view.usageTokens)} + ${fmt(view.trailingTokens)}`, 'stat-split');
  stat('Compaction threshold', `${fmt(view.threshold)} (window − ${fmt(view.reserveTokens)} reserve)`, 'stat-threshold');
  stat('Model', view.model ?? 'unknown', 'stat-model');
  stat('Thinking', view.thinkingLevel, 'stat-thinking');
  const header = el(
    'header',
    { class: 'header' },
    el(
      'div',
      { class: 'title-row' },
      el('h1', { id: 'context-title' }, 'Context'),
      view.overThreshold ? el('span', { class: 'badge warn', id: 'over-threshold' }, 'Over the threshold: compaction due') : undefined,
    ),
    el('p', { class: 'meta' }, `${view.sessionTitle} · leaf ${view.leafId ?? '(none)'}`),
    stats,
    view.settingsError
      ? el('p', { class: 'error', role: 'alert' }, `Pi settings could not be read (defaults used): ${view.settingsError}`)
      : undefined,
  );
  // The parts add up to the figure (engine/context/contextParts.ts): shares are of the figure.
  const total = view.tokens;
  const share = (tokens: number) => (total > 0 ? Math.round((tokens / total) * 100) : 0);
  const roles = el(
    'table',
    { class: 'roles', id: 'by-role' },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        el('th', {}, 'Part'),
        el('th', { class: 'num' }, 'Messages'),
        el('th', { class: 'num' }, 'Tokens'),
        el('th', {}, 'Share'),
      ),
    ),
  );
  const rb = el('tbody');
  for (const r of view.byRole)
    rb.append(
      el(
        'tr',
        { 'data-role': r.role },
        el('td', {}, r.role),
        el('td', { class: 'num' }, fmt(r.count)),
        el('td', { class: 'num' }, fmt(r.tokens)),
        el('td', { class: 'share' }, bar(r.tokens, total, `role-${r.role}`), ` ${share(r.tokens)}%`),
      ),
    );
  rb.append(
    el(
      'tr',
      { 'data-role': 'other', id: 'part-other' },
      el('td', {}, 'other', el('div', { class: 'part-meaning' }, view.other.meaning)),
      el('td', { class: 'num' }, '–'),
      el('td', { class: 'num' }, fmt(view.other.tokens)),
      // Negative when the messages' estimates exceed the figure: no bar, and its share brings the sum back to 100%.
      el(
        'td',
        { class: 'share' },
        ...(view.other.tokens >= 0 ? [bar(view.other.tokens, total, 'role-other')] : []),
        ` ${share(view.other.tokens)}%`,
      ),
    ),
  );
  const tf = el(
    'tfoot',
    {},
    el(
      'tr',
      { id: 'part-total' },
      el('th', {}, 'Context (the figure)'),
      el('td', { class: 'num' }, fmt(view.messages.length)),
      el('td', { class: 'num' }, fmt(view.tokens)),
      el('td', {}),
    ),
  );
  roles.append(rb, tf);
  const maxMsg = Math.max(1, ...view.messages.map((m) => m.tokens));
  const list = el('ol', { class: 'messages', id: 'context-messages' });
  view.messages.forEach((m) => {
    const open = el(
      'button',
      { type: 'button', class: 'msg-open', title: `Show entry ${m.entryId}` },
      el('span', { class: `role role-${m.role}` }, m.title),
      el('span', { class: 'preview' }, m.preview),
    );
    open.addEventListener('click', () => post({ type: 'showEntry', entryId: m.entryId }));
    list.append(
      el(
        'li',
        { 'data-entry': m.entryId },
        open,
        el('span', { class: 'tokens num' }, fmt(m.tokens)),
        bar(m.tokens, maxMsg, `role-${m.role}`),
      ),
    );
  });
  list.addEventListener('keydown', (ev) => {
    if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp') return;
    const buttons = [...list.querySelectorAll<HTMLButtonElement>('button.msg-open')];
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (at < 0) return;
    ev.preventDefault();
    buttons[Math.max(0, Math.min(buttons.length - 1, at + (ev.key === 'ArrowDown' ? 1 : -1)))].focus();
  });
  root.replaceChildren(
    header,
    el(
      'main',
      { class: 'context' },
      el('section', { class: 'section' }, el('h2', {}, 'Context along the active path'), chart(view, post)),
      el('section', { class: 'section' }, el('h2', {}, 'What the figure holds'), roles),
      el('section', { class: 'section' }, el('h2', {}, `Messages (${view.messages.length})`), list),
    ),
  );
}
