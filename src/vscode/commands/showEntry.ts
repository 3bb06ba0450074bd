import * as vscode from 'vscode';
import type { ArborServices } from '../services';
import { WebviewHost } from '../panels/webviewHost';
import { buildEntryView, entryCopyText, isCurrentEntry } from '../panels/entryView';
import { readConfig } from '../platform/settings';
import { renderLoadedEntry } from '../panels/loadedRender';
import { showInfo } from '../platform/notify';
import { parseCommandTarget, parseEntryArgs, targetEntry } from '../tree/commandTarget';
import type { EntryView, SummaryView } from '../../webview/protocol';
import { isSummaryEntry } from '../../engine/tree/latestSummary';
import { showSummaryEntry } from './showSummary';

/** The command vcore registers for a raw file opened read-only at a line. */
const OPEN_RAW_AT_LINE = 'arbor.openRawSessionFile';

/** The entry panel: its buttons act on the entry it shows, nothing else. */
export function createEntryPanel(arbor: ArborServices): WebviewHost<EntryView> {
  return new WebviewHost<EntryView>(arbor.extensionUri, {
    kind: 'entry',
    titleOf: (v) => `${v.title} ${v.entryId}`,
    noticeOnFailure: true,
    onMessage: async (msg, view) => {
      if (!view) return;
      switch (msg.type) {
        case 'copy': {
          const session = await arbor.peekSession(view.file);
          const text =
            msg.what === 'id' || !session
              ? msg.what === 'id'
                ? view.entryId
                : ''
              : await renderLoadedEntry(session.index, view.entryId, () => entryCopyText(session.index, view.entryId));
          await vscode.env.clipboard.writeText(text);
          void vscode.window.setStatusBarMessage(
            msg.what === 'id' ? `Arbor: copied entry id ${view.entryId}` : `Arbor: copied the text of entry ${view.entryId}`,
            3000,
          );
          break;
        }
        case 'openAtLine':
          await openAtLine(view.file, view.line);
          break;
        case 'jump':
          await vscode.commands.executeCommand('arbor.jumpHere', { file: view.file, entryId: view.entryId });
          break;
        case 'showEntry':
          // Only the entry's parent is offered by the page.
          if (msg.entryId === view.parentId) await vscode.commands.executeCommand('arbor.showEntry', view.file, msg.entryId);
          break;
      }
    },
  });
}

/**
 * Keeps what the entry panel says about its entry true while the session
 * changes (Pi appending, a jump, a label): whether it is the current leaf and
 * its label. The entry itself never changes, so the panel is redrawn in
 * place only when one of those did (not revealed, no focus taken).
 */
export function followEntryState(arbor: ArborServices, panel: WebviewHost<EntryView>): vscode.Disposable {
  return arbor.store.onDidChange((changed) => {
    const view = panel.currentView;
    if (!view || (changed && changed.file !== view.file)) return;
    const index = arbor.store.get(view.file)?.index;
    const i = index ? index.indexOf(view.entryId) : -1;
    if (!index || i < 0) return;
    if (isCurrentEntry(index, i) === view.isLeaf && index.labelOf(view.entryId) === view.label) return;
    const options = { sessionTitle: view.sessionTitle, estimator: readConfig().estimator };
    void renderLoadedEntry(index, view.entryId, () => buildEntryView(index, view.entryId, options)).then(
      (next) => {
        if (panel.currentView?.file === next.file && panel.currentView.entryId === next.entryId) panel.update(next);
      },
      () => undefined, // the entry's line could not be read (the file went away): the panel keeps what it shows
    );
  });
}

async function openAtLine(file: string, line: number): Promise<void> {
  if ((await vscode.commands.getCommands(true)).includes(OPEN_RAW_AT_LINE)) {
    await vscode.commands.executeCommand(OPEN_RAW_AT_LINE, file, line);
    return;
  }
  // Until that command exists: the file at the line, as Open Raw Session File shows it.
  const pos = new vscode.Position(Math.max(0, line - 1), 0);
  await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: true, selection: new vscode.Range(pos, pos) });
}

/**
 * Arbor: Show Entry (sessionFile, entryId): the whole entry in the entry
 * panel. From the palette, the entry selected in the tree.
 */
export async function showEntryCommand(
  arbor: ArborServices,
  panel: WebviewHost<EntryView>,
  file?: unknown,
  entryId?: unknown,
  options?: { preserveFocus?: boolean },
): Promise<EntryView | SummaryView | undefined> {
  // A row's context menu passes the row; the tree's click (and tests) pass (sessionFile, entryId); the palette nothing.
  const target = targetEntry(file === undefined ? parseCommandTarget(arbor.treeView.selection[0]) : parseEntryArgs(file, entryId));
  if (!target) {
    void showInfo('Arbor: select an entry in the Sessions view to show it.');
    return undefined;
  }
  const session = await arbor.peekSession(target.file);
  if (!session) throw new Error(`${target.file} could not be loaded`);
  const { index } = session;
  // A compaction or branch summary has one view, the summary panel's (Show Summary opens the same).
  if (isSummaryEntry(index, index.indexOf(target.entryId)))
    return showSummaryEntry(arbor, session, target.entryId, { preserveFocus: options?.preserveFocus ?? true });
  const viewOptions = { sessionTitle: session.title, estimator: readConfig().estimator };
  const view = await renderLoadedEntry(index, target.entryId, () => buildEntryView(index, target.entryId, viewOptions));
  panel.show(view, { preserveFocus: options?.preserveFocus ?? true });
  return view;
}
