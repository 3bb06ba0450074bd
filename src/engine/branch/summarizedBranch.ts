import { collectBranchEntries } from './planBranch';
import type { SessionIndex } from '../session/sessionIndex';

/**
 * What a branch summary entry already in a file summarized (the one home of this span): the entries of the
 * branch it left, from its fromId back to the common ancestor with the summary's parent (none when the
 * fromId is not in the file). The summary panel lists them; `arbor check-summary` and the panel's retention
 * checklist read their messages (engine/summarize/retention/spans.ts).
 */
export function summarizedBranchEntries(index: SessionIndex, i: number): number[] {
  const e = index.entryOfType(i, 'branch_summary');
  const from = index.indexOf(String(e?.fromId ?? ''));
  const parent = index.parentIndex(i);
  return from >= 0 ? collectBranchEntries(index, from, parent >= 0 ? parent : i).entryIndexes : [];
}
