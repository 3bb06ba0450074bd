import { entryContextMessages } from '../../engine/context/entryMessages';
import { estimatorByName, type EstimatorName } from '../../engine/tokens/estimators';
import type { SessionIndex } from '../../engine/session/sessionIndex';

const caches = new WeakMap<SessionIndex, Map<string, Map<number, number>>>();

export interface TokenStats {
  /** Entries whose tokens were counted (cache misses), since activation. */
  counted: number;
  /** Time spent counting them (ms). */
  countMs: number;
}

/** For the performance test: a second render of the same rows must not count again. */
export const tokenStats: TokenStats = { counted: 0, countMs: 0 };

/** Tokens an entry adds to the context (its own messages, estimated), cached per index and estimator. */
export function entryTokens(index: SessionIndex, i: number, estimatorName: EstimatorName): number {
  let byName = caches.get(index);
  if (!byName) caches.set(index, (byName = new Map()));
  let cache = byName.get(estimatorName);
  if (!cache) byName.set(estimatorName, (cache = new Map()));
  const hit = cache.get(i);
  if (hit !== undefined) return hit;
  const estimator = estimatorByName(estimatorName);
  const entry = index.entry(i);
  const t0 = performance.now();
  let tokens = 0;
  for (const m of entryContextMessages(entry)) tokens += estimator.estimate(m);
  cache.set(i, tokens);
  tokenStats.counted++;
  tokenStats.countMs += performance.now() - t0;
  return tokens;
}

/** Copies the counts made on one index to another (a preview to the full index), by position map. */
export function adoptTokenCounts(from: SessionIndex, to: SessionIndex, positions: ReadonlyMap<number, number>): void {
  const source = caches.get(from);
  if (!source) return;
  let target = caches.get(to);
  if (!target) caches.set(to, (target = new Map()));
  for (const [estimator, counts] of source) {
    let into = target.get(estimator);
    if (!into) target.set(estimator, (into = new Map()));
    for (const [p, tokens] of counts) {
      const q = positions.get(p);
      if (q !== undefined && !into.has(q)) into.set(q, tokens);
    }
  }
}
