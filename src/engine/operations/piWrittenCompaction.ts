import type { CompactionPlan } from '../compaction/planCompaction';
import { isRecord } from '../session/jsonObject';
import type { Usage } from '../session/types';
import { recordableUsage } from '../summarize/summarizer';
import { StaleSessionError } from '../session/writeErrors';
import type { HookCompaction } from '../hooks/events';
import type { PiSummarizer } from '../livePi/piSummarizer';

/**
 * The compaction Pi's own model wrote inside Pi for this plan (issue 33 item 2), as a supplied compaction (reviewed
 * and checked like a hook's): refused when Pi's own preparation keeps from another entry than Arbor's plan.
 */
export async function piWrittenCompaction(
  summarizer: PiSummarizer,
  plan: Extract<CompactionPlan, { kind: 'plan' }>,
  customInstructions: string | undefined,
  signal: AbortSignal,
): Promise<HookCompaction> {
  const written = await summarizer.compactionSummary({ expectedLeafId: plan.leafId, customInstructions, signal });
  if (written.firstKeptEntryId !== plan.firstKeptEntryId)
    throw new StaleSessionError(
      `Pi's own preparation keeps the session from ${written.firstKeptEntryId}, Arbor's plan from ${plan.firstKeptEntryId} ` +
        "(Pi's settings or leaf changed); nothing was written; try again",
    );
  return {
    summary: written.summary,
    firstKeptEntryId: written.firstKeptEntryId,
    tokensBefore: written.tokensBefore ?? plan.tokensBefore,
    details: written.details,
    usage: isUsage(written.usage) ? written.usage : undefined,
  };
}

/** A usage record as Pi writes one (its numbers present), or not. */
export function isUsage(v: unknown): v is Usage {
  return isRecord(v) && typeof v.input === 'number' && typeof v.output === 'number' && isRecord(v.cost);
}

/** A usage Pi can add to its session totals when it writes the entry: finite numbers and a cost (Pi reads cost.total). */
export function piUsage(u: Usage | undefined): Usage | undefined {
  const r = recordableUsage(u);
  return r && r.cost ? r : undefined;
}
