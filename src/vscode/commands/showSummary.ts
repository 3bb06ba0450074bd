import type { ArborServices } from '../services';
import { viewFromEntry } from '../summaryView';
import { readConfig } from '../settings';
import { reportError } from '../logging';
import type { SummaryView } from '../../webview/protocol';
import { showInfo } from '../notify';

/**
 * Arbor: Show Summary. Opens a compaction or branch summary in the panel; on
 * a session (or with nothing selected), the newest summary on its active path.
 */
export async function showSummaryCommand(arbor: ArborServices, node?: unknown): Promise<SummaryView | undefined> {
  const n = (node ?? arbor.treeView.selection[0]) as { file?: unknown; entryId?: unknown } | undefined;
  const model = await arbor.resolveSession(n && typeof n.file === 'string' ? n.file : undefined);
  if (!model?.index) return undefined;
  const index = model.index;
  let entryId = typeof n?.entryId === 'string' ? n.entryId : undefined;
  const isSummary = (i: number) => ['compaction', 'branch_summary'].includes(index.record(i).type);
  if (!entryId || !isSummary(index.indexOf(entryId))) {
    const path = index.pathTo(index.leafIndex);
    const found = [...path].reverse().find(isSummary);
    if (found === undefined) {
      void showInfo('Arbor: there is no compaction or branch summary on the current path of this session.');
      return undefined;
    }
    entryId = index.record(found).id;
  }
  try {
    const view = viewFromEntry(index, entryId, model.title ?? model.file, readConfig().estimator);
    arbor.panel.show(view);
    return view;
  } catch (err) {
    await reportError('Show Summary', err);
    return undefined;
  }
}
