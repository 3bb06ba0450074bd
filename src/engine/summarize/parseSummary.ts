import { TURN_CONTEXT_HEADING, TURN_CONTEXT_SEPARATOR } from './prompts';

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
}

type ListKey = 'goal' | 'constraints' | 'done' | 'inProgress' | 'blocked' | 'nextSteps' | 'criticalContext';
type SectionKey = ListKey | 'decisions' | 'progress';

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
  };
}

// ---------------------------------------------------------------------------
// Parsing

const SECTION_NAMES: Record<string, SectionKey> = {
  goal: 'goal',
  goals: 'goal',
  objective: 'goal',
  objectives: 'goal',
  'overall goal': 'goal',
  'constraints and preferences': 'constraints',
  'constraints preferences': 'constraints',
  constraints: 'constraints',
  preferences: 'constraints',
  requirements: 'constraints',
  'user preferences': 'constraints',
  progress: 'progress',
  done: 'done',
  completed: 'done',
  complete: 'done',
  finished: 'done',
  'in progress': 'inProgress',
  inprogress: 'inProgress',
  ongoing: 'inProgress',
  'work in progress': 'inProgress',
  wip: 'inProgress',
  'current work': 'inProgress',
  blocked: 'blocked',
  blockers: 'blocked',
  blocking: 'blocked',
  'blocked issues': 'blocked',
  'open issues': 'blocked',
  'key decisions': 'decisions',
  decisions: 'decisions',
  'decisions made': 'decisions',
  'next steps': 'nextSteps',
  'next step': 'nextSteps',
  next: 'nextSteps',
  todo: 'nextSteps',
  'to do': 'nextSteps',
  'remaining work': 'nextSteps',
  'critical context': 'criticalContext',
  'important context': 'criticalContext',
  'key context': 'criticalContext',
  context: 'criticalContext',
};

const MAIN_SECTIONS = new Set<SectionKey>(['goal', 'constraints', 'progress', 'decisions', 'nextSteps', 'criticalContext']);

/** "## Key Decisions:" / "**Next steps**" / "In-Progress" -> "key decisions", "next steps", "in progress". */
function normalizeHeading(text: string): string {
  return text
    .replace(/[*_`]/g, '')
    .replace(/\(.*?\)/g, ' ')
    .replace(/&/g, ' and ')
    .replace(/[-/]/g, ' ')
    .replace(/[:.]+\s*$/, '')
    .replace(/^\s*\d+[.)]\s*/, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

function sectionOf(headingText: string): SectionKey | undefined {
  return SECTION_NAMES[normalizeHeading(headingText)];
}

const ATX = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$/;
const ATX_EMPTY = /^ {0,3}#{1,6}[ \t]*$/;
const BOLD_LINE = /^\s*(?:\*\*|__)(.+?)(?:\*\*|__)\s*:?\s*$/;
const LABEL_LINE = /^\s*([A-Za-z][A-Za-z &/-]{1,40}):\s*(.*)$/;
const FENCE = /^\s{0,3}(```|~~~)/;
const RULE = /^\s{0,3}([-*_])(?:\s*\1){2,}\s*$/;

interface Heading {
  text: string;
  /** Text after a "Label: text" heading, kept as the section's first line. */
  inline?: string;
  /** A markdown (#) heading, as opposed to a bold line or label recognized by name. */
  atx: boolean;
}

function headingOf(line: string): Heading | undefined {
  const atx = ATX.exec(line);
  if (atx) return { text: atx[2], atx: true };
  if (ATX_EMPTY.test(line)) return { text: '', atx: true };
  const bold = BOLD_LINE.exec(line);
  if (bold && sectionOf(bold[1])) return { text: bold[1].replace(/:\s*$/, ''), atx: false };
  const label = LABEL_LINE.exec(line);
  if (label && !/^\s*[-*+•]/.test(line) && sectionOf(label[1])) {
    return { text: label[1], inline: label[2].trim() || undefined, atx: false };
  }
  return undefined;
}

const PLACEHOLDER = /^[(\[_*]*\s*(none|none yet|nothing|nothing yet|n\/?a|not applicable|no\s+\w+(\s+\w+)?\s+yet|empty|tbd|-+|—)\s*\.?\s*[)\]_*]*\.?$/i;

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
    const line = raw.replace(/\s+$/, '');
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
  const dash = /^(.{1,160}?)\s+[–—-]{1,2}\s+(.+)$/s.exec(text);
  if (dash) return { title: dash[1].trim(), rationale: dash[2].trim() };
  return { title: text.trim(), rationale: '' };
}

function fileList(body: string): string[] {
  const out: string[] = [];
  for (const raw of body.split('\n')) {
    const line = raw.trim().replace(/^[-*+•]\s+/, '').replace(/^`(.*)`$/, '$1').trim();
    if (line && !out.includes(line)) out.push(line);
  }
  return out;
}

/** Takes the `<read-files>` / `<modified-files>` blocks out of the text, wherever they are. */
function extractFileBlocks(text: string, result: ParsedSummary): string {
  const tags: [string, 'readFiles' | 'modifiedFiles'][] = [
    ['read-files', 'readFiles'],
    ['modified-files', 'modifiedFiles'],
  ];
  let rest = text;
  const take = (key: 'readFiles' | 'modifiedFiles', body: string) => {
    for (const f of fileList(body)) if (!result[key].includes(f)) result[key].push(f);
    return '';
  };
  for (const [tag, key] of tags) {
    // Closed blocks first; then an unclosed one runs to the next tag, a blank line, or the end.
    rest = rest.replace(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'gi'), (_m, body: string) => take(key, body));
    rest = rest.replace(new RegExp(`<${tag}>([\\s\\S]*?)(?=<\\/?[a-z-]+>|\\n[ \\t]*\\n|$(?![\\s\\S]))`, 'gi'), (_m, body: string) => take(key, body));
    rest = rest.replace(new RegExp(`</${tag}>`, 'gi'), '');
  }
  return rest;
}

