// Over 400 lines: the summary format's reader and writer share one model (sections, items, placeholders, file and pin blocks).
import { FENCE, RULE, TURN_CONTEXT_HEADING, TURN_CONTEXT_SEPARATOR, type ListKey, type SectionKey } from './summaryHeadings';
import { outlineOf } from './summaryOutline';
import { takePinnedParts, type PinnedPart } from '../compaction/pinnedParts';

/**
 * Reading and writing the summary format (spec 7). The parser is tolerant:
 * summaries written by models (or by other tools, or by hand) deviate from the
 * format, and reading one must never fail.
 */

export interface SummaryDecision {
  title: string;
  rationale: string;
}

export interface ParsedSummary {
  goal: string[];
  constraints: string[];
  done: string[];
  inProgress: string[];
  blocked: string[];
  decisions: SummaryDecision[];
  nextSteps: string[];
  criticalContext: string[];
  /** The split-turn part after the separator (without its heading), or null. */
  turnContext: string | null;
  readFiles: string[];
  modifiedFiles: string[];
  /** Text before the first heading (e.g. the branch note), or null. */
  preamble: string | null;
  unknownSections: { heading: string; body: string }[];
  /** The pinned entries the summary carries (its `<pinned>` blocks, compaction/pins.ts), oldest first. */
  pins: PinnedPart[];
  /** The note naming pinned entries left out over the limit, or null. */
  pinsNote: string | null;
}

export function emptySummary(): ParsedSummary {
  return {
    goal: [],
    constraints: [],
    done: [],
    inProgress: [],
    blocked: [],
    decisions: [],
    nextSteps: [],
    criticalContext: [],
    turnContext: null,
    readFiles: [],
    modifiedFiles: [],
    preamble: null,
    unknownSections: [],
    pins: [],
    pinsNote: null,
  };
}

// ---------------------------------------------------------------------------
// Parsing

/** The words of a placeholder item ("(none)", "(nothing completed yet)", "(unclear)"), brackets and emphasis around. */
const PLACEHOLDER_WORDS = [
  'none|none yet|nothing|nothing yet|nothing\\s+\\w+(\\s+\\w+)?\\s+yet|n\\/?a|not applicable',
  'no\\s+\\w+(\\s+\\w+)?\\s+yet|empty|tbd|unclear|unknown|-+|—',
].join('|');
const PLACEHOLDER = new RegExp(`^[(\\[_*]*\\s*(${PLACEHOLDER_WORDS})\\s*(?:\\.\\s*)?[)\\]_*]*\\.?$`, 'i');

function isPlaceholder(text: string): boolean {
  return !text.trim() || PLACEHOLDER.test(text.trim());
}

const BULLET = /^(\s*)(?:[-*+•]|\d{1,3}[.)])\s+(.*)$/;
const CHECKBOX = /^\[([ xX✓✔\-~/])\]\s*(.*)$/;
/** `[x]` / `[✓]` are checked; `[ ]`, `[-]`, `[~]`, `[/]` (partly done) are not. */
const checkOf = (mark: string): 'x' | ' ' => (/[xX✓✔]/.test(mark) ? 'x' : ' ');

interface Item {
  text: string;
  /** 'x' checked, ' ' unchecked, undefined: no checkbox. */
  check?: 'x' | ' ';
}

/** Turns a section body into items: bullets, numbered lines, checkboxes, or paragraphs of prose. */
function itemsOf(lines: string[]): Item[] {
  const items: Item[] = [];
  let current: Item | null = null;
  let inFence = false;
  let blankBefore = true;
  const push = (text: string, check?: 'x' | ' ') => {
    current = { text, check };
    items.push(current);
  };
  for (const raw of lines) {
    const line = raw.trimEnd();
    if (inFence) {
      if (current) (current as Item).text += `\n${line}`;
      else push(line);
      if (FENCE.test(line)) inFence = false;
      continue;
    }
    if (FENCE.test(line)) {
      inFence = true;
      if (current && !blankBefore) (current as Item).text += `\n${line.trim()}`;
      else push(line.trim());
      blankBefore = false;
      continue;
    }
    if (!line.trim()) {
      blankBefore = true;
      continue;
    }
    if (RULE.test(line)) {
      current = null;
      blankBefore = true;
      continue;
    }
    const bullet = BULLET.exec(line);
    if (bullet) {
      let text = bullet[2].trim();
      let check: 'x' | ' ' | undefined;
      const box = CHECKBOX.exec(text);
      if (box) {
        check = checkOf(box[1]);
        text = box[2].trim();
      }
      push(text, check);
      blankBefore = false;
      continue;
    }
    const box = CHECKBOX.exec(line.trim());
    if (box) {
      push(box[2].trim(), checkOf(box[1]));
      blankBefore = false;
      continue;
    }
    // Continuation of the previous item (indented, or prose without a blank line between).
    if (current && (!blankBefore || /^\s{2,}/.test(line))) (current as Item).text += ` ${line.trim()}`;
    else push(line.trim());
    blankBefore = false;
  }
  return items.map((i) => ({ ...i, text: i.text.trim() })).filter((i) => !isPlaceholder(i.text));
}

