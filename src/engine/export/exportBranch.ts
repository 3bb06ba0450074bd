import type { SessionIndex } from '../session/sessionIndex';
import type { SessionEntry } from '../session/types';
import { describeEntry, type EntryDescription, type EntryPart } from './entryParts';
import { escapeHtml, visibleControls } from './controls';
import { mdBody, mdCode, mdInline } from './markdownText';
import { markdownHtml } from './markdownHtml';
import { summaryForReader } from '../summarize/summaryForReader';
import { pinnedPartCaption, pinnedPartView } from '../compaction/pinnedParts';
import { PIN_EMOJI } from '../compaction/pinFormat';

/**
 * Export Branch: the entries on the path from the root to a leaf as a
 * Markdown document or a self-contained HTML page. Pure (no I/O): the CLI
 * and the extension write the string where the user asked.
 *
 * Messages (what the user and the assistant wrote, thinking, summaries)
 * read as the Markdown they are; tool calls, outputs and shell runs are
 * code. Every piece of session text is hostile: in HTML it is escaped, its
 * Markdown rendered through a closed set of tags (markdownHtml.ts; the page
 * has no script and a CSP that loads nothing); in Markdown, message text is
 * made safe by mdBody (no raw HTML, image or heading from the session, a
 * fence left open closed) and code sits in fences longer than any backtick
 * run it holds; in both, control and bidi characters (terminal escapes,
 * U+202E) are shown as visible `\u{…}` text.
 */

export type ExportFormat = 'md' | 'html';

export interface ExportOptions {
  format: ExportFormat;
  /** The leaf whose branch to export (default: the session's current leaf). */
  leafId?: string;
  /** Shown as the document title (default: the session id). */
  title?: string;
  signal?: AbortSignal;
}

export interface ExportedEntry {
  id: string;
  line: number;
  timestamp: string;
  label: string | undefined;
  description: EntryDescription;
}

/** Entry types that are bookkeeping, not conversation: left out of an export. */
const SKIPPED = new Set(['label', 'custom', 'session_info', 'usage']);

/** Entries parsed at a time while exporting: their bodies are dropped after rendering, so memory holds one batch, not the branch. */
const BATCH = 256;

function leafIndexOf(index: SessionIndex, leafId?: string): number {
  if (leafId === undefined) return index.leafIndex;
  const leaf = index.indexOf(leafId);
  if (leaf < 0) throw new Error(`entry ${leafId} is not in ${index.file}`);
  return leaf;
}

/** The branch's exported entry indexes, root first (bookkeeping left out by record type, no parsing). */
function exportedPath(index: SessionIndex, leafId?: string): number[] {
  const leaf = leafIndexOf(index, leafId);
  return leaf < 0 ? [] : index.pathTo(leaf).filter((i) => !SKIPPED.has(index.record(i).type));
}

/**
 * The entries of one branch, root first, a batch loaded at a time (SessionIndex.load: the lines of a streamed session
 * read in file order, asynchronously) and dropped after. Throws when the leaf id is not in the session.
 */
export async function* branchEntryStream(
  index: SessionIndex,
  path: readonly number[],
  signal?: AbortSignal,
): AsyncGenerator<ExportedEntry> {
  const labels = index.labels();
  for (let at = 0; at < path.length; at += BATCH) {
    const batch = path.slice(at, at + BATCH);
    const lease = await index.load(batch, { keep: false, signal });
    try {
      for (const i of batch) {
        signal?.throwIfAborted();
        const rec = index.record(i);
        const e: SessionEntry = index.entry(i);
        yield {
          id: rec.id,
          line: rec.line,
          timestamp: typeof e.timestamp === 'string' ? e.timestamp : '',
          label: labels.get(rec.id),
          description: describeEntry(e),
        };
      }
    } finally {
      lease.release();
    }
  }
}

/** The entries of one branch, root first. Throws when the leaf id is not in the session. */
export async function branchEntries(index: SessionIndex, leafId?: string, signal?: AbortSignal): Promise<ExportedEntry[]> {
  return collect(branchEntryStream(index, exportedPath(index, leafId), signal));
}

