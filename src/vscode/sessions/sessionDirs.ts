import * as vscode from 'vscode';
import { sessionsDirFor } from '../../engine/session/discovery';
import { engineEnv, readConfig } from '../platform/settings';

/** Where the files added with "Open Session File..." are remembered, per workspace. */
const OPENED_KEY = 'arbor.openedSessions';

/** Pi's session folders for the open workspace folders (file folders only). */
export function workspaceSessionDirs(): { folder: string; dir: string }[] {
  const env = engineEnv(readConfig());
  return (vscode.workspace.workspaceFolders ?? [])
    .filter((f) => f.uri.scheme === 'file')
    .map((f) => ({ folder: f.uri.fsPath, dir: sessionsDirFor(f.uri.fsPath, env) }));
}

/** The files added with "Open Session File..." in this workspace. */
export function openedFiles(memento: vscode.Memento): string[] {
  return memento.get<string[]>(OPENED_KEY, []);
}

/** Remembers an opened file (once). */
export async function rememberOpened(memento: vscode.Memento, file: string): Promise<void> {
  const opened = openedFiles(memento);
  if (!opened.includes(file)) await memento.update(OPENED_KEY, [...opened, file]);
}

/** Forgets an opened file that is gone. */
export async function forgetOpened(memento: vscode.Memento, file: string): Promise<void> {
  await memento.update(
    OPENED_KEY,
    openedFiles(memento).filter((f) => f !== file),
  );
}
