import * as fs from 'fs';
import * as vscode from 'vscode';

/** Where a session's relative paths point: its cwd, or (a session from another machine) the workspace folder. */
export function baseDirFor(cwd: string): string {
  if (cwd && fs.existsSync(cwd)) return cwd;
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
  return folder?.uri.fsPath ?? cwd ?? '';
}
