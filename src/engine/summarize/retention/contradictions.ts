import { outlineOf } from '../summaryOutline';
import type { SectionKey } from '../summaryHeadings';
import { findPatternsIn } from './multiMatch';
import { normalizeText, probeOf, relativizePaths } from '../../text/normalize';
import { REVERT_WORDS } from './shell';
import { clip, forEachNumber, keyWordsOf, listMarkerLength } from './text';
import type { SpanEvidence } from './facts';
import type { ContradictionKind } from './titles';

/**
 * What a summary states that its span contradicts (issue 32 item 8), beside
 * what it leaves out: an error the span resolved listed as open, blocked or
 * a next step (or as an unresolved error); a number no text of the span
 * holds (not list numbering, counts of tokens or entries, dates, or the
 * file lists and pinned blocks Arbor writes); a change said to be reverted,
 * undone or rolled back where the span undid nothing; tests said to fail
 * where the span's last run of them passed, and the reverse. One pass over
 * the summary's lines with bounded work per line (linear), whatever the
 * text (a 1 MB line, escape sequences: phrases are cut and the views escape
 * them).
 */

export type { ContradictionKind } from './titles';
export { CONTRADICTION_TITLES } from './titles';

export interface Contradiction {
  kind: ContradictionKind;
  /** The summary's words. */
  summary: string;
  /** What the span holds instead. */
  evidence: string;
  /** The entry the evidence is in, or null (a number or an undo found nowhere). */
  entryId: string | null;
}

const MAX_PER_KIND = 10;
const PHRASE_MAX = 200;
/** A line this long is read by its start only (a hostile summary's unbroken megabyte). */
const LINE_READ = 20_000;

const OPEN_SECTIONS = new Set<SectionKey>(['blocked', 'inProgress', 'nextSteps']);
const STATES_OPEN = /\b(?:unresolved|open (?:error|issue|problem)s?|still (?:fail|broken|erroring)|blocked|blocker)\b/i;
const STATES_FIXED = /\b(?:fixed|resolved|retried|succeeded|worked|now pass(?:es)?|no longer|solved|was corrected)\b/i;
/** Words after a number that make it a count of the summary's own making ("12 tokens", "and 3 more", "2 earlier ones"). */
const COUNT_WORD =
  /^\s*(?:tokens?|characters?|chars|more|earlier|older|others?|messages?|entries|entry|turns?|items?|files?|commands?|calls?|steps?|edits?)\b/i;
