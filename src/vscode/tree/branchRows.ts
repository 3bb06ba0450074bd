import { changeEntries, countChangedFiles } from '../../engine/files/sessionFiles';
import type { SessionIndex } from '../../engine/session/sessionIndex';
import type { SessionLayout } from '../../engine/tree/layout';

/**
 * What a side branch's row reads, loaded before VS Code asks for the row
 * (issue #22 item 3: the extension host never reads a line synchronously):
 * the entry it is named after and its newest entry (held with the rows, see
 * TreeProvider.hold), and its changed-file count, counted once per branch
 * with the branch's calls and results loaded for the count and released.
 */

/** The entry a branch is named after: its first user message (what the user asked on it), else its first entry. */
export function branchNameEntry(index: SessionIndex, line: readonly number[], start: number): number {
  return line.find((i) => index.record(i).type === 'message' && index.record(i).role === 'user') ?? start;
}

/** The entries a branch row reads from memory: load (and hold) them before the row is made. */
export function branchRowEntries(index: SessionIndex, layout: SessionLayout, start: number): number[] {
  return [branchNameEntry(index, layout.lineFrom(start), start), layout.latestUnder(start)];
}

/** Counts by index, then branch start (with the line's length: a line that grew is counted again). */
const counts = new WeakMap<SessionIndex, Map<number, { length: number; files: number }>>();

/** Counts the files the branch at `start` changed (its entries loaded for it and released), unless counted already. */
export async function countBranchChanges(index: SessionIndex, layout: SessionLayout, start: number, signal?: AbortSignal): Promise<void> {
  const line = layout.lineFrom(start);
  let byStart = counts.get(index);
  if (byStart?.get(start)?.length === line.length) return;
  const files = await index.withLoaded(changeEntries(index, line), () => countChangedFiles(index, line), { keep: false, signal });
  if (!byStart) counts.set(index, (byStart = new Map()));
  byStart.set(start, { length: line.length, files });
}

/** The files the branch at `start` changed, as counted (countBranchChanges); 0 when not counted. */
export function branchChanges(index: SessionIndex, layout: SessionLayout, start: number): number {
  const counted = counts.get(index)?.get(start);
  return counted && counted.length === layout.lineFrom(start).length ? counted.files : 0;
}
