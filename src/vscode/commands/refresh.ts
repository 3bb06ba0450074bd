import type { ArborServices } from '../services';
import { reportError } from '../platform/logging';

/** Arbor: Refresh. Re-lists the session folders and reloads every loaded session from disk. */
export async function refreshCommand(arbor: ArborServices): Promise<number> {
  try {
    await arbor.store.refreshList();
    for (const model of arbor.store.list()) if (model.index) await arbor.store.reload(model);
    arbor.tree.redraw();
    return arbor.store.list().length;
  } catch (err) {
    await reportError('Refresh', err);
    return 0;
  }
}
