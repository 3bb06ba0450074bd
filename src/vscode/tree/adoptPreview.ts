import type { SessionIndex } from '../../engine/session/sessionIndex';
import { adoptTokenCounts } from '../../engine/context/entryTokens';
import { isPlaceholderEntry } from '../../engine/session/parseLine';

/**
 * Carries over what the tree already computed from a session's preview to
 * its full index, so the rows are not parsed and counted twice: parsed
 * entries and token counts, matched by id and line offset (positions differ
 * between the two).
 */
export function adoptPreviewWork(preview: SessionIndex, full: SessionIndex): void {
  const positions = new Map<number, number>();
  for (let p = 0; p < preview.entryCount; p++) {
    const from = preview.record(p);
    const q = full.indexOf(from.id);
    if (q < 0) continue;
    const to = full.record(q);
    if (to.start !== from.start) continue;
    positions.set(p, q);
    // A line that did not parse is left for the full index to parse (and report) itself.
    if (from.entry !== undefined && to.entry === undefined && !isPlaceholderEntry(from.entry)) to.entry = from.entry;
  }
  adoptTokenCounts(preview, full, positions);
}
