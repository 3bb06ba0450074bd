import type { PinnedEntry } from '../../compaction/pins';
import { stripPinned } from '../../compaction/pins';
import { parseSummary } from '../parseSummary';
import type { SpanMessage } from '../../context/messageSpan';
import { readingOf, type SpanReading } from '../spanReading';
import { clip, NumberSet, relativePath } from './text';
import { REVERT_WORDS } from './shell';
import type { FactReading, ReadItem, ReadStatus, TurnStatus } from './reader';
export type { SpanMessage } from '../../context/messageSpan';

/**
 * The facts a continuation needs from a summarized span (issues 19 and 32):
 * the user's stated constraints, the open request, the status of every turn
 * that was not simply answered (aborted, cut off, refused, failed, left
 * open, a branch left behind), the results of the answered ones (the numbers
 * and short sentences of the final answers, the short outputs they point
 * at), the errors the span left open, decisions with their reasons, the
 * files writes and edits modified (not those that failed), the pinned
 * entries, and the commands and paths of the last turns. They come from the
 * check's own reading of the messages (reader.ts), never from a summarizer's,
 * with what the contradictions are told by (the errors the span resolved,
 * the last test runs, whether anything was undone, the numbers it holds).
 */

export type FactKind = 'constraint' | 'request' | 'status' | 'result' | 'error' | 'decision' | 'file' | 'pin' | 'identifier';

/** Kinds in the order a reader checks them (also the order of the report). */
export const FACT_KINDS: readonly FactKind[] = [
  'constraint',
  'request',
  'status',
  'result',
  'error',
  'decision',
  'file',
  'pin',
  'identifier',
];

export interface Fact {
  kind: FactKind;
  /** The fact as the span states it (a constraint or request verbatim, a status with its request, a result, an error's first line, a path, a command). */
  text: string;
  /** The entry it came from, or null when it has none (a file list of an earlier checkpoint). */
  entryId: string | null;
  /** A pin's kind and label (to put its block back). */
  pin?: { kind: string; label: string };
  /** A status fact's status and what it is about (the turn's request): a summary keeps it by saying both. */
  status?: TurnStatus;
  subject?: string;
}

/** What the span holds that a summary's statements are checked against (contradictions: check.ts). */
export interface SpanEvidence {
  /** Errors a later step of the span resolved (none also left open). */
  resolvedErrors: { text: string; what: string; how: string; entryId: string | null }[];
  /** The last run of each test command, oldest first. */
  testRuns: { command: string; passed: boolean; evidence: string; entryId: string | null }[];
  /** The first sign that a change was undone, or null. */
  revert: { text: string; entryId: string | null } | null;
  /** The numbers the span (and the summary it updates) holds. */
  numbers: NumberSet[];
}

/** The facts of a span, what its statements are checked against, or why it cannot be checked. */
export interface SpanFacts {
  facts: Fact[];
  evidence: SpanEvidence;
  /** Why the span cannot be checked ("the summarized span holds no messages"), or null. */
  cannotCheck: string | null;
  /** What the check says about the span it read (a Pi 0.73 branch summary checked against the branch found for it), or null. */
  note: string | null;
}

export interface FactSource {
  /**
   * The summarized messages, oldest first: in hand, or a span's reading (summarize/spanReading.ts, made as the run
   * step read the span, shared with the summarizer).
   */
  messages: readonly SpanMessage[] | SpanReading;
  /** A split turn's opening part: its request is still open (the rest of the turn is kept). */
  turnPrefix?: readonly SpanMessage[] | SpanReading;
  pinned?: readonly PinnedEntry[];
  /** The checkpoint the summary updates: its constraints still hold. */
  previousSummary?: { text: string; entryId: string | null } | null;
  /** Modified files known for the span (the file operations, earlier checkpoints' lists included). */
  modifiedFiles?: readonly string[];
  cwd?: string;
  /** Count the last turns' commands and paths (default true; a branch summary is about the line of work, not its last calls). */
  identifiers?: boolean;
  /** Why what the summary summarized cannot be read (its entries are not in the file, a foreign session): nothing is checked. */
  cannotCheck?: string;
  /** What to say about the span read (see SpanFacts.note). */
  note?: string;
  /** Numbers of texts of the span its messages leave out (a branch's tool outputs, which a branch summary is not given). */
  moreNumbers?: NumberSet;
}

