import type { SessionIndex } from '../session/sessionIndex';
import { entryContextMessages } from './entryMessages';
import type { TokenEstimator } from '../tokens/estimators';
import { usageTotal, validUsage } from './contextTokens';
import { entryRead, walkInMemory, type EntryWalk } from '../session/entryWalk';

export interface SeriesPoint {
  entryIndex: number;
  /** Context tokens right after this entry (provider usage where reported, estimates in between). */
  tokens: number;
  marker?: 'compaction' | 'branch_summary';
}

/**
 * Context size along the path from the root to `leafIndex`, one point per
 * entry that changes the context: an assistant message with valid usage
 * sets it to the provider's count (as the status bar does), other messages
 * add their estimate, a compaction restarts from its summary plus the
 * entries it keeps. Linear in the path length. An approximation between
 * reports (bash output excluded from the context, context edits and system
 * prompts are not modelled): the status bar's exact number for the leaf
 * comes from contextUse. Its entries must be in memory; the context panel
 * walks contextSeriesWalk through runEntryWalk (the path a batch at a time).
 */
export function contextSeries(index: SessionIndex, leafIndex: number, estimator: TokenEstimator, signal?: AbortSignal): SeriesPoint[] {
  return walkInMemory(contextSeriesWalk(index, leafIndex, estimator, signal));
}

/** contextSeries as a walk (session/entryWalk.ts): every entry of the path, root first. */
export function* contextSeriesWalk(
  index: SessionIndex,
  leafIndex: number,
  estimator: TokenEstimator,
  signal?: AbortSignal,
): EntryWalk<SeriesPoint[]> {
  if (leafIndex < 0) return [];
  const path = index.pathTo(leafIndex);
  const points: SeriesPoint[] = [];
  // Estimated tokens of each entry's message on the path, and their prefix sums (for a compaction's kept part).
  const prefix = new Float64Array(path.length + 1);
  const position = new Map<string, number>();
  let tokens = 0;
  for (let k = 0; k < path.length; k++) {
    const i = path[k];
    if (k % 1024 === 0) signal?.throwIfAborted();
    yield entryRead(path, k, 1);
    const e = index.entry(i);
    position.set(e.id, k);
    const messages = entryContextMessages(e);
    if (!messages.length) {
      prefix[k + 1] = prefix[k];
      continue;
    }
    let own = 0;
    for (const m of messages) own += estimator.estimate(m);
    prefix[k + 1] = prefix[k] + (e.type === 'compaction' ? 0 : own);
    if (e.type === 'compaction') {
      const first = position.get(String(e.firstKeptEntryId));
      const kept = first === undefined ? 0 : prefix[k] - prefix[first];
      tokens = own + kept;
      points.push({ entryIndex: i, tokens, marker: 'compaction' });
      continue;
    }
    const usage = validUsage(messages[messages.length - 1]);
    tokens = usage ? usageTotal(usage) : tokens + own;
    points.push({ entryIndex: i, tokens, ...(e.type === 'branch_summary' ? { marker: 'branch_summary' as const } : {}) });
  }
  return points;
}
