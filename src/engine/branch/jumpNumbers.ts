import { Projection } from '../context/projection';
import { projectedContextTokensWalk } from '../context/contextTokens';
import { countEntryTokens } from '../context/entryTokens';
import type { TokenEstimator } from '../tokens/estimators';
import type { SessionIndex } from '../session/sessionIndex';
import type { BranchSummaryEntry } from '../session/types';
import { summarizedBranch } from './summarizedBranch';
import type { EntryWalk } from '../session/entryWalk';

/**
 * The before and after of a jump with a branch summary (issue 34 item 2), one way for a proposal and for the
 * entry once written, so the review panel and the written summary's panel show the same figures:
 * - before: the context at the leaf the jump leaves (the projected context tokens of context/contextTokens.ts);
 * - after: the context with the branch summary as the leaf: the context at the entry the jump lands on plus what
 *   the summary entry adds (the one per-entry count, entryTokens.ts). For a written summary this is the context
 *   at the entry itself, which the same walk counts the same way.
 */
export interface JumpNumbers {
  tokensBefore: number;
  tokensAfter: number;
  /** What the branch summary itself adds to the context. */
  summaryTokens: number;
}

/** Context tokens with `leafIndex` as the leaf (0 before the first entry). */
function* contextAt(index: SessionIndex, leafIndex: number, estimator: TokenEstimator): EntryWalk<number> {
  if (leafIndex < 0) return 0;
  return (yield* projectedContextTokensWalk(new Projection(index, leafIndex), estimator)).tokens;
}

/** The figures of a branch summary not written yet: leaving `fromIndex`, landing on `newLeafIndex`, with `summary`. */
export function* proposedJumpNumbersWalk(
  index: SessionIndex,
  jump: { fromIndex: number; newLeafIndex: number; summary: string },
  estimator: TokenEstimator,
): EntryWalk<JumpNumbers> {
  const tokensBefore = yield* contextAt(index, jump.fromIndex, estimator);
  const landing = yield* contextAt(index, jump.newLeafIndex, estimator);
  const summaryTokens = summaryEntryTokens(jump.summary, estimator);
  return { tokensBefore, tokensAfter: landing + summaryTokens, summaryTokens };
}

/** The figures of the branch summary entry at `entryIndex` (undefined before when the leaf it left is not known). */
export function* writtenJumpNumbersWalk(
  index: SessionIndex,
  entryIndex: number,
  estimator: TokenEstimator,
): EntryWalk<{ tokensBefore: number | undefined; tokensAfter: number }> {
  const left = summarizedBranch(index, entryIndex).leafIndex;
  const tokensBefore = left >= 0 ? yield* contextAt(index, left, estimator) : undefined;
  const tokensAfter = yield* contextAt(index, entryIndex, estimator);
  return { tokensBefore, tokensAfter };
}

/**
 * The after of a proposed jump whose summary is edited to `summary` (the review panel follows an edit, as Compact's
 * review does): the landing's context, which the text does not change, plus what the edited text adds.
 */
export function jumpTokensAfterWithSummary(numbers: JumpNumbers, summary: string, estimator: TokenEstimator): number {
  return numbers.tokensAfter - numbers.summaryTokens + summaryEntryTokens(summary, estimator);
}

/** What a branch summary with this text adds to the context (the count its entry will have once written). */
export function summaryEntryTokens(summary: string, estimator: TokenEstimator): number {
  const entry: BranchSummaryEntry = { type: 'branch_summary', id: '', parentId: null, timestamp: '', summary, fromId: '' };
  return countEntryTokens(entry, estimator);
}
