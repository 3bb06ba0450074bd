import type { SessionIndex } from '../../engine/session/sessionIndex';

/**
 * Loads `indexes` (asynchronously: the extension host never waits on a read
 * of entry lines), then runs `render`: a render that reads an entry it did
 * not ask for fails loudly (EntryNotLoadedError) instead of blocking. The
 * entries are released (to the bounded cache) after.
 */
export function renderLoaded<T>(index: SessionIndex, indexes: Iterable<number>, render: () => T, signal?: AbortSignal): Promise<T> {
  return index.withLoaded(indexes, render, { signal });
}

/** renderLoaded for one entry by id (none loaded when the id is not in the session: `render` reports it). */
export function renderLoadedEntry<T>(index: SessionIndex, entryId: string, render: () => T): Promise<T> {
  const i = index.indexOf(entryId);
  return renderLoaded(index, i < 0 ? [] : [i], render);
}
