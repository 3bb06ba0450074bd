import type { Projection } from '../context/projection';
import type { SessionIndex } from '../session/sessionIndex';
import type { TokenEstimator } from './estimators';

const caches = new WeakMap<SessionIndex, Map<string, Map<number, number>>>();

function cacheFor(index: SessionIndex, estimator: TokenEstimator): Map<number, number> {
  let byEstimator = caches.get(index);
  if (!byEstimator) caches.set(index, (byEstimator = new Map()));
  let cache = byEstimator.get(estimator.name);
  if (!cache) byEstimator.set(estimator.name, (cache = new Map()));
  return cache;
}

/**
 * Tokens the entry at projected position `pos` adds to the context. Counts of
 * unedited entries are cached per entry and estimator, so re-planning after an
 * append or on another leaf does not count the same entry twice.
 */
export function projectedEntryTokens(projection: Projection, pos: number, estimator: TokenEstimator): number {
  const entryIndex = projection.entries[pos];
  const cacheable = !projection.editFor(pos) && !(pos > 0 && projection.index.record(entryIndex).type === 'compaction');
  const cache = cacheable ? cacheFor(projection.index, estimator) : undefined;
  const hit = cache?.get(entryIndex);
  if (hit !== undefined) return hit;
  let tokens = 0;
  for (const m of projection.messages(pos)) tokens += estimator.estimate(m);
  cache?.set(entryIndex, tokens);
  return tokens;
}
