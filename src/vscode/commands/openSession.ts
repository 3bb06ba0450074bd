import * as vscode from 'vscode';
import type { ArborServices } from '../services';
import { log, reportError } from '../logging';

/** Arbor: Open Session File... Adds a JSONL session from anywhere to the Sessions view (remembered per workspace). */
export async function openSessionCommand(arbor: ArborServices, uri?: vscode.Uri): Promise<string | undefined> {
  let target = uri instanceof vscode.Uri ? uri : undefined;
  if (!target) {
    const dirs = arbor.store.sessionDirs();
    const picked = await vscode.window.showOpenDialog({
      title: 'Open a Pi session',
      canSelectMany: false,
      openLabel: 'Open Session',
      filters: { 'Pi sessions': ['jsonl'], 'All files': ['*'] },
      defaultUri: dirs[0] ? vscode.Uri.file(dirs[0].dir) : undefined,
    });
    if (!picked?.length) return undefined;
    target = picked[0];
  }
  try {
    const model = await arbor.store.addOpened(target.fsPath);
    arbor.setActive(model.file);
    await vscode.commands.executeCommand('arbor.sessions.focus');
    try {
      await arbor.treeView.reveal(arbor.tree.sessionNode(model.file), { select: true, focus: true, expand: true });
    } catch (err) {
      log().debug(`reveal ${model.file}: ${String(err)}`); // the view may not have rendered the new row yet
    }
    return model.file;
  } catch (err) {
    await reportError('Open Session File', err);
    return undefined;
  }
}

/** Arbor: Open Raw Session File. The JSONL itself, in a text editor. */
export async function openRawCommand(arbor: ArborServices, node?: unknown): Promise<void> {
  const model = await arbor.resolveSession(node);
  if (!model) return;
  await vscode.window.showTextDocument(vscode.Uri.file(model.file), { preview: true });
}