/** Longest fact text kept (a request pasted with a log is cut; the check looks at its start). */
const FACT_MAX_CHARS = 2000;
/** How many of the newest commands and paths of the last turns count, and how many unresolved errors. */
const RECENT_IDENTIFIERS = 3;
const OPEN_ERRORS = 8;

export const STATUS_LABELS: Readonly<Record<TurnStatus, string>> = {
  aborted: 'Aborted',
  cutOff: 'Cut off at the output limit',
  refused: 'Refused',
  failed: 'Failed',
  open: 'Left open without an answer',
  abandoned: 'Abandoned',
};

const readingFor = (m: readonly SpanMessage[] | SpanReading, cwd: string | undefined): SpanReading =>
  Array.isArray(m) ? readingOf(m as readonly SpanMessage[], { cwd, extraction: false }) : (m as SpanReading);

const idOf = (r: SpanReading, at: number): string | null => (at >= 0 ? r.entryIdAt(at) : null);

function statusFact(r: SpanReading, s: ReadStatus): Fact {
  const text = `${STATUS_LABELS[s.status]}${s.detail ? ` (${s.detail})` : ''}: ${s.subject}`;
  return { kind: 'status', text, entryId: idOf(r, s.at), status: s.status, subject: s.subject };
}

/** The request of a part's last turn when it is open (a split turn's: always), not a pleasantry or a shell command. */
function openRequest(r: SpanReading, always: boolean): Fact | null {
  const last = r.facts.lastRequest;
  if (!last?.text || last.social || last.kind === 'bash') return null;
  if (!always && last.answered) return null;
  return { kind: 'request', text: last.text, entryId: idOf(r, last.at) };
}

function emptyEvidence(): SpanEvidence {
  return { resolvedErrors: [], testRuns: [], revert: null, numbers: [] };
}

/** Why a span with no facts cannot be checked. */
function whyNothing(parts: FactReading[]): string {
  const messages = parts.reduce((n, p) => n + p.messages, 0);
  const turns = parts.reduce((n, p) => n + p.turns, 0);
  const social = parts.reduce((n, p) => n + p.socialTurns, 0);
  const work = parts.reduce((n, p) => n + p.work, 0);
  if (messages === 0) return 'the summarized span holds no messages';
  if (turns > 0 && social === turns && work === 0) return 'the summarized span holds only pleasantries: there is nothing in it to keep';
  return 'the summarized span holds nothing the check reads (no request, result, status, error, file, constraint or decision)';
}

