import type { ArborServices } from '../services';
import { viewFromEntry } from '../panels/summaryView';
import { readConfig } from '../platform/settings';
import { reportError } from '../platform/logging';
import type { SummaryView } from '../../webview/protocol';
import { showInfo } from '../platform/notify';
import { isSummaryEntry, latestSummaryOnPath } from '../../engine/tree/latestSummary';
import type { SessionIndex } from '../../engine/session/sessionIndex';
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
    return await showSummaryEntry(arbor, { index, title: model.title ?? model.file }, entryId);
  } catch (err) {
    await reportError('Show Summary', err);
    return undefined;
  }
}

/**
 * A summary entry in the summary panel: the one view of a compaction or branch summary, whether it is opened by
 * Show Summary or by a click on its row (Show Entry sends summary entries here).
 */
export async function showSummaryEntry(
  arbor: ArborServices,
  session: { index: SessionIndex; title: string },
  entryId: string,
  options: { preserveFocus?: boolean } = {},
): Promise<SummaryView> {
  const view = await viewFromEntry(session.index, entryId, session.title, readConfig().estimator);
  return arbor.panel.show(view, options);
}
