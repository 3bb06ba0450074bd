import { entryContextMessages } from './entryMessages';
import { estimatorByName, type EstimatorName, type TokenEstimator } from '../tokens/estimators';
import { isOversizedEntry } from '../session/oversizedEntry';
import type { Projection } from './projection';
import type { SessionIndex } from '../session/sessionIndex';
import type { SessionEntry } from '../session/types';
import { TokenCounts } from '../session/tokenCounts';
import { entryRead, type EntryWalk } from '../session/entryWalk';

/**
 * The one per-entry token counter (engine planning, the CLI and the editor's
 * tree): the tokens an entry's own context messages add, counted once per
 * index and estimator and kept in the index (`index.tokenCounts`), so a
 * second plan, a re-render or another leaf never count an entry again.
 * Only entries somebody asks about are counted (a plan's keep-recent window,
 * the rows on screen): nothing counts a whole session up front.
 */

/**
 * Tokens estimated for an entry too large to parse (its line is longer than
 * MAX_PARSED_ENTRY_BYTES): its byte length / 4, Pi's characters / 4 rule
 * applied to bytes (an over-estimate for non-ASCII text). The line is never
 * read for it.
 */
export function estimateFromBytes(bytes: number): number {
  return Math.ceil(bytes / 4);
}

function toEstimator(estimator: TokenEstimator | EstimatorName): TokenEstimator {
  return typeof estimator === 'string' ? estimatorByName(estimator) : estimator;
}

function countsFor(index: SessionIndex, name: string): TokenCounts {
  let counts = index.tokenCounts.get(name);
  if (!counts) index.tokenCounts.set(name, (counts = new TokenCounts()));
  return counts;
}

/** Tokens entry `i` adds to the context (its own messages, unedited), cached in the index per estimator. */
export function entryTokens(index: SessionIndex, i: number, estimator: TokenEstimator | EstimatorName): number {
  const est = toEstimator(estimator);
  const counts = countsFor(index, est.name);
  const hit = counts.get(i);
  if (hit !== undefined) return hit;
  let tokens = 0;
  if (isOversizedEntry(index, i)) {
    const rec = index.record(i);
    tokens = entryContextTypes.has(rec.type) ? estimateFromBytes(rec.end - rec.start) : 0;
  } else {
    // Read for one use (a count over a whole path must not hold its entries: SessionIndex.transientEntry).
    tokens = countEntryTokens(index.transientEntry(i), est);
  }
  counts.set(i, tokens);
  return tokens;
}

/**
 * What entryTokens counts, for an entry in hand (uncached): a caller that
 * sees each entry once as it is loaded (`arbor tree`) counts it then.
 */
export function countEntryTokens(entry: SessionEntry, estimator: TokenEstimator): number {
  let tokens = 0;
  for (const m of entryContextMessages(entry)) tokens += estimator.estimate(m);
  return tokens;
}

/** Entry types that can add messages to the context (see entryContextMessages). */
const entryContextTypes = new Set(['message', 'custom_message', 'branch_summary', 'compaction']);

/**
 * Tokens the entry at projected position `pos` adds to the context: the
 * cached per-entry count, unless a context edit changes the entry or it is
 * an older compaction inside the range (those are counted from the projection).
 */
export function projectedEntryTokens(projection: Projection, pos: number, estimator: TokenEstimator): number {
  const entryIndex = projection.entries[pos];
  const own = !projection.editFor(pos) && !(pos !== projection.summaryPos && projection.index.record(entryIndex).type === 'compaction');
  if (own) return entryTokens(projection.index, entryIndex, estimator);
  let tokens = 0;
  for (const m of projection.messages(pos)) tokens += estimator.estimate(m);
  return tokens;
}

/** projectedEntryTokens in a walk (session/entryWalk.ts): the entry is asked for unless its count is known without it. */
export function* projectedEntryTokensWalk(projection: Projection, pos: number, estimator: TokenEstimator, step: 1 | -1): EntryWalk<number> {
  const entryIndex = projection.entries[pos];
  const own = !projection.editFor(pos) && !(pos !== projection.summaryPos && projection.index.record(entryIndex).type === 'compaction');
  if (!own) yield* projection.read(pos, step);
  // An entry's own count reads the entry itself (not the projection's cached messages), unless it is known.
  else if (!countsFor(projection.index, estimator.name).has(entryIndex) && !isOversizedEntry(projection.index, entryIndex))
    yield entryRead(projection.entries, pos, step);
  return projectedEntryTokens(projection, pos, estimator);
}

/** Copies the counts made on one index to another (a preview to the full index), by position map. */
export function adoptTokenCounts(from: SessionIndex, to: SessionIndex, positions: ReadonlyMap<number, number>): void {
  for (const [name, counts] of from.tokenCounts) {
    const into = countsFor(to, name);
    for (const [p, tokens] of counts) {
      const q = positions.get(p);
      if (q !== undefined && !into.has(q)) into.set(q, tokens);
    }
  }
}
