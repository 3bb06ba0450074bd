import type { SessionIndex } from '../session/sessionIndex';
import { entryContextMessages } from './entryMessages';
import type { TokenEstimator } from '../tokens/estimators';
import { usageTotal, validUsage } from './contextTokens';

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
 * comes from contextUse.
 */
export function contextSeries(index: SessionIndex, leafIndex: number, estimator: TokenEstimator, signal?: AbortSignal): SeriesPoint[] {
  if (leafIndex < 0) return [];
  const path = index.pathTo(leafIndex);
  const points: SeriesPoint[] = [];
  // Estimated tokens of each entry's message on the path, and their prefix sums (for a compaction's kept part).
  const prefix = new Float64Array(path.length + 1);
  const position = new Map<string, number>();
  let tokens = 0;
  path.forEach((i, k) => {
    if (k % 1024 === 0) signal?.throwIfAborted();
    const e = index.entry(i);
    position.set(e.id, k);
    const messages = entryContextMessages(e);
    if (!messages.length) {
      prefix[k + 1] = prefix[k];
      return;
    }
    let own = 0;
    for (const m of messages) own += estimator.estimate(m);
    prefix[k + 1] = prefix[k] + (e.type === 'compaction' ? 0 : own);
    if (e.type === 'compaction') {
      const first = position.get(String(e.firstKeptEntryId));
      const kept = first === undefined ? 0 : prefix[k] - prefix[first];
      tokens = own + kept;
      points.push({ entryIndex: i, tokens, marker: 'compaction' });
      return;
    }
    const usage = validUsage(messages[messages.length - 1]);
    tokens = usage ? usageTotal(usage) : tokens + own;
    points.push({ entryIndex: i, tokens, ...(e.type === 'branch_summary' ? { marker: 'branch_summary' as const } : {}) });
  });
  return points;
}
