import type { ArborServices } from '../services';
import { viewFromEntry } from '../panels/summaryView';
import { readConfig } from '../platform/settings';
import { reportError } from '../platform/logging';
import type { SummaryView } from '../../webview/protocol';
import { showInfo } from '../platform/notify';
import { isSummaryEntry, latestSummaryOnPath } from '../../engine/tree/latestSummary';
import { parseCommandTarget, targetEntry, targetFile } from '../tree/commandTarget';

/**
 * Arbor: Show Summary. Opens a compaction or branch summary in the panel; on
 * a session (or with nothing selected), the newest summary on its active path.
 */
export async function showSummaryCommand(arbor: ArborServices, node?: unknown): Promise<SummaryView | undefined> {
  const target = parseCommandTarget(node ?? arbor.treeView.selection[0]);
  const model = await arbor.resolveSession(targetFile(target));
  if (!model?.index) return undefined;
  const index = model.index;
  let entryId = targetEntry(target)?.entryId;
  if (!entryId || !isSummaryEntry(index, index.indexOf(entryId))) {
    // The one rule, as `arbor summary` (engine/tree/latestSummary.ts).
    const latest = latestSummaryOnPath(index);
    if (latest < 0) {
      void showInfo('Arbor: there is no compaction or branch summary on the current path of this session.');
      return undefined;
    }
    entryId = index.record(latest).id;
  }
  try {
    const view = await viewFromEntry(index, entryId, model.title ?? model.file, readConfig().estimator);
    arbor.panel.show(view);
    return view;
  } catch (err) {
    await reportError('Show Summary', err);
    return undefined;
  }
}