/** The facts of a span (deduplicated by kind and text, in FACT_KINDS order) and its evidence; or why it cannot be checked. */
export function deriveFacts(source: FactSource): SpanFacts {
  const note = source.note ?? null;
  if (source.cannotCheck) return { facts: [], evidence: emptyEvidence(), cannotCheck: source.cannotCheck, note };
  const cwd = typeof source.cwd === 'string' ? source.cwd : undefined;
  const history = readingFor(source.messages, cwd);
  const prefix = source.turnPrefix?.length ? readingFor(source.turnPrefix, cwd) : null;
  const parts = prefix ? [history, prefix] : [history];
  const facts: Fact[] = [];
  const previous = source.previousSummary?.text ? source.previousSummary : null;
  const prev = previous ? parseSummary(stripPinned(previous.text)) : null;
  if (prev && previous) {
    // Older Arbor versions wrote the compaction's instructions there ("Summary focus requested: ..."): not the user's rules.
    for (const c of prev.constraints)
      if (!/^\(.*\)$/.test(c.trim()) && !c.startsWith('Summary focus requested'))
        facts.push({ kind: 'constraint', text: c, entryId: previous.entryId });
  }
  for (const r of parts) for (const c of r.facts.constraints) facts.push({ kind: 'constraint', text: c.text, entryId: idOf(r, c.at) });
  const request = prefix ? openRequest(prefix, true) : openRequest(history, false);
  if (request) facts.push(request);
  for (const r of parts) {
    for (const s of r.facts.statuses) facts.push(statusFact(r, s));
    // The history's last turn, left open, was followed by the split turn.
    if (r === history && prefix && r.facts.lastOpen) facts.push(statusFact(r, r.facts.lastOpen));
  }
  for (const r of parts) for (const x of r.facts.results) facts.push({ kind: 'result', text: x.text, entryId: idOf(r, x.at) });
  const open = parts.flatMap((r) => r.facts.openErrors.map((e) => ({ kind: 'error' as const, text: e.error, entryId: idOf(r, e.at) })));
  facts.push(...open.slice(-OPEN_ERRORS));
  for (const r of parts) for (const d of r.facts.decisions) facts.push({ kind: 'decision', text: d.text, entryId: idOf(r, d.at) });
  // Modified files: the span's successful writes and edits, and the files known for it (earlier checkpoints' lists)
  // but those whose every write or edit in the span failed (a failed write modified nothing).
  const files = new Map<string, string | null>();
  const failedOnly = new Set(parts.flatMap((r) => r.facts.failedWrites));
  const earlier = new Set((prev?.modifiedFiles ?? []).map((f) => relativePath(f, cwd)));
  for (const r of parts) for (const m of r.facts.modified) failedOnly.delete(m.text);
  for (const f of source.modifiedFiles ?? []) {
    const rel = relativePath(String(f), cwd);
    if (rel && (!failedOnly.has(rel) || earlier.has(rel))) files.set(rel, null);
  }
  for (const r of parts) for (const m of r.facts.modified) if (!files.get(m.text)) files.set(m.text, idOf(r, m.at));
  for (const [path, entryId] of files) if (path) facts.push({ kind: 'file', text: path, entryId });
  for (const pin of source.pinned ?? [])
    facts.push({ kind: 'pin', text: pin.text.trim(), entryId: pin.id, pin: { kind: pin.kind, label: pin.label } });
  if (source.identifiers ?? true) {
    const recent = parts.flatMap((r) => r.facts.recent.map((t) => ({ r, t }))).slice(-2);
    const newest = (items: { text: string; id: string | null }[]) => {
      const seen = new Map<string, string | null>();
      for (const x of items) {
        seen.delete(x.text);
        seen.set(x.text, x.id);
      }
      return [...seen].slice(-RECENT_IDENTIFIERS);
    };
    const of = (pick: (t: FactReading['recent'][number]) => ReadItem[]) =>
      recent.flatMap(({ r, t }) => pick(t).map((x) => ({ text: x.text, id: idOf(r, x.at) })));
    for (const [text, entryId] of newest(of((t) => t.commands))) facts.push({ kind: 'identifier', text, entryId });
    for (const [text, entryId] of newest(of((t) => t.paths).filter((p) => !files.has(p.text))))
      facts.push({ kind: 'identifier', text, entryId });
  }

  const rank = (k: FactKind) => FACT_KINDS.indexOf(k);
  const seen = new Set<string>();
  const out = facts
    .map((f, i) => ({ f: { ...f, text: f.kind === 'pin' ? f.text.slice(0, FACT_MAX_CHARS) : clip(f.text, FACT_MAX_CHARS) }, i }))
    .filter(({ f }) => {
      const key = `${f.kind}\u0000${f.text.toLowerCase()}`;
      if (!f.text || seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => rank(a.f.kind) - rank(b.f.kind) || a.i - b.i)
    .map(({ f }) => f);

  const openTexts = new Set(out.filter((f) => f.kind === 'error').map((f) => f.text));
  const numbers = parts.map((r) => r.facts.numbers);
  if (source.moreNumbers) numbers.push(source.moreNumbers);
  if (previous) {
    const n = new NumberSet();
    n.addAll(previous.text);
    numbers.push(n);
  }
  const runs = new Map<string, SpanEvidence['testRuns'][number]>();
  for (const r of parts)
    for (const t of r.facts.testRuns) {
      runs.delete(t.command);
      runs.set(t.command, { command: t.command, passed: t.passed, evidence: t.evidence, entryId: idOf(r, t.at) });
    }
  const firstRevert = parts
    .map((r) => (r.facts.revert ? { text: r.facts.revert.text, entryId: idOf(r, r.facts.revert.at) } : null))
    .find((x) => x);
  const evidence: SpanEvidence = {
    resolvedErrors: parts.flatMap((r) =>
      r.facts.resolvedErrors
        .filter((e) => !openTexts.has(e.error))
        .map((e) => ({ text: e.error, what: e.what, how: e.how, entryId: idOf(r, e.at) })),
    ),
    testRuns: [...runs.values()],
    revert:
      firstRevert ??
      (previous && REVERT_WORDS.test(previous.text.slice(0, 200_000))
        ? { text: 'the summary this one updates says so', entryId: previous.entryId }
        : null),
    numbers,
  };
  return { facts: out, evidence, cannotCheck: out.length ? null : whyNothing(parts.map((r) => r.facts)), note };
}