function decisionOf(text: string): SummaryDecision {
  const bold = /^(?:\*\*|__)(.+?)(?:\*\*|__)\s*(?:[:\-–—]\s*)?(.*)$/s.exec(text);
  if (bold) return { title: bold[1].replace(/:\s*$/, '').trim(), rationale: bold[2].trim() };
  const colon = /^([^:]{1,160}?):\s+(.+)$/s.exec(text);
  // Not a colon inside a code span or parentheses.
  const balanced = (t: string) => (t.split('`').length - 1) % 2 === 0 && t.split('(').length === t.split(')').length;
  if (colon && balanced(colon[1])) return { title: colon[1].trim(), rationale: colon[2].trim() };
  // The shortest title never ends in a space (items are trimmed); the spaces after it are taken whole (no backtracking).
  const dash = /^(.{0,159}?\S)(?=(\s+))\2[–—-]{1,2}\s+(.+)$/s.exec(text);
  if (dash) return { title: dash[1].trim(), rationale: dash[3].trim() };
  return { title: text.trim(), rationale: '' };
}

/** Appends to a list only what it does not hold yet (a Set beside it: `includes` on every add is quadratic). */
function uniqueAppender<T>(list: T[], keyOf: (item: T) => string): (item: T) => void {
  const seen = new Set(list.map(keyOf));
  return (item) => {
    const key = keyOf(item);
    if (seen.has(key)) return;
    seen.add(key);
    list.push(item);
  };
}

function fileList(body: string): string[] {
  const out: string[] = [];
  const add = uniqueAppender(out, (f) => f);
  for (const raw of body.split('\n')) {
    const line = raw
      .trim()
      .replace(/^[-*+•]\s+/, '')
      .replace(/^`(.*)`$/, '$1')
      .trim();
    if (line) add(line);
  }
  return out;
}

/**
 * The text with ASCII letters lowered and every offset kept, for a
 * case-insensitive tag search (toLowerCase also changes a few non-ASCII
 * letters, some into two characters or into ASCII: then only A-Z are lowered).
 */
function asciiLower(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length && !/[\u0130\u212a]/.test(text)) return lower;
  return text.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/** Where an unclosed block's body ends: the next `<tag>`/`</tag>`, blank line, or the end of the text. */
function unclosedBodyEnd(lower: string, from: number): number {
  for (let p = from; p < lower.length; p++) {
    const c = lower.charCodeAt(p);
    if (c === 0x3c /* < */) {
      let k = p + 1;
      if (lower.charCodeAt(k) === 0x2f /* / */) k++;
      const nameStart = k;
      while (k < lower.length && ((lower.charCodeAt(k) >= 0x61 && lower.charCodeAt(k) <= 0x7a) || lower.charCodeAt(k) === 0x2d)) k++;
      if (k > nameStart && lower.charCodeAt(k) === 0x3e /* > */) return p;
    } else if (c === 0x0a) {
      let k = p + 1;
      while (k < lower.length && (lower.charCodeAt(k) === 0x20 || lower.charCodeAt(k) === 0x09)) k++;
      if (lower.charCodeAt(k) === 0x0a) return p;
    }
  }
  return lower.length;
}

/**
 * Takes one kind of file block out of the text, in linear time: closed
 * blocks first; then an unclosed one runs to the next tag, a blank line, or
 * the end; then stray closing tags go. (The same as the lazy regexes
 * `<tag>([\s\S]*?)</tag>` and `<tag>([\s\S]*?)(?=<\/?[a-z-]+>|\n[ \t]*\n|$)`,
 * case-insensitive, which rescan to the end from every unclosed tag.)
 */
