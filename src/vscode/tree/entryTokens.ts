import { entryContextMessages } from '../../engine/context/entryMessages';
import { estimatorByName, type EstimatorName } from '../../engine/tokens/estimators';
import type { SessionIndex } from '../../engine/session/sessionIndex';

const caches = new WeakMap<SessionIndex, Map<string, Map<number, number>>>();

export interface TokenStats {
  /** Entries whose tokens were counted (cache misses), since activation. */
  counted: number;
}

/** For the performance test: a second render of the same rows must not count again. */
export const tokenStats: TokenStats = { counted: 0 };

/** Tokens an entry adds to the context (its own messages, estimated), cached per index and estimator. */
export function entryTokens(index: SessionIndex, i: number, estimatorName: EstimatorName): number {
  let byName = caches.get(index);
  if (!byName) caches.set(index, (byName = new Map()));
  let cache = byName.get(estimatorName);
  if (!cache) byName.set(estimatorName, (cache = new Map()));
  const hit = cache.get(i);
  if (hit !== undefined) return hit;
  const estimator = estimatorByName(estimatorName);
  let tokens = 0;
  for (const m of entryContextMessages(index.entry(i))) tokens += estimator.estimate(m);
  cache.set(i, tokens);
  tokenStats.counted++;
  return tokens;
}
