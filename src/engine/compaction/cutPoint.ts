import { projectedEntryTokensWalk } from '../context/entryTokens';
import type { EntryWalk } from '../session/entryWalk';
import type { Projection } from '../context/projection';
import type { TokenEstimator } from '../tokens/estimators';

/** Roles a kept range may start at. Never a tool result: it must stay with its call. */
const CUT_POINT_ROLES = new Set(['user', 'assistant', 'bashExecution', 'custom', 'branchSummary', 'compactionSummary']);
/** Roles that begin a turn. */
const TURN_START_ROLES = new Set(['user', 'bashExecution', 'custom', 'branchSummary', 'compactionSummary']);

export interface CutPoint {
  /** Projected position of the first kept entry. */
  firstKeptPos: number;
  /** Projected position where the split turn starts, or -1. */
  turnStartPos: number;
  isSplitTurn: boolean;
}

function isCompaction(p: Projection, pos: number): boolean {
  return p.index.record(p.entries[pos]).type === 'compaction';
}

export function isCutPointAt(p: Projection, pos: number): boolean {
  return !isCompaction(p, pos) && p.roles(pos).some((r) => CUT_POINT_ROLES.has(r));
}

export function isTurnStartAt(p: Projection, pos: number): boolean {
  return !isCompaction(p, pos) && p.roles(pos).some((r) => TURN_START_ROLES.has(r));
}

/** Whether an entry shows in the context when no edit hides it. */
function isIntrinsicallyVisible(p: Projection, pos: number): boolean {
  const rec = p.index.record(p.entries[pos]);
  if (rec.type === 'context_edit') return false;
  if (rec.type === 'message' || rec.type === 'custom_message' || rec.type === 'compaction') return true;
  if (rec.type === 'branch_summary') {
    const s: unknown = p.index.entryOfType(p.entries[pos], 'branch_summary')?.summary;
    return typeof s === 'string' && s.length > 0;
  }
  return false;
}

/**
 * Spec 4.2-4.3 on the projected entries in [start, end): walk back from the
 * newest entry summing what each adds to the context; once the sum reaches
 * keepRecentTokens cut at the nearest valid cut point at or after that entry
 * (or, when only trailing tool results are left, the last valid cut point).
 * A trailing attempt that a context edit removed is not worth keeping alone.
 * Then step back over entries that add nothing, and decide if a turn is split.
 * A walk (session/entryWalk.ts): it reads the entries it counts, newest first.
 */
export function* findCutPoint(
  p: Projection,
  start: number,
  end: number,
  keepRecentTokens: number,
  estimator: TokenEstimator,
): EntryWalk<CutPoint> {
  // The cut points are looked for where needed (no list of them: on a 1 GB span it would hold 5e5 positions).
  const first = nextCutPoint(p, start, end);
  if (first < 0) return { firstKeptPos: start, turnStartPos: -1, isSplitTurn: false };

  let cut = first;
  let exceeded = false;
  let sum = 0;
  for (let pos = end - 1; pos >= start; pos--) {
    if (p.roles(pos).length === 0) continue;
    const tokens = yield* projectedEntryTokensWalk(p, pos, estimator, -1);
    if (tokens === 0) continue;
    sum += tokens;
    if (sum >= keepRecentTokens) {
      exceeded = true;
      const next = nextCutPoint(p, pos, end);
      cut = next >= 0 ? next : lastCutPoint(p, start, end);
      break;
    }
  }

  if (exceeded && isRecoveryOmissionSuffix(p, cut + 1, end)) cut++;

  while (cut > start) {
    const prev = cut - 1;
    if (isCompaction(p, prev) || p.roles(prev).length > 0) break;
    cut--;
  }

  const startsTurn = isTurnStartAt(p, cut);
  let turnStart = -1;
  if (!startsTurn) {
    for (let pos = cut; pos >= start; pos--) {
      if (isTurnStartAt(p, pos)) {
        turnStart = pos;
        break;
      }
    }
  }
  return { firstKeptPos: cut, turnStartPos: turnStart, isSplitTurn: !startsTurn && turnStart !== -1 };
}

/** The first valid cut point in [from, end), or -1. */
function nextCutPoint(p: Projection, from: number, end: number): number {
  for (let pos = from; pos < end; pos++) if (isCutPointAt(p, pos)) return pos;
  return -1;
}

/** The last valid cut point in [start, end), or -1. */
function lastCutPoint(p: Projection, start: number, end: number): number {
  for (let pos = end - 1; pos >= start; pos--) if (isCutPointAt(p, pos)) return pos;
  return -1;
}

/** Everything after the cut is a failed assistant attempt that an edit omitted, plus metadata. */
function isRecoveryOmissionSuffix(p: Projection, from: number, end: number): boolean {
  if (from >= end) return false;
  const omitted = new Set<string>();
  const isOmitted = (pos: number) => isIntrinsicallyVisible(p, pos) && p.roles(pos).length === 0;
  for (let pos = from; pos < end; pos++) if (isOmitted(pos)) omitted.add(p.index.record(p.entries[pos]).id);
  let omittedAssistant = false;
  for (let pos = from; pos < end; pos++) {
    const rec = p.index.record(p.entries[pos]);
    if (rec.type === 'context_edit') {
      const edit = p.index.entryOfType(p.entries[pos], 'context_edit');
      if (edit && edit.replacement !== null && edit.replacement !== undefined && !omitted.has(String(edit.targetId))) return false;
    }
    if (rec.type === 'compaction') return false;
    if (isIntrinsicallyVisible(p, pos) && !isOmitted(pos)) return false;
    if (rec.type === 'message' && rec.role === 'assistant' && isOmitted(pos)) omittedAssistant = true;
  }
  return omittedAssistant;
}
