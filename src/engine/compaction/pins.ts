import type { Projection } from '../context/projection';
import type { SessionEntry } from '../session/types';
import { messageRole, textOfContent } from '../session/contentBlocks';
import { entryTypeOf } from '../session/entryKinds';
import { entryRead, type EntryWalk } from '../session/entryWalk';

/**
 * Pinned entries (issue 9): an entry whose current label is a pin is carried
 * verbatim into every later compaction summary, as the "Pinned" part of
 * Critical Context, until the label is removed (the latest label entry for
 * the target wins, as everywhere in Arbor and Pi).
 *
 * A label is a pin when, trimmed and compared case-insensitively, it is
 * `pin` or `pinned`, starts with `pin:`, or starts with 📌.
 *
 * Pure: no I/O (what it reads is loaded by the walk's driver). Linear in the text sizes (indexOf scans only).
 */

export { PIN_EMOJI, PINNED_HEADING, isPinLabel, pinLabel, unpinLabel, type PinnedEntry } from './pinFormat';
import { CLOSE_TAG, OPEN_TAG, PINNED_HEADING, isPinLabel, type PinnedEntry } from './pinFormat';

/** At most this many characters of one pinned entry's text, and of all of them together. */
export const PIN_TEXT_MAX_CHARS = 1500;
export const PINNED_TOTAL_MAX_CHARS = 3000;

/** The text of an entry as it is pinned. */
export function pinnedText(entry: SessionEntry): { kind: string; text: string } {
  const e = entry;
  if (e.type === 'message' && e.message && typeof e.message === 'object') {
    const m = e.message;
    const role = String(messageRole(m));
    if (m.role === 'bashExecution') return { kind: role, text: `$ ${String(m.command ?? '')}\n${String(m.output ?? '')}`.trim() };
    if (m.role === 'branchSummary' || m.role === 'compactionSummary') return { kind: role, text: String(m.summary ?? '') };
    return { kind: role, text: textOfContent(m.content) };
  }
  if (e.type === 'custom_message') return { kind: 'custom_message', text: textOfContent(e.content) };
  if (e.type === 'branch_summary' || e.type === 'compaction') return { kind: e.type, text: typeof e.summary === 'string' ? e.summary : '' };
  return { kind: entryTypeOf(e), text: '' };
}

/**
 * The pinned entries on the projection's path before `beforeEntryIndex` (the
 * first kept entry: pins in the kept part are still in the context word for
 * word), oldest first. A walk (session/entryWalk.ts): it reads the pinned entries.
 */
export function* collectPins(p: Projection, beforeEntryIndex: number): EntryWalk<PinnedEntry[]> {
  const pinnedIds: [string, string][] = [];
  for (const [target, label] of p.index.labels()) if (isPinLabel(label)) pinnedIds.push([target, label]);
  if (!pinnedIds.length) return [];
  const pathPos = new Map<number, number>();
  for (let i = 0; i < p.path.length; i++) pathPos.set(p.path[i], i);
  const limit = pathPos.get(beforeEntryIndex) ?? p.path.length;
  const found: { pos: number; pin: PinnedEntry }[] = [];
  for (const [id, label] of pinnedIds) {
    const i = p.index.indexOf(id);
    const pos = i >= 0 ? pathPos.get(i) : undefined;
    if (pos === undefined || pos >= limit) continue;
    yield entryRead([i], 0, 1);
    const { kind, text } = pinnedText(p.index.entry(i));
    if (!text.trim()) continue;
    found.push({ pos, pin: { id, label, kind, text } });
  }
  return found.sort((a, b) => a.pos - b.pos).map((f) => f.pin);
}

function attr(value: string): string {
  let out = '';
  for (const ch of value) out += ch === '"' || ch === '<' || ch === '>' || ch === '\n' || ch === '\r' ? "'" : ch;
  return out.length > 80 ? `${out.slice(0, 79)}…` : out;
}

function cutText(text: string, max: number, id: string): string {
  if (text.length <= max) return text;
  const note = (more: number) => `\n[pinned text cut here: ${more} more characters; the whole text is entry ${id}]`;
  // The note is counted in `max` (its length is bounded: the id is at most ATTR_MAX_CHARS in the tag, and here too).
  let end = Math.max(0, max - note(text.length).length);
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return `${text.slice(0, end)}${note(text.length - end)}`;
}

/** At most this many characters in the note naming the pinned entries left out (ids beyond it are counted, not listed). */
export const PINNED_NOTE_MAX_CHARS = 400;
/** The whole Pinned part is at most this long: its heading, the tagged entries (PINNED_TOTAL_MAX_CHARS in all) and the note. */
export const PINNED_BLOCK_MAX_CHARS = PINNED_HEADING.length + 1 + PINNED_TOTAL_MAX_CHARS + 1 + PINNED_NOTE_MAX_CHARS;
/** Below this much room left, no further pin is written (it is named in the note). */
const PIN_MIN_ROOM = 200;

/** The note naming the pins left out: ids while they fit in PINNED_NOTE_MAX_CHARS, then how many more. */
function leftOutNote(ids: readonly string[]): string {
  const n = ids.length;
  const head = `(${n} older pinned ${n === 1 ? 'entry' : 'entries'} not shown, over the pinned-text limit: `;
  const tail = (more: number) => (more ? ` and ${more} more)` : ')');
  let listed = '';
  let k = 0;
  for (; k < n; k++) {
    const next = `${listed}${k ? ', ' : ''}${attr(ids[k])}`;
    if (head.length + next.length + tail(n - k - 1).length > PINNED_NOTE_MAX_CHARS) break;
    listed = next;
  }
  return `${head}${listed}${tail(n - k)}`;
}

