import { DEFAULT_CONTEXT_WINDOW } from '../summarize/providers/models';

/**
 * Spec 6 step 3, the one rule for `navigate` (CLI and extension) and `arbor plan-branch`: the tokens of
 * the branch left behind that a branch summary may read are the summarizer's context window (the model
 * that reads the branch; the default window without a summarizer) minus Pi's `branchSummary.reserveTokens`.
 */
export function branchSummaryBudget(summarizerWindow: number | undefined, reserveTokens: number): number {
  return Math.max(0, (summarizerWindow ?? DEFAULT_CONTEXT_WINDOW) - reserveTokens);
}
