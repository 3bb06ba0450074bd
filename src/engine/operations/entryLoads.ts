import { Projection } from '../context/projection';
import type { SessionIndex } from '../session/sessionIndex';

/**
 * What the CLI's commands and the extension's flows load before the pure
 * engine functions that read entries all at once (issue #22 item 3,
 * docs/ARCHITECTURE.md "Where disk reads happen"); a walk over a span loads it
 * a batch at a time instead (session/entryWalkLoads.ts). Loads use keep:
 * false: the entries are read once, so they are dropped at release instead of
 * filling the bounded cache.
 */

/** Every entry index of the session, in file order (not held as an array). */
function* everyEntry(index: SessionIndex): Generator<number> {
  for (let i = 0; i < index.entryCount; i++) yield i;
}

/**
 * Runs `use` with every entry loaded: for the engine functions that take the
 * whole session at once (file histories: sessionFiles gathers every entry in
 * one array, so the entries were all in memory during the call before too).
 */
export function withEveryEntry<T>(index: SessionIndex, use: () => T | Promise<T>, signal?: AbortSignal): Promise<T> {
  return index.withLoaded(everyEntry(index), use, { keep: false, signal });
}

/**
 * The entries the context at `leafIndex` reads (buildContext, contextTokensAt):
 * the projection's (from the newest compaction on the path), and the newest
 * assistant message on the path (the model in effect, which may come before
 * the compaction). Entries of other types are parsed at load and stay.
 */
export function contextEntries(index: SessionIndex, leafIndex: number): number[] {
  if (leafIndex < 0) return [];
  const projection = new Projection(index, leafIndex);
  const out = [...projection.entries];
  const path = projection.path;
  for (let k = path.length - 1; k >= 0; k--) {
    const rec = index.record(path[k]);
    if (rec.type === 'message' && rec.role === 'assistant') {
      out.push(path[k]);
      break;
    }
  }
  return out;
}

/**
 * Runs `use` with the context at `leafIndex` loaded (see contextEntries). `keep`: the entries join the bounded cache at
 * release (a caller that asks again, like the status bar after each append, reads them from memory); default false.
 */
export function withContextLoaded<T>(
  index: SessionIndex,
  leafIndex: number,
  use: () => T | Promise<T>,
  options: { keep?: boolean; signal?: AbortSignal } = {},
): Promise<T> {
  return index.withLoaded(contextEntries(index, leafIndex), use, { keep: options.keep ?? false, signal: options.signal });
}
