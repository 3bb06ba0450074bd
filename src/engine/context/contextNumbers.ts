import { Projection } from './projection';
import { estimateProjectedContextTokens, type ContextTokens } from '../tokens/contextTokens';
import type { TokenEstimator } from '../tokens/estimators';
import type { SessionIndex } from '../session/sessionIndex';
import { projectedEntryTokens } from '../tokens/entryTokens';

/**
 * The one home of the token numbers Arbor shows for a session: the tree's
 * compaction rows, the summary panel, the status bar and `arbor context` all
 * call these, so they agree for the same session, leaf and estimator.
 *
 * - context tokens at a leaf: the projected estimate (provider usage reported
 *   before the newest compaction or context edit on the path is stale, so it
 *   is not used past one);
 * - a compaction's "before": the `tokensBefore` it recorded;
 * - a compaction's "after": the context tokens with the compaction as the leaf
 *   (its summary plus every kept message), the same estimate as above.
 * The window comes from resolveContextWindow (engine/summarize/providers/models.ts).
 */

/** Context tokens of the session with `leafIndex` as the leaf. */
export function contextTokensAt(index: SessionIndex, leafIndex: number, estimator: TokenEstimator): ContextTokens {
  return estimateProjectedContextTokens(new Projection(index, leafIndex), estimator);
}

export interface CompactionNumbers {
  /** As recorded in the entry (undefined when it has none). */
  tokensBefore: number | undefined;
  /** The context right after the compaction: summary plus kept messages. */
  tokensAfter: number;
}

// An entry's path never changes once written (the file is append-only): its numbers are cached per index.
const afterCache = new WeakMap<SessionIndex, Map<string, number>>();

/** Before and after of the compaction entry at `entryIndex`. */
export function compactionNumbers(index: SessionIndex, entryIndex: number, estimator: TokenEstimator): CompactionNumbers {
  const entry = index.entry(entryIndex);
  if (entry.type !== 'compaction') throw new Error(`entry ${index.record(entryIndex).id} is not a compaction`);
  let cache = afterCache.get(index);
  if (!cache) afterCache.set(index, (cache = new Map()));
  const key = `${estimator.name}:${entryIndex}`;
  let after = cache.get(key);
  if (after === undefined) {
    after = contextTokensAt(index, entryIndex, estimator).tokens;
    cache.set(key, after);
  }
  return { tokensBefore: typeof entry.tokensBefore === 'number' ? entry.tokensBefore : undefined, tokensAfter: after };
}

/**
 * The "after" of a compaction not yet written (the review panel): its summary
 * plus every kept message of the planned projection, from `firstKeptEntryId`.
 */
export function proposedTokensAfter(
  proposal: { projection: Projection; summary: string; tokensBefore: number; firstKeptEntryId: string },
  estimator: TokenEstimator,
): number {
  const p = proposal.projection;
  let after = estimator.estimate({ role: 'compactionSummary', summary: proposal.summary, tokensBefore: proposal.tokensBefore });
  const firstKeptPos = p.entries.findIndex((i) => p.index.record(i).id === proposal.firstKeptEntryId);
  if (firstKeptPos >= 0) for (let pos = firstKeptPos; pos < p.length; pos++) if (p.index.record(p.entries[pos]).type !== 'compaction') after += projectedEntryTokens(p, pos, estimator);
  return after;
}

/** Share of the window in whole percent, as every view shows it. */
export function percentOfWindow(tokens: number, contextWindow: number): number {
  return contextWindow > 0 ? Math.round((tokens / contextWindow) * 100) : 0;
}
