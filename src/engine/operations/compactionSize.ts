import { proposedTokensAfterWalk } from '../context/contextNumbers';
import { carriedSystemMessage } from '../context/systemMessage';
import { runEntryWalk } from '../session/entryWalkLoads';
import { estimatorByName } from '../tokens/estimators';
import type { SessionIndex } from '../session/sessionIndex';
import type { CompactionPlan } from '../compaction/planCompaction';
import type { EstimatorName } from '../tokens/estimators';

/**
 * Whether a compaction gains anything (issue 32 item 6): its summary
 * against what it replaces, both counted by the compaction's estimator; and
 * the context it leaves (the summary plus every kept message, by the one
 * "after" of context/contextNumbers.ts). A summary not smaller than what it
 * replaces is never written without the user saying so: the CLI refuses
 * without --allow-larger, the extension asks.
 */

/** Why a proposal whose summary is not smaller than what it replaces is not written, with its figures. */
export function notSmallerReason(proposal: { summaryTokens: number; replacedTokens: number }): string {
  return (
    `the summary (${proposal.summaryTokens} tokens) is not smaller than the part of the session it replaces ` +
    `(${proposal.replacedTokens} tokens)`
  );
}

/**
 * The proposal with the context it leaves (tokensAfter: the summary and every
 * kept message) and whether its summary is smaller than what it replaces
 * (the summarized messages and the checkpoint it updates, counted by the
 * same estimator as the summary, whatever usage a provider reported).
 */
export async function withSize<
  T extends {
    index: SessionIndex;
    plan: CompactionPlan;
    summary: string;
    tokensBefore: number;
    firstKeptEntryId: string;
    estimator: EstimatorName;
  },
>(
  proposal: T,
  replacedTokens: number,
  signal: AbortSignal,
): Promise<T & { tokensAfter: number; summaryTokens: number; replacedTokens: number; notSmaller: boolean }> {
  const estimator = estimatorByName(proposal.estimator);
  // The system prompt the written entry will carry counts in the "after" as it does once written (issue 34 item 4).
  const systemMessage = await carriedSystemMessage(proposal.plan.projection, signal);
  const tokensAfter = await runEntryWalk(
    proposal.index,
    proposedTokensAfterWalk({ ...proposal, projection: proposal.plan.projection, systemMessage }, estimator),
    { signal },
  );
  const summaryTokens = estimator.estimate({ role: 'compactionSummary', summary: proposal.summary, tokensBefore: proposal.tokensBefore });
  return { ...proposal, tokensAfter, summaryTokens, replacedTokens, notSmaller: summaryTokens >= replacedTokens };
}

/**
 * The context a proposal leaves with another summary text (an edit in the review panel): the kept part as the
 * proposal counted it, with the edited summary in place of its own, by the same estimator (issue 34 item 4).
 */
export function tokensAfterWithSummary(
  proposal: { tokensAfter: number; summaryTokens: number; tokensBefore: number; estimator: EstimatorName },
  summary: string,
): number {
  const edited = estimatorByName(proposal.estimator).estimate({ role: 'compactionSummary', summary, tokensBefore: proposal.tokensBefore });
  return proposal.tokensAfter - proposal.summaryTokens + edited;
}
