import { CLOSE_TAG, OPEN_TAG, PINNED_HEADING, unpinLabel, type PinnedEntry } from './pinFormat';

/** A pinned entry as a summary holds it (one `<pinned …>` block), for a reader. */
export type PinnedPart = PinnedEntry;

/** At most this many characters of an open tag's line are read for its attributes. */
const OPEN_TAG_MAX_CHARS = 600;

/** `name="value"` of an open tag (the writer's `attr` never puts a quote in a value). */
function tagAttribute(tag: string, name: string): string {
  const at = tag.indexOf(` ${name}="`);
  if (at < 0) return '';
  const start = at + name.length + 3;
  const end = tag.indexOf('"', start);
  return end < 0 ? '' : tag.slice(start, end);
}

/**
 * The pinned blocks of a summary's text taken out of it, for a reader (the panel, `arbor summary`, the exports):
 * each `<pinned id=… kind=… label=…>` line at a line start up to its `</pinned>` line, the `### Pinned` heading
 * right above them, and the "not shown" note after the last block. Linear: indexOf scans from where the last block ended.
 * Text that only looks like a block (no closing tag) stays in the text.
 */
export function takePinnedParts(text: string): { text: string; pins: PinnedPart[]; note: string | null } {
  if (!text.includes(OPEN_TAG)) return { text, pins: [], note: null };
  const pins: PinnedPart[] = [];
  let out = '';
  let from = 0;
  let lastEnd = -1;
  // The first closing line after a position; positions only grow, so a found one serves until passed (linear).
  let closeFound = -2;
  const closeLineAfter = (pos: number): number => {
    if (closeFound === -1 || closeFound >= pos) return closeFound;
    for (let c = text.indexOf(`\n${CLOSE_TAG}`, pos); ; c = text.indexOf(`\n${CLOSE_TAG}`, c + 1)) {
      const end = c + 1 + CLOSE_TAG.length;
      if (c < 0 || end === text.length || text.charCodeAt(end) === 0x0a || text.charCodeAt(end) === 0x0d) return (closeFound = c);
    }
  };
  for (let o = text.indexOf(OPEN_TAG); o >= 0; o = text.indexOf(OPEN_TAG, from)) {
    const lineStart = o === 0 || text.charCodeAt(o - 1) === 0x0a;
    const nl = lineStart ? text.indexOf('\n', o) : -1;
    const tagEnd = nl > o && nl - o <= OPEN_TAG_MAX_CHARS && text.charCodeAt(nl - 1) === 0x3e /* > */ ? nl - 1 : -1;
    const close = tagEnd < 0 ? -1 : closeLineAfter(tagEnd);
    if (close < 0) {
      // Not a block: keep the text up to after this `<pinned` and look further.
      out += text.slice(from, o + OPEN_TAG.length);
      from = o + OPEN_TAG.length;
      continue;
    }
    const tag = text.slice(o, tagEnd);
    pins.push({
      id: tagAttribute(tag, 'id'),
      label: tagAttribute(tag, 'label'),
      kind: tagAttribute(tag, 'kind'),
      text: text.slice(tagEnd + 2, close),
    });
    out += text.slice(from, o);
    // The part's heading right above its first block goes with the blocks.
    const before = out.trimEnd();
    if (
      before.endsWith(PINNED_HEADING) &&
      (before.length === PINNED_HEADING.length || before[before.length - PINNED_HEADING.length - 1] === '\n')
    )
      out = `${before.slice(0, before.length - PINNED_HEADING.length)}`;
    from = close + 1 + CLOSE_TAG.length;
    lastEnd = out.length;
  }
  out += text.slice(from);
  if (!pins.length) return { text, pins: [], note: null };
  // The "(N older pinned entries not shown…)" line right after the last block.
  let note: string | null = null;
  const noteStart = out.startsWith('\n(', lastEnd) ? lastEnd + 1 : -1;
  if (noteStart >= 0) {
    const nl = out.indexOf('\n', noteStart);
    const line = out.slice(noteStart, nl < 0 ? out.length : nl);
    if (line.includes('pinned') && line.includes('not shown')) {
      note = line;
      out = out.slice(0, noteStart) + out.slice(nl < 0 ? out.length : nl + 1);
    }
  }
  return { text: out, pins, note };
}

/** What a reader calls each kind of pinned entry. */
const PIN_KIND_WORDS: Record<string, string> = {
  user: 'user message',
  assistant: 'assistant reply',
  toolResult: 'tool result',
  bashExecution: 'shell command',
  custom: 'extension message',
  custom_message: 'extension message',
  branchSummary: 'branch summary',
  branch_summary: 'branch summary',
  compactionSummary: 'compaction summary',
  compaction: 'compaction summary',
};

/**
 * A pinned part as a reader shows it: its name (the label without the pin mark, empty for a bare pin), what it is
 * ("user message"), its entry and its text. The panel, `arbor summary` and the exports all show these.
 */
export interface PinnedPartView {
  id: string;
  name: string;
  what: string;
  text: string;
}

export function pinnedPartView(pin: PinnedPart): PinnedPartView {
  return { id: pin.id, name: unpinLabel(pin.label), what: PIN_KIND_WORDS[pin.kind] ?? pin.kind, text: pin.text };
}

/** One line naming a pinned part: `mul-done · user message · entry 1a2b3c4d` (plain text; each medium escapes it). */
export function pinnedPartCaption(pin: PinnedPartView): string {
  return [pin.name, pin.what, pin.id ? `entry ${pin.id}` : ''].filter(Boolean).join(' · ');
}
