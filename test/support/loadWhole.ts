import type { SessionIndex } from '../../src/engine/session/sessionIndex';
import { loadSession, type LoadSessionOptions } from '../../src/engine/session/loadSession';
import { streamSession } from '../../src/engine/session/streamSession';
import { loadTailPreview } from '../../src/engine/session/tailPreview';

/**
 * Loads every entry of an index (SessionIndex.load) for a test that reads them through pure functions, as the layer
 * doing I/O does in production before calling them. The entries stay loaded for the index's life.
 */
export async function loadWhole<T extends SessionIndex | undefined>(index: T): Promise<T> {
  if (index) await index.load(Array.from({ length: index.entryCount }, (_, i) => i));
  return index;
}

/** loadSession, then every entry loaded (see loadWhole). */
export async function loadedSession(file: string, options?: LoadSessionOptions): Promise<SessionIndex> {
  return loadWhole(await loadSession(file, options));
}

/** streamSession, then every entry loaded (see loadWhole). */
export async function streamedSession(file: string, options?: Parameters<typeof streamSession>[1]): Promise<SessionIndex | undefined> {
  return loadWhole(await streamSession(file, options));
}

/** loadTailPreview, then every entry loaded (see loadWhole). */
export async function loadedTailPreview(file: string, options: Parameters<typeof loadTailPreview>[1]): Promise<SessionIndex | undefined> {
  return loadWhole(await loadTailPreview(file, options));
}