export { escapeHtml, visibleControls } from './controls';
export { mdInline } from './markdownText';

/** A fenced block that `text` cannot close: longer than the longest backtick run in it. */
export function mdFence(text: string, lang = ''): string {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === 96) {
      run++;
      if (run > longest) longest = run;
    } else run = 0;
  }
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${visibleControls(text)}\n${fence}`;
}

function partTitle(p: EntryPart): string | undefined {
  switch (p.kind) {
    case 'thinking':
      return 'Thinking';
    case 'toolCall':
      return `Tool call: ${p.name}${p.id ? ` (${p.id})` : ''}`;
    case 'toolResult':
      return `${p.isError ? 'Tool error' : 'Tool result'}${p.toolName ? `: ${p.toolName}` : ''}`;
    case 'bash':
      return `Shell${p.exitCode !== undefined && p.exitCode !== null ? ` (exit ${p.exitCode})` : ''}`;
    case 'custom':
      return `Custom message: ${p.customType}`;
    case 'summary':
      return p.summaryKind === 'compaction' ? 'Compaction summary' : 'Branch summary';
    default:
      return undefined;
  }
}

function partBody(p: EntryPart): { text: string; lang: string } {
  switch (p.kind) {
    case 'toolCall':
      return { text: p.args, lang: 'json' };
    case 'image':
      return { text: `[image: ${p.mimeType}, ${p.bytes.toLocaleString('en-US')} bytes]`, lang: '' };
    case 'bash':
      return { text: `$ ${p.command}\n${p.output}`, lang: '' };
    default:
      return { text: p.text, lang: '' };
  }
}

function heading(e: ExportedEntry, n: number): string {
  const bits = [`${n}. ${e.description.title}`];
  if (e.description.model) bits.push(e.description.model);
  if (e.timestamp) bits.push(e.timestamp);
  return bits.join(' · ');
}

interface ExportMeta {
  title: string;
  file: string;
  leafId: string | null;
}

function markdownHead(meta: ExportMeta, count: number): string[] {
  return [
    `# ${mdInline(meta.title)}`,
    '',
    `- Session file: ${mdCode(meta.file)}`,
    `- Leaf: ${meta.leafId ? mdCode(meta.leafId) : '(none)'}`,
    `- Entries: ${count}`,
    '',
  ];
}

/** A part that is Markdown the session wrote (a message, thinking, a summary), not code or output. */
const isProse = (p: EntryPart): p is Extract<EntryPart, { kind: 'text' | 'thinking' | 'custom' | 'summary' }> =>
  p.kind === 'text' || p.kind === 'thinking' || p.kind === 'custom' || p.kind === 'summary';

/** A summary in Markdown: its text, its pins (icon, name, what, entry, the text quoted), its file lists. */
function markdownSummary(text: string): string[] {
  const r = summaryForReader(text);
  const out = r.body ? [mdBody(r.body), ''] : [];
  if (r.pins.length || r.pinsNote) {
    out.push(`**${PIN_EMOJI} Pinned**`, '');
    for (const p of r.pins.map(pinnedPartView))
      out.push(`- ${PIN_EMOJI} ${mdInline(pinnedPartCaption(p))}`, '', quoted(mdBody(p.text), '  '), '');
    if (r.pinsNote) out.push(mdInline(r.pinsNote), '');
  }
  for (const [title, files] of [
    ['Read files', r.readFiles],
    ['Modified files', r.modifiedFiles],
  ] as const)
    if (files.length) out.push(`**${title}**`, '', ...files.map((f) => `- ${mdCode(f)}`), '');
  return out;
}

/** Each line of `md` as a block quote (indented by `indent`, to sit in a list item). */
function quoted(md: string, indent = ''): string {
  return md
    .split('\n')
    .map((l) => `${indent}>${l ? ` ${l}` : ''}`)
    .join('\n');
}

