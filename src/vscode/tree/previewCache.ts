import type { SessionIndex } from '../../engine/session/sessionIndex';
import type { EntryPreview } from '../../engine/tree/entryPreview';
import { rowPreview } from '../../engine/tree/rowPreview';

const caches = new WeakMap<SessionIndex, Map<number, EntryPreview>>();

/**
 * An entry's preview, made once per loaded index (no vscode import). Entries
 * never change once written, and a row is drawn again on every refresh of its
 * line (each append redraws the page): flattening a long tool output each
 * time was most of the cost of a row.
 */
export function cachedPreview(index: SessionIndex, i: number): EntryPreview {
  let cache = caches.get(index);
  if (!cache) caches.set(index, (cache = new Map()));
  let p = cache.get(i);
  if (!p) cache.set(i, (p = rowPreview(index, i)));
  return p;
}
