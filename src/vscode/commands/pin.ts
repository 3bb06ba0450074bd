import type { ArborServices } from '../services';
import type { ArborNode } from '../tree/nodes';
import { isPinLabel, pinLabel, unpinLabel } from '../../engine/compaction/pins';
import { setLabelCommand } from './setLabel';
import { showInfo } from '../platform/notify';

/**
 * Arbor: Pin / Unpin Entry. Pins the selected entry (its label becomes
 * `📌` or `📌 <its label>`), or unpins it (the pin mark is removed, any other
 * label kept). The label entry is written by Set Label; a pinned entry is
 * carried verbatim into every later compaction summary (engine/compaction/pins.ts).
 */
export async function togglePinCommand(arbor: ArborServices, node?: unknown): Promise<string | undefined> {
  const n = (node ?? arbor.treeView.selection[0]) as ArborNode | { file?: string; entryId?: string } | undefined;
  if (!n || typeof n.file !== 'string' || typeof (n as { entryId?: unknown }).entryId !== 'string') {
    void showInfo('Arbor: select an entry in the Sessions view to pin.');
    return undefined;
  }
  const model = await arbor.resolveSession(n.file);
  if (!model?.index) return undefined;
  const current = model.index.labelOf((n as { entryId: string }).entryId);
  const next = isPinLabel(current) ? unpinLabel(current) : pinLabel(current);
  return setLabelCommand(arbor, n, next);
}