function takeFileBlocks(text: string, tag: string, take: (body: string) => void): string {
  const open = `<${tag}>`;
  const close = `</${tag}>`;
  // Most summaries hold no such tag: one case-insensitive search instead of lowering the text three times.
  if (!new RegExp(`</?${tag}>`, 'i').test(text)) return text;
  const cut = (source: string, blockEnd: (lower: string, bodyStart: number) => { bodyEnd: number; end: number } | undefined): string => {
    const lower = asciiLower(source);
    let out = '';
    let from = 0;
    for (let o = lower.indexOf(open); o >= 0; o = lower.indexOf(open, from)) {
      const block = blockEnd(lower, o + open.length);
      if (!block) break;
      take(source.slice(o + open.length, block.bodyEnd));
      out += source.slice(from, o);
      from = block.end;
    }
    return out + source.slice(from);
  };
  let rest = cut(text, (lower, bodyStart) => {
    const c = lower.indexOf(close, bodyStart);
    return c < 0 ? undefined : { bodyEnd: c, end: c + close.length };
  });
  rest = cut(rest, (lower, bodyStart) => {
    const end = unclosedBodyEnd(lower, bodyStart);
    return { bodyEnd: end, end };
  });
  const lower = asciiLower(rest);
  let out = '';
  let from = 0;
  for (let c = lower.indexOf(close); c >= 0; c = lower.indexOf(close, from)) {
    out += rest.slice(from, c);
    from = c + close.length;
  }
  return out + rest.slice(from);
}

/** Takes the `<read-files>` / `<modified-files>` blocks out of the text, wherever they are. */
export function extractFileBlocks(text: string, result: ParsedSummary): string {
  const tags: [string, 'readFiles' | 'modifiedFiles'][] = [
    ['read-files', 'readFiles'],
    ['modified-files', 'modifiedFiles'],
  ];
  let rest = text;
  for (const [tag, key] of tags) {
    const add = uniqueAppender(result[key], (f) => f);
    rest = takeFileBlocks(rest, tag, (body) => fileList(body).forEach(add));
  }
  return rest;
}

function parseInto(markdown: string, result: ParsedSummary): void {
  let text = markdown.replace(/\r\n?/g, '\n').replace(/^\uFEFF/, '');
  text = extractFileBlocks(text, result);
  const pinned = takePinnedParts(text);
  text = pinned.text;
  result.pins = pinned.pins;
  result.pinsNote = pinned.note;
  const outline = outlineOf(text);
  result.turnContext = outline.turn;

  interface Section {
    heading: string;
    key: SectionKey | undefined;
    lines: string[];
  }
  const preamble: string[] = [];
  const sections: Section[] = [];
  let current: Section | null = null;
  const { lines, headings } = outline;
  for (let i = 0; i < outline.bodyEnd; i++) {
    const h = headings[i];
    if (h) {
      current = { heading: h.text.trim(), key: h.key, lines: h.inline ? [h.inline] : [] };
      sections.push(current);
      continue;
    }
    if (current) current.lines.push(lines[i]);
    else preamble.push(lines[i]);
  }
  const pre = preamble.join('\n').trim();
  result.preamble = pre || null;

  const adders = new Map<ListKey, (item: string) => void>();
  const adderFor = (key: ListKey) => {
    let add = adders.get(key);
    if (!add) adders.set(key, (add = uniqueAppender(result[key], (t) => t)));
    return add;
  };
  const addDecision = uniqueAppender(result.decisions, (d) => JSON.stringify([d.title, d.rationale]));
  const addAll = (key: ListKey, items: string[]) => items.forEach(adderFor(key));
  for (const s of sections) {
    const items = itemsOf(s.lines);
    switch (s.key) {
      case undefined: {
        const lines = [...s.lines];
        // A horizontal rule closing the section is layout, not content.
        while (lines.length && (!lines[lines.length - 1].trim() || RULE.test(lines[lines.length - 1]))) lines.pop();
        const bodyText = lines.join('\n').trim();
        if (s.heading || bodyText) result.unknownSections.push({ heading: s.heading, body: bodyText });
        break;
      }
      case 'progress':
        // Items straight under "Progress": the checkbox says where they belong; plain items are done work.
        for (const item of items) {
          adderFor(item.check === ' ' ? 'inProgress' : 'done')(item.text);
        }
        break;
      case 'decisions':
        for (const item of items) {
          const d = decisionOf(item.text);
          if (d.title) addDecision(d);
        }
        break;
      default:
        addAll(
          s.key,
          // An unticked item under Done is a request that ended without being done ("[ ] … refused"): the box is kept.
          items.map((i) => (s.key === 'done' && i.check === ' ' ? `[ ] ${i.text}` : i.text)),
        );
    }
  }
}