function markdownEntry(e: ExportedEntry, n: number): string[] {
  const out = [
    `## ${mdInline(heading(e, n))}`,
    '',
    `Entry ${mdCode(e.id)} · line ${e.line}${e.label ? ` · label ${mdInline(e.label)}` : ''}`,
    '',
  ];
  for (const p of e.description.parts) {
    const title = partTitle(p);
    if (title) out.push(`**${mdInline(title)}**`, '');
    if (p.kind === 'summary') out.push(...markdownSummary(p.text));
    else if (p.kind === 'thinking') out.push(quoted(mdBody(p.text)), '');
    else if (isProse(p)) out.push(mdBody(p.text), '');
    else {
      const body = partBody(p);
      out.push(mdFence(body.text, body.lang), '');
    }
  }
  return out;
}

export function renderMarkdown(entries: ExportedEntry[], meta: ExportMeta): string {
  return renderWhole('md', entries, meta);
}

const STYLE = [
  '',
  ':root { color-scheme: light dark; --fg: #1f2328; --bg: #ffffff; --muted: #59636e; --border: #d1d9e0; ' +
    '--code: #f6f8fa; --accent: #0969da; --err: #cf222e; }',
  '@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; ' +
    '--border: #3d444d; --code: #151b23; --accent: #4493f8; --err: #f85149; } }',
  'body { font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif, "Apple Color Emoji", "Segoe UI Emoji", ' +
    '"Noto Color Emoji"; color: var(--fg); ' +
    'background: var(--bg); max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }',
  'h1 { font-size: 1.5rem; margin-bottom: .25rem; overflow-wrap: anywhere; }',
  '.meta { color: var(--muted); font-size: .85rem; overflow-wrap: anywhere; }',
  'article { border: 1px solid var(--border); border-radius: 6px; margin: 1rem 0; padding: .5rem 1rem; }',
  'article > h2 { font-size: 1rem; margin: .25rem 0; overflow-wrap: anywhere; }',
  'article.user { border-left: 4px solid var(--accent); }',
  'h3 { font-size: .85rem; margin: .75rem 0 .25rem; color: var(--muted); }',
  'pre { background: var(--code); padding: .5rem .75rem; border-radius: 4px; white-space: pre-wrap; ' +
    'overflow-wrap: anywhere; margin: .25rem 0; ' +
    'font: 12.5px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }',
  '.error h3 { color: var(--err); }',
  '.md > :first-child { margin-top: .25rem; } .md code { background: var(--code); padding: 0 .25rem; border-radius: 3px; ' +
    'font: 12.5px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; } .md pre code { padding: 0; }',
  '.md h3, .md h4, .md h5, .md h6, h4 { font-size: .95rem; color: var(--fg); margin: .75rem 0 .25rem; }',
  'blockquote { margin: .25rem 0; padding: 0 .75rem; border-left: 3px solid var(--border); color: var(--muted); }',
  'ul.tasks { list-style: none; padding-left: 1rem; } li.task.checked::before { content: "\\2611  "; } ' +
    'li.task.open::before { content: "\\2610  "; }',
  'ul.pins { list-style: none; padding: 0; } li.pin { border: 1px solid var(--border); border-left: 3px solid var(--err); ' +
    'border-radius: 4px; padding: .25rem .75rem; margin: .5rem 0; } .pin-head { font-weight: 600; margin: .25rem 0; }',
  'table { border-collapse: collapse; } th, td { border: 1px solid var(--border); padding: .2rem .5rem; }',
  'details > summary { cursor: pointer; color: var(--muted); }',
  '',
].join('\n');

