/** Heading that opens the turn-context part of a split-turn compaction summary. */
export const TURN_CONTEXT_HEADING = '## Where the Current Turn Began';

/** The line between the history summary and the turn-context part. */
export const TURN_CONTEXT_SEPARATOR = '---';

/**
 * Recognizing the headings of a summary (spec 7): markdown (#) headings,
 * and bold lines or "Label:" lines that name a known section. Each heading
 * is normalized once ("## Key Decisions:" -> "key decisions") and mapped to
 * its section. Every function here is linear in its line.
 */

export type ListKey = 'goal' | 'constraints' | 'done' | 'inProgress' | 'blocked' | 'nextSteps' | 'criticalContext';
export type SectionKey = ListKey | 'decisions' | 'progress';

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

export const MAIN_SECTIONS = new Set<SectionKey>(['goal', 'constraints', 'progress', 'decisions', 'nextSteps', 'criticalContext']);

const isLineTerminator = (c: number) => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;

/** `text.replace(/\(.*?\)/g, ' ')` in linear time (the regex rescans to the end from every unclosed '('). */
function replaceParenthesized(text: string): string {
  let out = '';
  let from = 0;
  let i = text.indexOf('(');
  while (i >= 0) {
    const close = text.indexOf(')', i + 1);
    if (close < 0) break;
    let stop = -1;
    for (let k = i + 1; k < close; k++) {
      if (isLineTerminator(text.charCodeAt(k))) {
        stop = k;
        break;
      }
    }
    if (stop < 0) {
      out += `${text.slice(from, i)} `;
      from = close + 1;
      i = text.indexOf('(', from);
    } else i = text.indexOf('(', stop + 1); // no '(' before a line break reaches this ')'
  }
  return out + text.slice(from);
}

/** `text.replace(/[:.]+\s*$/, '')` in linear time (the regex retries from every ':' of a long run). */
function stripTrailingColons(text: string): string {
  const trimmed = text.trimEnd();
  let end = trimmed.length;
  while (end > 0 && (trimmed[end - 1] === ':' || trimmed[end - 1] === '.')) end--;
  return end < trimmed.length ? trimmed.slice(0, end) : text;
}

/** "## Key Decisions:" / "**Next steps**" / "In-Progress" -> "key decisions", "next steps", "in progress". */
function normalizeHeading(text: string): string {
  return stripTrailingColons(replaceParenthesized(text.replace(/[*_`]/g, '')).replace(/&/g, ' and ').replace(/[-/]/g, ' '))
    .replace(/^\s*\d+[.)]\s*/, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/** The opening of an ATX heading; its text is the rest without a closing `[ \t]*#*[ \t]*` (see atxText). */
const ATX_OPEN = /^ {0,3}#{1,6}[ \t]+/;
const ATX_EMPTY = /^ {0,3}#{1,6}[ \t]*$/;
const BOLD_LINE = /^\s*(?:\*\*|__)(.+?)(?:\*\*|__)\s*(?::\s*)?$/;
const LABEL_LINE = /^\s*([A-Za-z][A-Za-z &/-]{1,40}):\s*(.*)$/;
export const FENCE = /^\s{0,3}(```|~~~)/;
export const RULE = /^\s{0,3}([-*_])(?:\s*\1){2,}\s*$/;

export interface Heading {
  text: string;
  /** The heading text normalized (see normalizeHeading), and the section it names, computed once. */
  norm: string;
  key: SectionKey | undefined;
  /** Text after a "Label: text" heading, kept as the section's first line. */
  inline?: string;
  /** A markdown (#) heading, as opposed to a bold line or label recognized by name. */
  atx: boolean;
}

const isBlank = (c: string) => c === ' ' || c === '\t';

/**
 * The text of an ATX heading line (what `/^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$/`
 * captures, without its backtracking: quadratic on long runs of spaces).
 */
function atxText(line: string): string | undefined {
  const open = ATX_OPEN.exec(line);
  if (!open) return undefined;
  let end = line.length;
  while (end > open[0].length && isBlank(line[end - 1])) end--;
  while (end > open[0].length && line[end - 1] === '#') end--;
  while (end > open[0].length && isBlank(line[end - 1])) end--;
  for (let k = open[0].length; k < end; k++) if (isLineTerminator(line.charCodeAt(k))) return undefined;
  return line.slice(open[0].length, end);
}

export function headingOf(line: string): Heading | undefined {
  const atx = atxText(line);
  if (atx !== undefined) return named(atx, true);
  if (ATX_EMPTY.test(line)) return named('', true);
  // A bold line or a label is a heading only when it names a known section (a trailing colon changes no name).
  const bold = BOLD_LINE.exec(line);
  const boldHeading = bold && named(bold[1].replace(/:\s*$/, ''), false);
  if (boldHeading?.key) return boldHeading;
  const label = LABEL_LINE.exec(line);
  if (label && !/^\s*[-*+•]/.test(line)) {
    const h = named(label[1], false);
    if (h.key) return { ...h, inline: label[2].trim() || undefined };
  }
  return undefined;
}

/** Normalized heading texts, for headings repeated many times (bounded: cleared when full). */
const normalized = new Map<string, string>();

function named(text: string, atx: boolean): Heading {
  let norm = normalized.get(text);
  if (norm === undefined) {
    norm = normalizeHeading(text);
    if (normalized.size >= 1024) normalized.clear();
    if (text.length <= 256) normalized.set(text, norm);
  }
  return { text, atx, norm, key: SECTION_NAMES[norm] };
}

export const TURN_HEADING_NORM = normalizeHeading(TURN_CONTEXT_HEADING.replace(/^#+\s*/, ''));

/** A heading that names the split turn's part (Arbor's heading, or any heading with the word "turn"). */
export function isTurnHeading(h: Heading): boolean {
  return h.norm === TURN_HEADING_NORM || /\bturn\b/.test(h.norm);
}
