import { findPatterns } from './multiMatch';
import { normalizeText, normalizedCwd, probeOf, relativizePaths } from '../../text/normalize';
import { anyOf, forEachNumber, keyWordsOf, wordSet } from './text';
import { outlineOf } from '../summaryOutline';
import type { SectionKey } from '../summaryHeadings';
import type { Fact, SpanFacts } from './facts';
import type { TurnStatus } from './reader';
import { findContradictions, type Contradiction } from './contradictions';

/**
 * Which facts a summary keeps, and what it states that the span contradicts
 * (contradictions.ts). Names (a constraint, the open request, an error, a
 * decision, a file, a pin, an identifier) are kept when the fact's
 * normalized start (up to 60 characters, at a word end) occurs in the
 * normalized summary: case, whitespace, quotes/backticks/emphasis and `./`
 * or cwd-absolute paths do not matter; words do. A result is kept when the
 * summary holds every number of it and at least half of its words; a status
 * when one line of the summary says it (an abort, a cut, a refusal, a
 * failure, an open request, a branch left behind) about the turn it is of
 * (one of its request's words), or, for a turn left open, lists that request
 * as in progress, blocked or next. All facts are searched in one pass over
 * the summary (linear in the summary plus the facts, however many).
 */

export interface RetentionReport {
  kept: Fact[];
  missing: Fact[];
  /** What the summary states that the span contradicts (empty when the check was given bare facts). */
  contradictions: Contradiction[];
  /** Why the span cannot be checked: then nothing is kept or missing. Null when it was checked. */
  cannotCheck: string | null;
}

export interface CheckOptions {
  /** The session's cwd: an absolute path under it is the same as the relative one. */
  cwd?: string;
}

/** Longest probe (keeps the matcher's per-position work bounded). */
const PROBE_MAX = 60;
/** How much of a line a status is looked for in. */
const LINE_READ = 4000;

export function factProbe(fact: Fact, cwdPrefix: string): string {
  return probeOf(
    relativizePaths(normalizeText(fact.text.length > 4 * PROBE_MAX ? fact.text.slice(0, 4 * PROBE_MAX) : fact.text), cwdPrefix),
    PROBE_MAX,
  );
}

/** How a summary line says each status. */
const STATUS_CUES: Readonly<Record<TurnStatus, RegExp>> = {
  aborted: /\b(?:abort|cancel|interrupt|stopped|halted|killed)/,
  cutOff:
    /\b(?:cut off|cut short|truncat|length limit|output limit|token limit|max(?:imum)?[ -]?tokens|ran out|incomplete|unfinished|partial)/,
  refused: /\b(?:refus|declin|content ?filter|filtered|blocked|policy|safety|would not|wouldnt|wont|cannot help|cant help)/,
  failed: /\b(?:fail|error|overload|unavailable|timed ?out|time ?out|crash|no answer|did not (?:answer|respond))/,
  open: anyOf(
    [
      'open',
      'pending',
      'unanswered',
      'unfinished',
      'not (?:yet )?(?:done|answered|finished|addressed)',
      'in progress',
      'left',
      'still',
      'todo',
    ].concat(['to do', 'waiting', 'next', 'remain', 'outstanding']),
    '',
    '\\b',
  ),
  abandoned:
    /\b(?:abandon|explor|alternative|other branch|different branch|another branch|went back|returned|dropped|discard|instead|left behind|branch)/,
};
const OPEN_SECTIONS = new Set<SectionKey>(['inProgress', 'blocked', 'nextSteps']);

const isSpanFacts = (f: readonly Fact[] | SpanFacts): f is SpanFacts => !Array.isArray(f);

const STATUS_BITS: Readonly<Record<TurnStatus, number>> = { aborted: 1, cutOff: 2, refused: 4, failed: 8, open: 16, abandoned: 32 };
/** A line in a section that lists open work (In Progress, Blocked, Next Steps): it says "open" of what it names. */
const OPEN_SECTION_BIT = 64;

interface SummaryIndex {
  normalized: string;
  words: Set<string>;
  numbers: Set<string>;
  /** For each word of a line that says a status, the statuses such lines say (STATUS_BITS); and all those said. */
  statusWords: Map<string, number>;
  statusesSaid: number;
}

