import { loadSession } from '../../engine/session/loadSession';
import type { SessionIndex } from '../../engine/session/sessionIndex';

/**
 * An index as the extension holds it. TRANSITIONAL (issue #22 item 3): the
 * tree's pages, the entry picker and the entry panel load their entries
 * asynchronously (SessionIndex.load) before rendering, and Jump Here's
 * branch is loaded a batch at a time (engine/branch/loadBranchPlan.ts); the
 * flows not yet converted (context figures, summaries, compaction runs, file
 * history, export) still read a line synchronously when they need one, so the index
 * allows it (SessionIndex.allowSyncLineReads).
 */
export function allowUnconvertedReads(index: SessionIndex): SessionIndex {
  return index.allowSyncLineReads();
}

/** Loads a session for the extension (see allowUnconvertedReads). */
export async function loadIndex(file: string): Promise<SessionIndex> {
  return allowUnconvertedReads(await loadSession(file));
}
