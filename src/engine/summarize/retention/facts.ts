import type { PinnedEntry } from '../../compaction/pins';
import { stripPinned } from '../../compaction/pins';
import { parseSummary } from '../parseSummary';
import { callPath, isShell, sameTarget, type Extraction } from '../offline/extract';
import { clip, latest, unique } from '../offline/text';
import { RECENT_ERRORS, RECENT_IDENTIFIERS, recentCommands, recentPaths } from '../offline/recent';
import { constraintSentences, isSocial } from '../offline/userText';
import type { SpanMessage } from '../../context/messageSpan';
import { readingOf, type SpanReading } from '../spanReading';
export type { SpanMessage } from '../../context/messageSpan';

/**
 * The facts a continuation needs from a summarized span (issue 19): the
 * user's stated constraints, the open request, the errors no later step in
 * the span fixed, decisions with their reasons, the modified files, the
 * pinned entries, and the exact identifiers of the last turns (commands,
 * paths). Read once from the messages through the offline extractor (one
 * reading of a span for the summarizer and for the check); deterministic and
 * linear in the span.
 */

export type FactKind = 'constraint' | 'request' | 'error' | 'decision' | 'file' | 'pin' | 'identifier';

/** Kinds in the order a reader checks them (also the order of the report). */
export const FACT_KINDS: readonly FactKind[] = ['constraint', 'request', 'error', 'decision', 'file', 'pin', 'identifier'];

export interface Fact {
  kind: FactKind;
  /** The fact as the span states it (a constraint or request verbatim, an error's first line, a path, a command). */
  text: string;
  /** The entry it came from, or null when it has none (a file list of an earlier checkpoint). */
  entryId: string | null;
  /** A pin's kind and label (to put its block back). */
  pin?: { kind: string; label: string };
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
}

/** Longest fact text kept (a request pasted with a log is cut; the check looks at its start). */
const FACT_MAX_CHARS = 2000;

const idAt = (messages: SpanReading, i: number | undefined) => (i !== undefined ? messages.entryIdAt(i) : null);

const readingFor = (m: readonly SpanMessage[] | SpanReading, options: { cwd?: string; answers: boolean }): SpanReading =>
  Array.isArray(m) ? readingOf(m as readonly SpanMessage[], options) : (m as SpanReading);

function fromExtraction(x: Extraction, messages: SpanReading, out: Fact[]): void {
  for (const t of x.turns) {
    if (t.request)
      for (const c of constraintSentences(t.request)) out.push({ kind: 'constraint', text: c, entryId: idAt(messages, t.requestIndex) });
  }
  const open = unique(
    x.problems.filter((p) => !p.resolved),
    (p) => p.error,
  );
  for (const p of latest(open, RECENT_ERRORS)) out.push({ kind: 'error', text: p.error, entryId: idAt(messages, p.messageIndex) });
  for (const d of x.decisions) if (d.rationale) out.push({ kind: 'decision', text: d.title, entryId: idAt(messages, d.messageIndex) });
}

/** The request of the last turn when that turn has no final answer (and is not a pleasantry). */
function openRequest(x: Extraction, messages: SpanReading, always: boolean): Fact | null {
  const last = x.turns.length ? x.turns[x.turns.length - 1] : null;
  if (!last?.request || isSocial(last.request)) return null;
  if (!always && last.answer !== null) return null;
  return { kind: 'request', text: clip(last.request, FACT_MAX_CHARS), entryId: idAt(messages, last.requestIndex) };
}

/** The commands and paths of the last turns (history and turn prefix together), the newest RECENT_IDENTIFIERS of each. */
function identifiers(parts: { x: Extraction; messages: SpanReading }[], cwd: string | undefined, known: Set<string>): Fact[] {
  const turns = parts.flatMap((p) => p.x.turns);
  const idOf = new Map<string, string | null>();
  for (const p of parts) {
    for (const t of p.x.turns) {
      for (const c of t.calls) {
        const v = isShell(c.tool) ? c.target : callPath(c);
        if (v) idOf.set(isShell(c.tool) ? v : sameTarget(v, cwd), idAt(p.messages, c.messageIndex));
      }
      for (const r of t.userRuns) idOf.set(r.command.trim(), idAt(p.messages, t.requestIndex));
    }
  }
  const commands = latest(unique(recentCommands(turns)), RECENT_IDENTIFIERS);
  const paths = latest(unique(recentPaths(turns, cwd).filter((f) => !known.has(f))), RECENT_IDENTIFIERS);
  return [...commands, ...paths].map((text) => ({ kind: 'identifier' as const, text, entryId: idOf.get(text) ?? null }));
}

/** The facts of a span, deduplicated (same kind and text), in FACT_KINDS order. */
export function deriveFacts(source: FactSource): Fact[] {
  // Whether a turn was answered is all the facts read of its answer.
  const opts = { cwd: source.cwd, answers: false };
  // A span's reading is the one the summarizer was given (its extraction, with or without the answers, serves here).
  const messages = readingFor(source.messages, opts);
  const x = messages.extraction;
  const prefix = source.turnPrefix?.length ? readingFor(source.turnPrefix, opts) : null;
  const px = prefix ? prefix.extraction : null;
  const facts: Fact[] = [];
  if (source.previousSummary?.text) {
    const prev = parseSummary(stripPinned(source.previousSummary.text));
    // Older Arbor versions wrote the compaction's instructions there ("Summary focus requested: ..."): not the user's rules.
    for (const c of prev.constraints)
      if (!/^\(.*\)$/.test(c.trim()) && !c.startsWith('Summary focus requested'))
        facts.push({ kind: 'constraint', text: c, entryId: source.previousSummary.entryId });
  }
  fromExtraction(x, messages, facts);
  if (px && prefix) fromExtraction(px, prefix, facts);
  const request = px && prefix ? openRequest(px, prefix, true) : openRequest(x, messages, false);
  if (request) facts.push(request);
  const files = new Map<string, string | null>();
  for (const f of source.modifiedFiles ?? []) files.set(sameTarget(f, source.cwd), null);
  for (const [part, msgs] of [[x, messages], ...(px && prefix ? [[px, prefix] as const] : [])] as const) {
    const modified = new Set(part.filesModified);
    for (const t of part.turns) {
      for (const c of t.calls) {
        const p = callPath(c);
        if (p && modified.has(p) && c.result && !c.result.isError) {
          const rel = sameTarget(p, source.cwd);
          if (!files.get(rel)) files.set(rel, idAt(msgs, c.messageIndex));
        }
      }
    }
  }
  for (const [path, entryId] of files) if (path) facts.push({ kind: 'file', text: path, entryId });
  for (const pin of source.pinned ?? [])
    facts.push({ kind: 'pin', text: pin.text.trim(), entryId: pin.id, pin: { kind: pin.kind, label: pin.label } });
  const parts = [{ x, messages }, ...(px && prefix ? [{ x: px, messages: prefix }] : [])];
  if (source.identifiers ?? true) facts.push(...identifiers(parts, source.cwd, new Set(files.keys())));
  const rank = (k: FactKind) => FACT_KINDS.indexOf(k);
  const seen = new Set<string>();
  return facts
    .map((f, i) => ({ f: { ...f, text: f.kind === 'pin' ? f.text.slice(0, FACT_MAX_CHARS) : clip(f.text, FACT_MAX_CHARS) }, i }))
    .filter(({ f }) => {
      const key = `${f.kind}\u0000${f.text.toLowerCase()}`;
      if (!f.text || seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => rank(a.f.kind) - rank(b.f.kind) || a.i - b.i)
    .map(({ f }) => f);
}