/**
 * The "Pinned" part of Critical Context: a heading, then each pinned entry
 * verbatim inside `<pinned>` tags. Bounded: each text at most
 * PIN_TEXT_MAX_CHARS, all together (tags and cut notes included) at most
 * PINNED_TOTAL_MAX_CHARS, with a visible note (at most PINNED_NOTE_MAX_CHARS)
 * for what was left out: the whole part is at most PINNED_BLOCK_MAX_CHARS
 * whatever the number of pins. Empty string without pins.
 */
export function formatPinnedBlock(pins: readonly PinnedEntry[]): string {
  if (!pins.length) return '';
  let used = 0;
  const left: string[] = [];
  // The newest pins are kept first when not all fit; they are written oldest first.
  const kept: string[] = [];
  for (let k = pins.length - 1; k >= 0; k--) {
    const pin = pins[k];
    const open = `${OPEN_TAG} id="${attr(pin.id)}" kind="${attr(pin.kind)}" label="${attr(pin.label)}">\n`;
    const frame = open.length + 1 + CLOSE_TAG.length + 1; // the tags, and the line break joining it to the next part
    const room = Math.min(PIN_TEXT_MAX_CHARS, PINNED_TOTAL_MAX_CHARS - used - frame);
    if (room < PIN_MIN_ROOM) {
      left.push(pin.id);
      continue;
    }
    const text = cutText(pin.text.trim(), room, attr(pin.id));
    used += text.length + frame;
    kept.push(`${open}${text}\n${CLOSE_TAG}`);
  }
  const parts: string[] = [PINNED_HEADING, ...kept.reverse()];
  if (left.length) parts.push(leftOutNote(left.reverse()));
  return parts.join('\n');
}

/** [start, end) of a Pinned part in a summary, or null. */
function pinnedRange(summary: string): [number, number] | null {
  let start = summary.startsWith(`${PINNED_HEADING}\n`) ? 0 : summary.indexOf(`\n${PINNED_HEADING}\n`);
  if (start < 0) {
    if (summary.endsWith(`\n${PINNED_HEADING}`)) start = summary.length - PINNED_HEADING.length - 1;
    else return null;
  }
  const lastClose = summary.lastIndexOf(CLOSE_TAG);
  let end = lastClose > start ? lastClose + CLOSE_TAG.length : start + PINNED_HEADING.length + 1;
  // A "not shown" note line right after the last entry belongs to the part.
  if (summary.startsWith('\n(', end)) {
    const nl = summary.indexOf('\n', end + 1);
    const line = summary.slice(end + 1, nl < 0 ? summary.length : nl);
    if (line.includes('pinned')) end = nl < 0 ? summary.length : nl;
  }
  return [start, Math.min(end, summary.length)];
}

/** The summary without its Pinned part (pins are re-collected from the labels at every compaction). */
export function stripPinned(summary: string): string {
  const r = pinnedRange(summary);
  if (!r) return summary;
  return (summary.slice(0, r[0]).trimEnd() + '\n' + summary.slice(r[1]).replace(/^\n+/, '\n')).trimEnd();
}

/**
 * Arbor's guarantee: the summary text (the history part, before the file
 * lists and any turn context) holds the pinned block exactly. Keeps a model's
 * answer that copied it; otherwise drops whatever Pinned part it wrote and
 * appends the block at the end of Critical Context.
 */
export function ensurePinned(summary: string, block: string): string {
  if (!block) return pinnedRange(summary) ? stripPinned(summary) : summary;
  if (summary.includes(block)) return summary;
  const base = stripPinned(summary).trimEnd();
  const hasCritical = base.includes('\n## Critical Context') || base.startsWith('## Critical Context');
  return `${base}${base ? '\n\n' : ''}${hasCritical ? '' : '## Critical Context\n\n'}${block}`;
}

/** Where the file-list blocks a summary ends with begin (`<read-files>`, `<modified-files>`: at most one of each), or -1. */
function trailingFileBlocks(summary: string): number {
  let start = -1;
  let body = summary.trimEnd();
  for (let round = 0; round < 2; round++) {
    const kind = ['read-files', 'modified-files'].find((k) => body.endsWith(`</${k}>`));
    if (!kind) break;
    const open = body.lastIndexOf(`<${kind}>\n`);
    if (open < 0) break;
    start = open;
    body = body.slice(0, open).trimEnd();
  }
  return start;
}

/**
 * ensurePinned for a summary that already ends with its file lists (one Pi wrote): the Pinned part goes into the
 * summary's body, before the lists, which stay last.
 */
export function ensurePinnedBeforeFileLists(summary: string, block: string): string {
  const at = trailingFileBlocks(summary);
  const body = at < 0 ? summary : summary.slice(0, at).trimEnd();
  const tail = at < 0 ? '' : `\n\n${summary.slice(at)}`;
  // A split turn's summary (Pi's form): the history, then the turn's context; pins belong to the history.
  const turn = body.indexOf(PI_TURN_CONTEXT);
  if (turn < 0) return ensurePinned(body, block) + tail;
  return ensurePinned(body.slice(0, turn).trimEnd(), block) + body.slice(turn) + tail;
}

/** Where Pi's split-turn summary starts the turn's part. */
const PI_TURN_CONTEXT = '\n\n---\n\n**Turn Context (split turn):**';
