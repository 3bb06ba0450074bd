import { loadSession } from '../../engine/session/loadSession';
import type { SessionIndex } from '../../engine/session/sessionIndex';

/**
 * An index as the extension holds it (issue #22 item 3): it never reads a
 * line synchronously. Each flow loads what it reads before rendering
 * (SessionIndex.load; the tree's pages, the panels, the context figures), or
 * walks a span a batch at a time (engine/session/entryWalkLoads.ts: Jump
 * Here, Compact, the summary panel's retention check).
 */
export async function loadIndex(file: string): Promise<SessionIndex> {
  return loadSession(file);
}
