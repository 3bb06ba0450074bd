import { jumpAtLeaf, undoNavigation, type JumpToUndo } from '../../engine/operations/undoNavigation';
import type { ArborServices } from '../services';
import { log, reportError } from '../platform/logging';
import { showInfo } from '../platform/notify';

/**
 * Arbor: Undo Jump (issue 34 item 2). Moves the leaf back to where the last jump left from, with one append (Arbor's
 * leaf marker under the old leaf; through a running Pi, Pi moves its leaf): the jump's branch summary and label
 * stay in the tree, nothing is removed. Offered after every jump (the notification's Undo Jump) and in the palette.
 */

/** The jump Arbor made last in each session (through a running Pi a jump without a summary leaves nothing in the file to read it from). */
const lastJumps = new Map<string, JumpToUndo>();

export function rememberJump(file: string, jump: JumpToUndo): void {
  lastJumps.set(file, jump);
}

export type UndoJumpResult = { kind: 'undone'; leafId: string; written: string[] } | { kind: 'nothing'; reason: string };

export async function undoJumpCommand(arbor: ArborServices, target?: unknown): Promise<UndoJumpResult | undefined> {
  const model = await arbor.resolveSession(target);
  if (!model) return undefined;
  try {
    const route = await arbor.writeRoute(model, 'Undoing the jump');
    if (!route) return undefined;
    const result = await arbor.store.write(model, async (index) => {
      const leaf = arbor.piLeaf(route) ?? index.leafId;
      // The jump made here last, else the one the file shows at the leaf (a jump made before a reload, or by the CLI).
      const remembered = lastJumps.get(model.file);
      const jump = remembered && remembered.leafAfterJump === leaf ? remembered : jumpAtLeaf(index, leaf);
      if ('none' in jump) return { kind: 'nothing' as const, reason: jump.none };
      const undone = await undoNavigation(index, jump, { route, beforeWrite: arbor.store.noteOwnEntries });
      return { kind: 'undone' as const, jump, undone };
    });
    if (result.kind === 'nothing') {
      void showInfo(`Arbor: no jump to undo: ${result.reason}.`);
      return result;
    }
    const { jump, undone } = result;
    const ids = undone.written.map((e) => e.id);
    if (route.via === 'file') arbor.store.noteFileWrite(model, ids, jump.leafAfterJump);
    else await arbor.livePi.refresh();
    lastJumps.set(model.file, { oldLeafId: jump.leafAfterJump ?? jump.oldLeafId, leafAfterJump: ids.at(-1) ?? jump.oldLeafId });
    log().info(
      `undo jump ${model.file}: back to ${undone.leafId} ` +
        `${route.via === 'pi' ? `through Pi (pid ${route.state.pid})` : 'to the file'}: ${ids.join(', ') || 'nothing written'}`,
    );
    arbor.setActive(model.file);
    await arbor.revealLeaf(model.file);
    void showInfo(
      `Arbor: jump undone: the leaf is back where it was (entry ${undone.leafId}). The jump's entries stay in the tree; nothing was removed.`,
    );
    return { kind: 'undone', leafId: undone.leafId, written: ids };
  } catch (err) {
    await reportError('Undo Jump', err);
    return undefined;
  }
}