function indexSummary(summary: string, cwd: string): SummaryIndex {
  const normalized = relativizePaths(normalizeText(summary), cwd);
  const numbers = new Set<string>();
  forEachNumber(summary, (n) => numbers.add(n));
  const { lines, headings, inFence } = outlineOf(summary);
  const statusWords = new Map<string, number>();
  let statusesSaid = 0;
  let section: SectionKey | undefined;
  for (let i = 0; i < lines.length; i++) {
    const h = headings[i];
    if (h) section = h.key;
    const raw = h ? (h.inline ?? '') : lines[i];
    if (!raw.trim() || (inFence[i] && !h && /^\s{0,3}(?:```|~~~)/.test(raw))) continue;
    const line = relativizePaths(normalizeText(raw.length > LINE_READ ? raw.slice(0, LINE_READ) : raw), cwd);
    let bits = section && OPEN_SECTIONS.has(section) ? OPEN_SECTION_BIT : 0;
    for (const status of Object.keys(STATUS_CUES) as TurnStatus[]) if (STATUS_CUES[status].test(line)) bits |= STATUS_BITS[status];
    if (!bits) continue;
    statusesSaid |= bits;
    for (const w of wordSet(line)) statusWords.set(w, (statusWords.get(w) ?? 0) | bits);
  }
  return { normalized, words: wordSet(normalized), numbers, statusWords, statusesSaid };
}

/** Whether the summary keeps a result: all its numbers, and half of its words (or its start, when it has neither). */
function keepsResult(f: Fact, s: SummaryIndex, cwd: string, probeFound: boolean): boolean {
  const numbers: string[] = [];
  forEachNumber(f.text, (n) => numbers.push(n));
  const words = keyWordsOf(relativizePaths(normalizeText(f.text), cwd), 12);
  if (!numbers.length && !words.length) return probeFound;
  if (!numbers.every((n) => s.numbers.has(n))) return false;
  const found = words.filter((w) => s.words.has(w)).length;
  return found * 2 >= words.length;
}

/** Whether one line of the summary says the status about its turn (one of the words of its request). */
function keepsStatus(f: Fact, s: SummaryIndex, cwd: string): boolean {
  const status = f.status ?? 'open';
  const want = STATUS_BITS[status] | (status === 'open' ? OPEN_SECTION_BIT : 0);
  const words = keyWordsOf(relativizePaths(normalizeText(f.subject ?? f.text), cwd), 8);
  if (!words.length) return (s.statusesSaid & want) !== 0;
  return words.some((w) => ((s.statusWords.get(w) ?? 0) & want) !== 0);
}

/**
 * The check of `summary` against a span's facts (deriveFacts: with its evidence, contradictions are reported too;
 * a span that cannot be checked says why) or bare facts.
 */
export function checkRetention(summary: string, facts: readonly Fact[] | SpanFacts, options: CheckOptions = {}): RetentionReport {
  const spanFacts = isSpanFacts(facts) ? facts : null;
  if (spanFacts?.cannotCheck) return { kept: [], missing: [], contradictions: [], cannotCheck: spanFacts.cannotCheck };
  const list = spanFacts ? spanFacts.facts : (facts as readonly Fact[]);
  if (!list.length && !spanFacts) return { kept: [], missing: [], contradictions: [], cannotCheck: 'there are no facts to check' };
  const cwd = normalizedCwd(options.cwd);
  const text = typeof summary === 'string' ? summary : '';
  const index = indexSummary(text, cwd);
  const found = findPatterns(
    index.normalized,
    list.map((f) => factProbe(f, cwd)),
  );
  const kept: Fact[] = [];
  const missing: Fact[] = [];
  list.forEach((f, i) => {
    const keeps =
      f.kind === 'result' ? keepsResult(f, index, cwd, found[i]) : f.kind === 'status' ? found[i] || keepsStatus(f, index, cwd) : found[i];
    (keeps ? kept : missing).push(f);
  });
  const contradictions = spanFacts ? findContradictions(text, spanFacts.evidence, cwd) : [];
  return { kept, missing, contradictions, cannotCheck: null };
}
