import type { SessionIndex } from '../session/sessionIndex';

/**
 * The one rule for "the summary of a session" (`arbor summary`/`check-summary` without --entry, the
 * extension's Show Summary on a session and the panel that follows the active session): the newest
 * compaction or branch summary on the path to the leaf. A summary on another branch is not part of the
 * conversation the leaf continues, so it is never taken in its place.
 */

/** True for a compaction or a branch summary entry. */
export function isSummaryEntry(index: SessionIndex, i: number): boolean {
  if (i < 0 || i >= index.entryCount) return false;
  const type = index.record(i).type;
  return type === 'compaction' || type === 'branch_summary';
}

/** The newest summary entry on the path to `leafIndex` (default: the session's leaf), or -1 when it holds none. */
export function latestSummaryOnPath(index: SessionIndex, leafIndex: number = index.leafIndex): number {
  if (leafIndex < 0) return -1;
  const path = index.pathTo(leafIndex);
  for (let k = path.length - 1; k >= 0; k--) if (isSummaryEntry(index, path[k])) return path[k];
  return -1;
}

/** The newest summary entry anywhere in the file (for a message that points at it), or -1. */
export function newestSummaryInFile(index: SessionIndex): number {
  for (let i = index.entryCount - 1; i >= 0; i--) if (isSummaryEntry(index, i)) return i;
  return -1;
}
