import { collectBranchEntries } from './planBranch';
import type { SessionIndex } from '../session/sessionIndex';

/**
 * What a branch summary entry already in a file summarized (the one home of this span): the entries of the
 * branch it left, from the leaf it was left from back to the common ancestor with the summary's parent. The
 * summary panel lists them; `arbor check-summary` and the panel's retention checklist read their messages
 * (engine/summarize/retention/spans.ts).
 *
 * Pi 1.6 writes that leaf as `fromId`. Pi 0.73.1 wrote the branch point there (the entry's own parentId, or
 * "root"), which Pi 1.6 never does (a summary's parent is where the jump landed, and a branch left from there
 * would be empty). For such an entry the leaf is found in the tree: the leaf, as the file stood when the summary
 * was written, of the branches under the branch point other than the summary's own; of several, the one written
 * just before the summary (Pi moves its leaf to each entry it appends). Otherwise the branch is not known.
 */
export interface SummarizedBranch {
  /** The branch's entries, oldest first (none when it is not known). */
  entries: number[];
  /** The leaf the branch was left from, or -1. */
  leafIndex: number;
  /** Pi 0.73's fromId (the branch point): the leaf was found in the tree. */
  fromBranchPoint: boolean;
  /** Why the branch is not known (fromId not in the file, a Pi 0.73 branch point with several branches), or null. */
  unknown: string | null;
}

export function summarizedBranch(index: SessionIndex, i: number): SummarizedBranch {
  const none = (unknown: string | null, fromBranchPoint = false): SummarizedBranch => ({
    entries: [],
    leafIndex: -1,
    fromBranchPoint,
    unknown,
  });
  const e = index.entryOfType(i, 'branch_summary');
  if (!e) return none('the entry is not a branch summary');
  const fromId = String(e.fromId ?? '');
  const parent = index.parentIndex(i);
  const parentId = parent >= 0 ? index.record(parent).id : null;
  const target = parent >= 0 ? parent : i;
  if (fromId !== '' && (fromId === parentId || (parent < 0 && fromId === 'root' && !index.has('root')))) {
    const found = leafLeftAt(index, i, parent);
    if (typeof found === 'string') return none(found, true);
    return { entries: collectBranchEntries(index, found, target).entryIndexes, leafIndex: found, fromBranchPoint: true, unknown: null };
  }
  const from = index.indexOf(fromId);
  if (from < 0) return none(`its fromId ${JSON.stringify(fromId.slice(0, 80))} is not an entry of this file`);
  return { entries: collectBranchEntries(index, from, target).entryIndexes, leafIndex: from, fromBranchPoint: false, unknown: null };
}

/** The entries of the branch the summary at `i` left (see summarizedBranch; none when it is not known). */
export function summarizedBranchEntries(index: SessionIndex, i: number): number[] {
  return summarizedBranch(index, i).entries;
}

/** The leaf left from when the summary at `i` (written by Pi 0.73 with its branch point as fromId) was written, or why it is not known. */
function leafLeftAt(index: SessionIndex, i: number, branchPoint: number): number | string {
  const where = branchPoint >= 0 ? `the branch point ${index.record(branchPoint).id}` : 'the root';
  const starts = (branchPoint >= 0 ? index.children(branchPoint) : index.roots()).filter((c) => c !== i && c < i);
  const leaves: number[] = [];
  const stack = [...starts];
  while (stack.length) {
    const x = stack.pop()!;
    let child = false;
    const n = index.childCount(x);
    for (let k = 0; k < n; k++) {
      const c = index.childAt(x, k);
      if (c < i) {
        child = true;
        stack.push(c);
      }
    }
    if (!child) leaves.push(x);
  }
  if (!leaves.length) return `Pi 0.73 wrote ${where} as its fromId, and no branch under it was written before the summary`;
  if (leaves.length === 1) return leaves[0];
  let newest = leaves[0];
  for (const x of leaves) if (x > newest) newest = x;
  if (newest === i - 1) return newest;
  return `Pi 0.73 wrote ${where} as its fromId, and ${leaves.length} branches under it could be the one it summarized`;
}
