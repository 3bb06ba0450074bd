import { proposedTokensAfterWalk } from '../context/contextNumbers';
import { runEntryWalk } from '../session/entryWalkLoads';
import { estimatorByName } from '../tokens/estimators';
import type { SessionIndex } from '../session/sessionIndex';
import type { CompactionPlan } from '../compaction/planCompaction';
import type { EstimatorName } from '../tokens/estimators';

/**
 * Whether a compaction gains anything (issue 32 item 6): the context it
 * leaves (the summary plus every kept message, by the one "after" of
 * context/contextNumbers.ts) against the context now (the plan's
 * tokensBefore, Arbor's own figure, whatever a hook's entry claims). One that
 * is not smaller is never written without the user saying so: the CLI
 * refuses without --allow-larger, the extension asks.
 */

/** Why a proposal that does not shrink the context is not written, with its figures. */
export function notSmallerReason(proposal: { tokensBefore: number; tokensAfter: number }): string {
  return (
    `the summary would leave ${proposal.tokensAfter} tokens in the context, not fewer than the ${proposal.tokensBefore} ` +
    'there now (the part it summarizes is no larger than a summary of it)'
  );
}

/** The proposal with the context it leaves (tokensAfter) and whether that is smaller than now. */
export async function withSize<
  T extends {
    index: SessionIndex;
    plan: CompactionPlan;
    summary: string;
    tokensBefore: number;
    firstKeptEntryId: string;
    estimator: EstimatorName;
  },
>(proposal: T, signal: AbortSignal): Promise<T & { tokensAfter: number; notSmaller: boolean }> {
  const tokensAfter = await runEntryWalk(
    proposal.index,
    proposedTokensAfterWalk({ ...proposal, projection: proposal.plan.projection }, estimatorByName(proposal.estimator)),
    { signal },
  );
  return { ...proposal, tokensAfter, notSmaller: tokensAfter >= proposal.plan.tokensBefore };
}
