import { BranchMessageWalk, branchPlanOf, locateBranch, newLeafFor, type BranchPlan, type PlanBranchOptions } from './planBranch';
import type { SessionIndex } from '../session/sessionIndex';
import type { LineReadOptions } from '../session/lineFile';

/** Entries of the branch loaded at a time (newest first), and at most this many bytes of their lines (at least one entry). */
const BATCH_ENTRIES = 256;
const BATCH_BYTES = 8 * 1024 * 1024;

/** The plan's options, and how the branch's lines are read (the signal is checked before each read). */
export interface LoadBranchPlanOptions extends PlanBranchOptions, LineReadOptions {}

/**
 * planBranch's run step (issue #22 item 3): the branch left behind, which may be most of a 1 GB session, is walked
 * newest first a batch at a time, each batch loaded (SessionIndex.load, keep: false) before the pure walk reads it
 * and dropped after; the walk stops at the budget, so the entries older than what fits are never read. Then the
 * target is loaded for the landing (a user message's text). Nothing is left pinned; the plan holds the prepared
 * messages only.
 */
export async function loadBranchPlan(index: SessionIndex, options: LoadBranchPlanOptions): Promise<BranchPlan> {
  const reads = { keep: false, signal: options.signal, open: options.open };
  const at = locateBranch(index, options);
  const walk = new BranchMessageWalk(index, at.entryIndexes, options.budget, options.estimator);
  while (!walk.done) {
    const batch = walk.nextBatch(BATCH_ENTRIES, BATCH_BYTES);
    await index.withLoaded(batch.reads, () => walk.take(batch.count), reads);
  }
  const landing = await index.withLoaded([at.targetIndex], () => newLeafFor(index, at.targetIndex), reads);
  return branchPlanOf(index, options, at, walk.result(), landing);
}
