import { sessionFiles, type SessionFiles } from '../../engine/files/sessionFiles';
import type { SessionIndex } from '../../engine/session/sessionIndex';

/** One chronological file history per index (recomputed when entries were added to it). */
const cache = new WeakMap<SessionIndex, { count: number; files: SessionFiles }>();

export function cachedSessionFiles(index: SessionIndex): SessionFiles {
  const hit = cache.get(index);
  if (hit && hit.count === index.entryCount) return hit.files;
  const files = sessionFiles(index);
  cache.set(index, { count: index.entryCount, files });
  return files;
}
