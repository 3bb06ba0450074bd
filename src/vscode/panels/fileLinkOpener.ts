import * as vscode from 'vscode';
import type { FileLink } from '../../webview/protocol';
import { decideFileLink, type LinkDecision } from './fileLinkPolicy';
import { baseDirFor } from '../sessions/sessionBaseDir';
import { askModal, showWarning } from '../platform/notify';
import { log } from '../platform/logging';

export type LinkOutcome = 'opened' | 'declined' | 'refused';

/**
 * Opens a file link from the summary panel after fileLinkPolicy's decision:
 * opens files inside the workspace folders or the session's cwd, asks (a
 * modal) before opening any other file, refuses everything else with a
 * warning. `confirm` and `open` can be replaced (Arbor's tests answer the
 * question and watch what opens through them).
 */
export class FileLinkOpener {
  /** Asks before opening a file outside the workspace and the session's folder. */
  confirm: (file: string) => Promise<boolean> = async (file) =>
    (await askModal(
      `Open a file outside the workspace? ${file}`,
      "The link comes from a session file and points outside the open workspace folders and the session's working directory.",
      'Open',
    )) === 'Open';

  open: (uri: vscode.Uri) => Promise<unknown> = (uri) =>
    Promise.resolve(vscode.window.showTextDocument(uri, { preview: true, viewColumn: vscode.ViewColumn.Beside }));

  decide(link: FileLink, sessionCwd: string): LinkDecision {
    const workspaceFolders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
    return decideFileLink(link.path, link.resolved, { workspaceFolders, sessionCwd, base: baseDirFor(sessionCwd) });
  }

  async openLink(link: FileLink, sessionCwd: string): Promise<LinkOutcome> {
    const decision = this.decide(link, sessionCwd);
    if (decision.kind === 'refuse') {
      log().warn(`file link refused: ${decision.reason}`);
      void showWarning(`Arbor: not opened: ${decision.reason}.`);
      return 'refused';
    }
    if (decision.kind === 'ask' && !(await this.confirm(decision.file))) {
      log().info(`file link outside the workspace not opened (declined): ${decision.file}`);
      return 'declined';
    }
    await this.open(vscode.Uri.file(decision.file));
    return 'opened';
  }
}