const NEGATED = /\b(?:not|never|no|without|don'?t|do not|didn'?t|did not|nothing|nor)\b/i;
const TEST_WORD = /\b(?:tests?|specs?|test suite|suites?|checks)\b/i;
const STATUS_WORD = /\b(?:pass(?:es|ed|ing)?|green|succeed(?:s|ed)?|fail(?:s|ed|ing|ures?)?|red|broken)\b/gi;
const ZERO_BEFORE = /(?:\b0|\bno|\bzero|\bnone|\bwithout)\s*$/i;
const ZERO_AFTER = /^\s*[:=]?\s*0\b/;
const NOT_BEFORE = /(?:\bnot|n't|\bno longer|\bnever)\s+(?:\w+\s+)?$/i;
const INTENT_BEFORE =
  /\b(?:should|to|will|would|must|make|makes|until|if|so that|expect|expected|once|whether|could|may|might)\s+(?:\w+\s+){0,3}$/i;
const PAST_FIX_BEFORE = /\b(?:fix(?:ed|es|ing)?|resolv\w*|repair\w*|previously|formerly|initially|earlier|at first|before)\b/i;

interface Line {
  raw: string;
  text: string;
  section: SectionKey | undefined;
}

/** The summary's lines a statement can be on: not headings, fences' markers, file lists or pinned blocks. */
function statementLines(summary: string): Line[] {
  const { lines, headings, inFence } = outlineOf(summary);
  const out: Line[] = [];
  let section: SectionKey | undefined;
  let block: 'files' | 'pinned' | null = null;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].length > LINE_READ ? lines[i].slice(0, LINE_READ) : lines[i];
    const trimmed = raw.trim();
    if (block === 'files') {
      if (/^<\/(?:read-files|modified-files)>$/.test(trimmed)) block = null;
      continue;
    }
    if (block === 'pinned') {
      if (trimmed === '</pinned>') block = null;
      continue;
    }
    if (!inFence[i] && /^<(?:read-files|modified-files)>$/.test(trimmed)) {
      block = 'files';
      continue;
    }
    if (!inFence[i] && trimmed.startsWith('<pinned') && trimmed.endsWith('>')) {
      block = 'pinned';
      continue;
    }
    const h = headings[i];
    if (h) {
      section = h.key;
      if (h.inline) out.push({ raw: h.inline, text: h.inline, section });
      continue;
    }
    if (!trimmed || (inFence[i] && /^\s{0,3}(?:```|~~~)/.test(raw))) continue;
    const text = raw.slice(listMarkerLength(raw)).replace(/^\[[ xX✓✔\-~/]\]\s*/, '');
    if (text.trim()) out.push({ raw: trimmed, text, section });
  }
  return out;
}

/** The sentence of `text` around position `at`. */
function sentenceAround(text: string, at: number): string {
  let start = at;
  while (start > 0 && at - start < 400 && !(/[.!?]/.test(text[start - 1]) && /\s/.test(text[start] ?? ''))) start--;
  let end = at;
  while (end < text.length && end - at < 400 && !(/[.!?]/.test(text[end]) && (end + 1 === text.length || /\s/.test(text[end + 1])))) end++;
  return text.slice(start, end + 1).trim();
}

function resolvedAsOpen(lines: readonly Line[], evidence: SpanEvidence, cwdPrefix: string): Contradiction[] {
  if (!evidence.resolvedErrors.length) return [];
  const candidates = lines
    .filter((l) => (l.section && OPEN_SECTIONS.has(l.section)) || STATES_OPEN.test(l.text))
    .filter((l) => !STATES_FIXED.test(l.text));
  if (!candidates.length) return [];
  const probes = evidence.resolvedErrors.map((e) => {
    const p = probeOf(relativizePaths(normalizeText(e.text.slice(0, 240)), cwdPrefix), 60);
    // A short probe ("exit code 1") says too little to tell which error a line means.
    return p.length >= 12 ? p : '\u0000never';
  });
  const at = findPatternsIn(
    candidates.map((l) => relativizePaths(normalizeText(l.text), cwdPrefix)),
    probes,
  );
  const out: Contradiction[] = [];
  at.forEach((line, k) => {
    if (line < 0 || out.length >= MAX_PER_KIND) return;
    const e = evidence.resolvedErrors[k];
    out.push({
      kind: 'resolvedAsOpen',
      summary: clip(candidates[line].raw, PHRASE_MAX),
      evidence: clip(`${e.what} failed ("${e.text}"); ${e.how}`, 400),
      entryId: e.entryId,
    });
  });
  return out;
}

function unsupportedNumbers(lines: readonly Line[], evidence: SpanEvidence): Contradiction[] {
  const out: Contradiction[] = [];
  const holds = (n: string) => evidence.numbers.some((s) => s.has(n));
  for (const l of lines) {
    if (out.length >= MAX_PER_KIND) break;
    const t = l.text;
    const missing: string[] = [];
    forEachNumber(t, (n, start, end) => {
      if (missing.length >= 5) return;
      // Dates, times and ranges ("2026-11-29", "19:22", "1-3"), and the summary's own counts.
      const before = t[start - 1];
      const after = t[end];
      if ((before === '-' || before === ':' || before === '/') && /\d/.test(t[start - 2] ?? '')) return;
      if ((after === '-' || after === ':' || after === '/') && /\d/.test(t[end + 1] ?? '')) return;
      if (COUNT_WORD.test(t.slice(end, end + 24))) return;
      if (!holds(n) && !missing.includes(n)) missing.push(n);
    });
    if (missing.length)
      out.push({
        kind: 'unsupportedNumber',
        summary: clip(l.raw, PHRASE_MAX),
        evidence: `no message of the span holds ${missing.map((n) => `"${n}"`).join(', ')}`,
        entryId: null,
      });
  }
  return out;
}

function reverts(lines: readonly Line[], evidence: SpanEvidence): Contradiction[] {
  if (evidence.revert) return [];
  const out: Contradiction[] = [];
  for (const l of lines) {
    if (out.length >= MAX_PER_KIND) break;
    // A rule or a step to take ("undo them if…") says nothing of what was done.
    if (l.section === 'constraints' || l.section === 'nextSteps') continue;
    const m = REVERT_WORDS.exec(l.text);
    if (!m) continue;
    const sentence = sentenceAround(l.text, m.index);
    const head = sentence.slice(0, Math.max(0, sentence.toLowerCase().indexOf(m[0].toLowerCase())));
    if (NEGATED.test(head)) continue;
    out.push({
      kind: 'reverted',
      summary: clip(sentence, PHRASE_MAX),
      evidence: 'no message of the span reverts, undoes or rolls back a change',
      entryId: null,
    });
  }
  return out;
}

/**
 * A line's prose: code spans (a command, an output quoted) and paths ("test/math.test.js", "cart.test.ts") left out,
 * so what they hold says nothing of tests. One scan of whitespace-separated words.
 */
export function proseOf(text: string): string {
  const t = text.slice(0, LINE_READ).replace(/`[^`\n]*`/g, ' ');
  const out: string[] = [];
  for (const word of t.split(/\s+/)) {
    if (!word) continue;
    const core = word.replace(/[.,;:!?)\]]+$/, '');
    if (core.includes('/') || /\.[A-Za-z][A-Za-z0-9]{0,5}$/.test(core) || core.includes('`')) continue;
    out.push(word);
  }
  return out.join(' ');
}

/** The sentences of a line, not split inside code spans ("`find . -type f`"); at most `limit`. */
function sentencesOutsideCode(line: string, limit: number): string[] {
  const out: string[] = [];
  let inCode = false;
  let from = 0;
  for (let i = 0; i < line.length && out.length < limit; i++) {
    const c = line[i];
    if (c === '`') inCode = !inCode;
    else if (!inCode && (c === '.' || c === '!' || c === '?') && (i + 1 === line.length || /\s/.test(line[i + 1]))) {
      const s = line.slice(from, i + 1).trim();
      if (s) out.push(s);
      from = i + 1;
    }
  }
  const rest = line.slice(from).trim();
  if (rest && out.length < limit) out.push(rest);
  return out;
}

/** What a sentence says of tests: 'pass', 'fail', or null (no claim; an intention or a fix of failures is none). */
export function testClaim(sentence: string): 'pass' | 'fail' | null {
  const s = proseOf(sentence.slice(0, 1000));
  if (!TEST_WORD.test(s)) return null;
  let claim: 'pass' | 'fail' | null = null;
  STATUS_WORD.lastIndex = 0;
  for (let m = STATUS_WORD.exec(s); m; m = STATUS_WORD.exec(s)) {
    const word = m[0].toLowerCase();
    const before = s.slice(Math.max(0, m.index - 40), m.index);
    const after = s.slice(m.index + m[0].length, m.index + m[0].length + 8);
    let kind: 'pass' | 'fail' = /^(?:pass|green|succeed)/.test(word) ? 'pass' : 'fail';
    if (INTENT_BEFORE.test(before)) continue;
    if (kind === 'fail') {
      if (ZERO_BEFORE.test(before) || ZERO_AFTER.test(after)) kind = 'pass';
      else if (PAST_FIX_BEFORE.test(s.slice(0, m.index))) continue;
    } else if (NOT_BEFORE.test(before)) kind = 'fail';
    claim = kind;
  }
  return claim;
}

function testsStatus(lines: readonly Line[], evidence: SpanEvidence): Contradiction[] {
  const runs = evidence.testRuns;
  if (!runs.length) return [];
  const out: Contradiction[] = [];
  for (const l of lines) {
    if (out.length >= MAX_PER_KIND) break;
    if (l.section === 'goal' || l.section === 'constraints' || l.section === 'nextSteps') continue;
    if (!TEST_WORD.test(proseOf(l.text))) continue;
    for (const sentence of sentencesOutsideCode(l.text, 20)) {
      const claim = testClaim(sentence);
      if (!claim) continue;
      // The run the sentence names (a word of its command), else the span's last run.
      const words = new Set(keyWordsOf(sentence.toLowerCase(), 24));
      const named = [...runs]
        .reverse()
        .find((r) =>
          keyWordsOf(r.command.toLowerCase(), 12).some((w) => w.length >= 4 && !/^(?:tests?|node|npm|npx|run)$/.test(w) && words.has(w)),
        );
      const run = named ?? runs[runs.length - 1];
      if ((claim === 'fail') === !run.passed) continue;
      out.push({
        kind: 'testsStatus',
        summary: clip(sentence, PHRASE_MAX),
        evidence: clip(`the span's last run of \`${run.command}\` ${run.passed ? 'passed' : 'failed'}: ${run.evidence}`, 400),
        entryId: run.entryId,
      });
      break;
    }
  }
  return out;
}

/** The contradictions of a summary with its span's evidence, by kind in the order above, each in summary order. */
export function findContradictions(summary: string, evidence: SpanEvidence, cwdPrefix: string): Contradiction[] {
  const lines = statementLines(typeof summary === 'string' ? summary : '');
  return [
    ...resolvedAsOpen(lines, evidence, cwdPrefix),
    ...unsupportedNumbers(lines, evidence),
    ...reverts(lines, evidence),
    ...testsStatus(lines, evidence),
  ];
}
