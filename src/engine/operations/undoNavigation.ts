import { appendEntries, type AppendOptions } from '../session/writer';
import type { SessionIndex } from '../session/sessionIndex';
import type { SessionEntry } from '../session/types';
import { summarizedBranch } from '../branch/summarizedBranch';
import { requestNavigate } from '../livePi/client';
import { entriesWrittenByPi } from '../livePi/writtenByPi';
import type { WriteRoute } from '../livePi/writeRoute';
import { ARBOR_LEAF_MARKER } from './navigate';

/**
 * Undo of a jump (issue 34 item 2): the leaf goes back to where the jump left from, and nothing is removed. Like
 * Pi's own tree navigation it is one more move: Arbor's leaf marker appended under the old leaf (through a running
 * Pi, Pi moves its leaf there). The jump's entries (its branch summary, its label) stay in the tree.
 */
export interface JumpToUndo {
  /** The leaf the jump left. */
  oldLeafId: string;
  /** Where the jump left the leaf (its last entry, or the landing when it wrote nothing): the undo refuses if the leaf moved since. */
  leafAfterJump: string | null;
}

/**
 * The jump that put the leaf where it is, read from the file: the leaf (past any label entries on it) is a branch
 * summary (its `fromId`, or for Pi 0.73 the leaf found in the tree) or Arbor's leaf marker. Otherwise, why not.
 */
export function jumpAtLeaf(index: SessionIndex, leafId: string | null): JumpToUndo | { none: string } {
  if (leafId === null) return { none: 'the session has no leaf' };
  let i = index.indexOf(leafId);
  if (i < 0) return { none: `the leaf ${leafId} is not an entry of ${index.file}` };
  while (i >= 0 && index.record(i).type === 'label') i = index.parentIndex(i);
  const notAJump = { none: `the leaf ${leafId} is not where a jump left it (no branch summary or leaf move there)` };
  if (i < 0) return notAJump;
  const type = index.record(i).type;
  if (type === 'branch_summary') {
    const left = summarizedBranch(index, i);
    if (left.leafIndex < 0) return { none: `the branch summary ${index.record(i).id} does not say which leaf it left: ${left.unknown}` };
    return { oldLeafId: index.record(left.leafIndex).id, leafAfterJump: leafId };
  }
  const marker = type === 'custom' ? index.entryOfType(i, 'custom') : undefined;
  if (marker?.customType !== ARBOR_LEAF_MARKER) return notAJump;
  const data = marker.data as { fromId?: unknown } | undefined;
  const from = typeof data?.fromId === 'string' ? data.fromId : undefined;
  if (!from || !index.has(from)) return { none: `the leaf move ${marker.id} does not name a leaf of this file it left` };
  return { oldLeafId: from, leafAfterJump: leafId };
}

export interface UndoNavigationOptions {
  /** Where the undo is written (default: the file). */
  route?: WriteRoute;
  signal?: AbortSignal;
  /** See AppendOptions.beforeWrite. */
  beforeWrite?: AppendOptions['beforeWrite'];
}

export interface UndoNavigationResult {
  /** Arbor's leaf marker under the old leaf (none when a running Pi only moved its leaf in memory). */
  written: SessionEntry[];
  /** The leaf now (the old leaf). */
  leafId: string;
}

/** Moves the leaf back to `jump.oldLeafId` with one append; refuses (StaleSessionError) if the leaf moved since the jump. */
export async function undoNavigation(
  index: SessionIndex,
  jump: JumpToUndo,
  options: UndoNavigationOptions = {},
): Promise<UndoNavigationResult> {
  const route = options.route;
  if (route?.via === 'pi') {
    const result = await requestNavigate(
      route.entry,
      { expectedLeafId: jump.leafAfterJump, targetId: jump.oldLeafId, waitMs: route.waitMs },
      { signal: options.signal },
    );
    return { written: await entriesWrittenByPi(index, result, options.signal), leafId: jump.oldLeafId };
  }
  const written = await appendEntries(
    index,
    [{ type: 'custom', customType: ARBOR_LEAF_MARKER, data: { fromId: jump.leafAfterJump, targetId: jump.oldLeafId, undoesJump: true } }],
    { parentId: jump.oldLeafId, expectedLeafId: jump.leafAfterJump, signal: options.signal, beforeWrite: options.beforeWrite },
  );
  return { written, leafId: jump.oldLeafId };
}
