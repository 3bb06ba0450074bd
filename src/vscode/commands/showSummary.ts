import type { ArborServices } from '../services';
import { viewFromEntry } from '../panels/summaryView';
import { readConfig } from '../platform/settings';
import { reportError } from '../platform/logging';
import type { SummaryView } from '../../webview/protocol';
import { showInfo } from '../platform/notify';
import { parseCommandTarget, targetEntry, targetFile } from './commandTarget';
import type { SessionIndex } from '../../engine/session/sessionIndex';

function isSummary(index: SessionIndex, i: number): boolean {
  return i >= 0 && ['compaction', 'branch_summary'].includes(index.record(i).type);
}

/** The newest compaction or branch summary on the session's active path (what Show Summary shows for a session). */
export function latestSummaryOnPath(index: SessionIndex): string | undefined {
  const path = index.pathTo(index.leafIndex);
  for (let k = path.length - 1; k >= 0; k--) if (isSummary(index, path[k])) return index.record(path[k]).id;
  return undefined;
}

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
  if (!entryId || !isSummary(index, index.indexOf(entryId))) {
    entryId = latestSummaryOnPath(index);
    if (entryId === undefined) {
      void showInfo('Arbor: there is no compaction or branch summary on the current path of this session.');
      return undefined;
    }
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
