import type { ArborServices } from '../services';
import { isPinLabel, pinLabel, unpinLabel } from '../../engine/compaction/pins';
import { setLabelCommand } from './setLabel';
import { showInfo } from '../platform/notify';
import { parseCommandTarget, targetEntry } from '../tree/commandTarget';

/**
 * Arbor: Pin / Unpin Entry. Pins the selected entry (its label becomes
 * `📌` or `📌 <its label>`), or unpins it (the pin mark is removed, any other
 * label kept). The label entry is written by Set Label; a pinned entry is
 * carried verbatim into every later compaction summary (engine/compaction/pins.ts).
 */
export async function togglePinCommand(arbor: ArborServices, node?: unknown): Promise<string | undefined> {
  const target = targetEntry(parseCommandTarget(node ?? arbor.treeView.selection[0]));
  if (!target) {
    void showInfo('Arbor: select an entry in the Sessions view to pin.');
    return undefined;
  }
  const model = await arbor.resolveSession(target.file);
  if (!model?.index) return undefined;
  const current = model.index.labelOf(target.entryId);
  const next = isPinLabel(current) ? unpinLabel(current) : pinLabel(current);
  return setLabelCommand(arbor, target, next);
}