interface Line {
  text: string;
  inFence: boolean;
}

function markFences(lines: string[]): Line[] {
  let inFence = false;
  return lines.map((text) => {
    const isFence = FENCE.test(text);
    const mark = { text, inFence: inFence || isFence };
    if (isFence) inFence = !inFence;
    return mark;
  });
}

const TURN_HEADING_NORM = normalizeHeading(TURN_CONTEXT_HEADING.replace(/^#+\s*/, ''));

function isTurnHeading(text: string): boolean {
  const n = normalizeHeading(text);
  return n === TURN_HEADING_NORM || /\bturn\b/.test(n);
}

/**
 * Finds where the split-turn part starts: a separator line followed by a
 * heading naming the turn, or by no main-section heading at all; or, without
 * a separator, Arbor's turn-context heading itself.
 */
function splitTurnContext(lines: Line[]): { body: Line[]; turn: string | null } {
  const firstHeadingAfter = (from: number): Heading | undefined => {
    for (let k = from; k < lines.length; k++) {
      if (lines[k].inFence) continue;
      const h = headingOf(lines[k].text);
      if (h) return h;
    }
    return undefined;
  };
  const hasMainHeadingAfter = (from: number): boolean => {
    for (let k = from; k < lines.length; k++) {
      if (lines[k].inFence) continue;
      const h = headingOf(lines[k].text);
      const key = h && sectionOf(h.text);
      if (key && MAIN_SECTIONS.has(key)) return true;
    }
    return false;
  };
  const turnFrom = (start: number): string | null => {
    let k = start;
    while (k < lines.length && !lines[k].text.trim()) k++;
    if (k < lines.length && !lines[k].inFence) {
      const h = headingOf(lines[k].text);
      if (h && isTurnHeading(h.text)) k++;
    }
    const text = lines.slice(k).map((l) => l.text).join('\n').trim();
    return text || null;
  };
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].inFence) continue;
    const text = lines[i].text;
    if (text.trim() === TURN_CONTEXT_SEPARATOR || RULE.test(text)) {
      const rest = lines.slice(i + 1).some((l) => l.text.trim());
      if (!rest) continue;
      const h = firstHeadingAfter(i + 1);
      if ((h && isTurnHeading(h.text)) || !hasMainHeadingAfter(i + 1)) return { body: lines.slice(0, i), turn: turnFrom(i + 1) };
    } else {
      const h = headingOf(text);
      if (h && h.atx && normalizeHeading(h.text) === TURN_HEADING_NORM) return { body: lines.slice(0, i), turn: turnFrom(i) };
    }
  }
  return { body: lines, turn: null };
}

function parseInto(markdown: string, result: ParsedSummary): void {
  let text = markdown.replace(/\r\n?/g, '\n').replace(/^\uFEFF/, '');
  text = extractFileBlocks(text, result);
  const { body, turn } = splitTurnContext(markFences(text.split('\n')));
  result.turnContext = turn;

  interface Section {
    heading: string;
    key: SectionKey | undefined;
    lines: string[];
  }
  const preamble: string[] = [];
  const sections: Section[] = [];
  let current: Section | null = null;
  for (const line of body) {
    const h = line.inFence ? undefined : headingOf(line.text);
    if (h) {
      current = { heading: h.text.trim(), key: sectionOf(h.text), lines: h.inline ? [h.inline] : [] };
      sections.push(current);
      continue;
    }
    if (current) current.lines.push(line.text);
    else preamble.push(line.text);
  }
  const pre = preamble.join('\n').trim();
  result.preamble = pre || null;

  const addAll = (key: ListKey, items: string[]) => {
    for (const item of items) if (!result[key].includes(item)) result[key].push(item);
  };
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
          const key: ListKey = item.check === ' ' ? 'inProgress' : 'done';
          if (!result[key].includes(item.text)) result[key].push(item.text);
        }
        break;
      case 'decisions':
        for (const item of items) {
          const d = decisionOf(item.text);
          if (d.title && !result.decisions.some((x) => x.title === d.title && x.rationale === d.rationale)) result.decisions.push(d);
        }
        break;
      default:
        addAll(s.key, items.map((i) => i.text));
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
  out.push('### Done', ...list(s.done, () => '- [x] '));
  out.push('### In Progress', ...list(s.inProgress, () => '- [ ] '));
  out.push('### Blocked', ...list(s.blocked, () => '- '), '');
  out.push('## Key Decisions');
  if (s.decisions.length) {
    for (const d of s.decisions) out.push(d.rationale.trim() ? `- **${oneLine(d.title)}**: ${oneLine(d.rationale)}` : `- **${oneLine(d.title)}**`);
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
