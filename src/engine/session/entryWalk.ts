/**
 * A pure walk over entries that may be on disk (issue #22 item 3): a
 * generator that yields an EntryRead before it reads an entry, saying which
 * entry and where it goes next, and returns its result. It reads only what
 * is in memory; the driver makes that true. A run step drives it through
 * runEntryWalk (entryWalkLoads.ts: the entries are loaded a batch at a time,
 * in the direction the walk goes, and dropped after); a caller whose entries
 * are all in memory (a small file read whole, or entries it loaded) drives it
 * with walkInMemory. One walk, so both read the same entries the same way.
 */
export interface EntryRead {
  /** Entry indexes in the order the walk visits them. */
  order: readonly number[];
  /** The entry read next is order[at]. */
  at: number;
  /** Which way the walk goes on from there (1: on through order, -1: back). */
  step: 1 | -1;
}

export type EntryWalk<T> = Generator<EntryRead, T, void>;

/** The read of `order[at]`, the walk going on in `step`'s direction. */
export function entryRead(order: readonly number[], at: number, step: 1 | -1): EntryRead {
  return { order, at, step };
}

/** Runs a walk whose entries are in memory (an entry that is not throws EntryNotLoadedError, a programming error). */
export function walkInMemory<T>(walk: EntryWalk<T>): T {
  let r = walk.next();
  while (!r.done) r = walk.next();
  return r.value;
}
