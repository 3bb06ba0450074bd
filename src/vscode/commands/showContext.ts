import * as vscode from 'vscode';
import type { ArborServices } from '../services';
import { WebviewHost } from '../panels/webviewHost';
import { buildContextView } from '../panels/contextView';
import { parseCommandTarget, targetEntry, targetFile } from '../tree/commandTarget';
import type { ContextView } from '../../webview/protocol';

/** The context view's panel: a message from it can only show an entry of the session it shows. */
export function createContextPanel(arbor: ArborServices): WebviewHost<ContextView> {
  return new WebviewHost<ContextView>(arbor.extensionUri, {
    kind: 'context',
    titleOf: (v) => `Context: ${v.sessionTitle.slice(0, 40)}`,
    noticeOnFailure: true,
    onMessage: async (msg, view) => {
      if (msg.type !== 'showEntry' || !view) return;
      if (view.messages.some((m) => m.entryId === msg.entryId) || view.series.some((p) => p.entryId === msg.entryId)) {
        await vscode.commands.executeCommand('arbor.showEntry', view.file, msg.entryId);
      }
    },
  });
}

/**
 * Arbor: Show Context. What the LLM sees at the selected entry (or the leaf):
 * a view with the context's size against the window and the compaction
 * threshold (the status bar's numbers), its size along the path, a
 * breakdown by role and one token bar per message. Returns the view.
 */
export async function showContextCommand(
  arbor: ArborServices,
  panel: WebviewHost<ContextView>,
  node?: unknown,
): Promise<ContextView | undefined> {
  const target = parseCommandTarget(node ?? arbor.treeView.selection[0]);
  const model = await arbor.resolveSession(targetFile(target));
  if (!model) return undefined;
  const session = await arbor.peekSession(model.file);
  if (!session) throw new Error(`${model.file} could not be loaded`);
  const entryId = targetEntry(target)?.entryId;
  const leafIndex = entryId ? session.index.indexOf(entryId) : session.index.leafIndex;
  if (entryId && leafIndex < 0) throw new Error(`entry ${entryId} is not in ${model.file}`);
  const view = await buildContextView(session.index, leafIndex, session.title);
  panel.show(view);
  return view;
}