/** Reads a summary in the spec 7 format, tolerating deviations. Never throws. */
export function parseSummary(markdown: string): ParsedSummary {
  const result = emptySummary();
  if (typeof markdown !== 'string' || !markdown.trim()) return result;
  try {
    parseInto(markdown, result);
    return result;
  } catch {
    // Defensive: a reader must never fail on a summary. Keep the text as prose.
    const fallback = emptySummary();
    fallback.preamble = markdown.trim();
    return fallback;
  }
}

// ---------------------------------------------------------------------------
// Formatting

export interface FormatSummaryOptions {
  /** Write the `## Critical Context` section (compaction summaries; not branch summaries). Default true. */
  criticalContext?: boolean;
  /** Write the `<read-files>` / `<modified-files>` blocks when the lists are not empty. Default true. */
  fileLists?: boolean;
}

const NONE = '(none)';

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/**
 * A Done item as a Markdown task line: ticked, unless the item itself starts with `[ ] ` (a request refused,
 * interrupted or left without an outcome is listed under Done unticked). The summary text, the panel, `arbor
 * summary` and the exports all write Done items through this.
 */
export function doneItemLine(item: string): string {
  return item.startsWith('[ ] ') ? `- ${item}` : `- [x] ${item}`;
}

function list(items: readonly string[], prefix: (i: number) => string): string[] {
  return items.length ? items.map((t, i) => `${prefix(i)}${oneLine(t)}`) : [NONE];
}

/**
 * Writes a summary in the spec 7 format. `parseSummary(formatSummary(s))`
 * gives `s` back for summaries whose items are single lines.
 */
export function formatSummary(summary: Partial<ParsedSummary>, options: FormatSummaryOptions = {}): string {
  const s = { ...emptySummary(), ...summary };
  const out: string[] = [];
  if (s.preamble?.trim()) out.push(s.preamble.trim(), '');
  out.push('## Goal', ...list(s.goal, () => '- '), '');
  out.push('## Constraints & Preferences', ...list(s.constraints, () => '- '), '');
  out.push('## Progress');
  out.push('### Done', ...(s.done.length ? s.done.map((t) => doneItemLine(oneLine(t))) : [NONE]));
  out.push('### In Progress', ...list(s.inProgress, () => '- [ ] '));
  out.push('### Blocked', ...list(s.blocked, () => '- '), '');
  out.push('## Key Decisions');
  if (s.decisions.length) {
    for (const d of s.decisions)
      out.push(d.rationale.trim() ? `- **${oneLine(d.title)}**: ${oneLine(d.rationale)}` : `- **${oneLine(d.title)}**`);
  } else out.push(NONE);
  out.push('');
  out.push('## Next Steps', ...list(s.nextSteps, (i) => `${i + 1}. `));
  if (options.criticalContext ?? true) out.push('', '## Critical Context', ...list(s.criticalContext, () => '- '));
  for (const u of s.unknownSections) {
    out.push('', `## ${u.heading.replace(/^#+\s*/, '')}`);
    if (u.body.trim()) out.push(u.body.trim());
  }
  let text = out.join('\n');
  if (s.turnContext?.trim()) text += `\n\n${TURN_CONTEXT_SEPARATOR}\n\n${TURN_CONTEXT_HEADING}\n\n${s.turnContext.trim()}`;
  if (options.fileLists ?? true) {
    const blocks: string[] = [];
    if (s.readFiles.length) blocks.push(`<read-files>\n${s.readFiles.join('\n')}\n</read-files>`);
    if (s.modifiedFiles.length) blocks.push(`<modified-files>\n${s.modifiedFiles.join('\n')}\n</modified-files>`);
    if (blocks.length) text += `\n\n${blocks.join('\n\n')}`;
  }
  return text;
}