function htmlHead(meta: ExportMeta, count: number): string[] {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(meta.title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>${escapeHtml(meta.title)}</h1>`,
    `<p class="meta">${escapeHtml(meta.file)} · leaf ${escapeHtml(meta.leafId ?? '(none)')} · ${count} entries</p>`,
  ];
}

/** A summary in HTML: its text rendered, its pins as cards, its file lists. */
function htmlSummary(text: string): string {
  const r = summaryForReader(text);
  let out = r.body ? `<div class="md">${markdownHtml(r.body, 2)}</div>` : '';
  if (r.pins.length || r.pinsNote) {
    out += `<h4>${PIN_EMOJI} Pinned</h4><ul class="pins">`;
    for (const p of r.pins.map(pinnedPartView))
      out += `<li class="pin"><p class="pin-head">${PIN_EMOJI} ${escapeHtml(pinnedPartCaption(p))}</p><div class="md">${markdownHtml(p.text, 3)}</div></li>`;
    out += '</ul>';
    if (r.pinsNote) out += `<p class="meta">${escapeHtml(r.pinsNote)}</p>`;
  }
  for (const [title, files] of [
    ['Read files', r.readFiles],
    ['Modified files', r.modifiedFiles],
  ] as const)
    if (files.length)
      out += `<h4>${title}</h4><ul class="files">${files.map((f) => `<li><code>${escapeHtml(f)}</code></li>`).join('')}</ul>`;
  return out;
}

function htmlEntry(e: ExportedEntry, n: number): string[] {
  const out = [
    `<article class="${escapeHtml(e.description.role)}">`,
    `<h2>${escapeHtml(heading(e, n))}</h2>`,
    `<p class="meta">entry ${escapeHtml(e.id)} · line ${e.line}${e.label ? ` · label ${escapeHtml(e.label)}` : ''}</p>`,
  ];
  for (const p of e.description.parts) {
    const title = partTitle(p);
    const cls = p.kind === 'toolResult' && p.isError ? ' class="error"' : '';
    const block =
      p.kind === 'summary'
        ? htmlSummary(p.text)
        : isProse(p)
          ? `<div class="md">${markdownHtml(p.text, 2)}</div>`
          : `<pre>${escapeHtml(partBody(p).text)}</pre>`;
    if (p.kind === 'thinking') out.push(`<details><summary>${escapeHtml(title!)}</summary>${block}</details>`);
    else out.push(`<section${cls}>${title ? `<h3>${escapeHtml(title)}</h3>` : ''}${block}</section>`);
  }
  out.push('</article>');
  return out;
}

export function renderHtml(entries: ExportedEntry[], meta: ExportMeta): string {
  return renderWhole('html', entries, meta);
}

/** The document of entries in memory, in one string (the pieces of renderPieces, joined). */
function renderWhole(format: ExportFormat, entries: readonly ExportedEntry[], meta: ExportMeta): string {
  return [headPiece(format, meta, entries.length), ...entries.map((e, k) => entryPiece(format, e, k + 1)), endPiece(format)].join('');
}

/*
 * The document as pieces: the head, then one piece per entry, then the end;
 * joined they are the whole document (lines joined by "\n"). A piece is at
 * most one entry's rendering, so no string holds the whole document.
 */
const headPiece = (format: ExportFormat, meta: ExportMeta, count: number) =>
  (format === 'md' ? markdownHead(meta, count) : htmlHead(meta, count)).join('\n');
const entryPiece = (format: ExportFormat, e: ExportedEntry, n: number) =>
  `\n${(format === 'md' ? markdownEntry(e, n) : htmlEntry(e, n)).join('\n')}`;
const endPiece = (format: ExportFormat) => (format === 'md' ? '' : `\n${['</body>', '</html>', ''].join('\n')}`);

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function* renderPieces(
  format: ExportFormat,
  entries: AsyncIterable<ExportedEntry>,
  meta: ExportMeta,
  count: number,
): AsyncGenerator<string> {
  yield headPiece(format, meta, count);
  let n = 0;
  for await (const e of entries) yield entryPiece(format, e, ++n);
  const end = endPiece(format);
  if (end) yield end;
}

/** The branch ending at `options.leafId` (or the current leaf) as a sequence of pieces (see renderPieces), entries loaded a batch at a time. */
export function exportPieces(index: SessionIndex, options: ExportOptions): AsyncGenerator<string> {
  const path = exportedPath(index, options.leafId);
  const leafId = options.leafId ?? index.leafId;
  const meta = { title: options.title ?? `Pi session ${index.header.id ?? ''}`.trim(), file: index.file, leafId };
  return renderPieces(options.format, branchEntryStream(index, path, options.signal), meta, path.length);
}

/** The branch ending at `options.leafId` (or the current leaf) as one document (small sessions; exportPieces for any size). */
export async function exportBranch(index: SessionIndex, options: ExportOptions): Promise<string> {
  return (await collect(exportPieces(index, options))).join('');
}
