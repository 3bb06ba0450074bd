import type { SessionLayout } from './layout';
import { compactedEntries } from '../compaction/compactedSpan';

/**
 * Where the model's context starts on the active path (no vscode import):
 * the newest compaction on the path summarizes every entry before its first
 * kept entry; those entries are still in the file (and the tree) but the
 * model only sees the summary of them.
 */
export interface ContextBoundary {
  /** The active compaction entry. */
  compaction: number;
  /** The first entry kept verbatim after it (-1 when its id is not in the file). */
  firstKept: number;
  /** Entries on the active path before its first kept entry (dimmed as summarized: bookkeeping and older spans too). */
  summarizedCount: number;
  /**
   * The entries the compaction replaced, counted as the summary panel counts them (compaction/compactedSpan.ts: the
   * messages since the previous compaction's kept part, up to the first kept entry): the one "entries replaced".
   */
  replacedCount: number;
  isSummarized(index: number): boolean;
}

const cache = new WeakMap<SessionLayout, { leaf: number; count: number; boundary: ContextBoundary | undefined }>();

export function contextBoundary(layout: SessionLayout): ContextBoundary | undefined {
  const index = layout.index;
  const hit = cache.get(layout);
  if (hit && hit.leaf === layout.leafIndex && hit.count === index.entryCount) return hit.boundary;
  const boundary = compute(layout);
  cache.set(layout, { leaf: layout.leafIndex, count: index.entryCount, boundary });
  return boundary;
}

function compute(layout: SessionLayout): ContextBoundary | undefined {
  const index = layout.index;
  const main = layout.mainLine;
  let at = main.length - 1;
  while (at >= 0 && index.record(main[at]).type !== 'compaction') at--;
  if (at < 0) return undefined;
  const compaction = main[at];
  const keptId: unknown = index.entryOfType(compaction, 'compaction')?.firstKeptEntryId;
  const firstKept = typeof keptId === 'string' ? index.indexOf(keptId) : -1;
  // Summarized: the path entries before the first kept one (all before the compaction when that id is unknown).
  let end = firstKept >= 0 ? main.indexOf(firstKept) : -1;
  if (end < 0 || end > at) end = at;
  const flags = new Uint8Array(index.entryCount);
  for (let k = 0; k < end; k++) flags[main[k]] = 1;
  return {
    compaction,
    firstKept: end < at ? main[end] : -1,
    summarizedCount: end,
    replacedCount: compactedEntries(index, compaction).length,
    isSummarized: (i) => flags[i] === 1,
  };
}
