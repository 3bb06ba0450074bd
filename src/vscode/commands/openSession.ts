import * as vscode from 'vscode';
import * as path from 'node:path';
import type { ArborServices } from '../services';
import { rawUri } from '../sessions/readOnlyFiles';
import { reportError } from '../platform/logging';
import { parseCommandTarget, targetEntry, targetFile } from '../tree/commandTarget';

/**
 * Arbor: Open Session File... Adds a JSONL session from anywhere to the Sessions view (remembered per workspace; Remove
 * from List takes it off): Pi's, or Claude Code's or Codex's, shown read-only.
 */
export async function openSessionCommand(arbor: ArborServices, uri?: vscode.Uri): Promise<string | undefined> {
  let target = uri instanceof vscode.Uri ? uri : undefined;
  if (!target) {
    const dirs = arbor.store.sessionDirs();
    const picked = await vscode.window.showOpenDialog({
      // Claude Code's and Codex's sessions open too (read-only): the dialog says so.
      title: "Open a session file: Pi's, or Claude Code's or Codex's (read-only)",
      canSelectMany: false,
      openLabel: 'Open Session',
      filters: { 'Sessions (Pi, Claude Code, Codex)': ['jsonl'], 'All files': ['*'] },
      defaultUri: dirs[0] ? vscode.Uri.file(dirs[0].dir) : undefined,
    });
    if (!picked?.length) return undefined;
    target = picked[0];
  }
  try {
    const model = await arbor.store.addOpened(target.fsPath);
    arbor.setActive(model.file);
    await vscode.commands.executeCommand('arbor.sessions.focus');
    // Retried until VS Code has the new row (the list was just refreshed).
    await arbor.revealRow(() => arbor.tree.sessionNode(model.file), { select: true, focus: true, expand: true });
    return model.file;
  } catch (err) {
    await reportError('Open Session File', err);
    return undefined;
  }
}

/**
 * Arbor: Open Raw Session File. The JSONL itself, read-only (the file is
 * append-only: see readOnlyFiles.ts). Arguments: a session (tree node, file
 * path or URI) and optionally a 1-based line to reveal; an entry node opens
 * at its own line.
 */
export async function openRawCommand(arbor: ArborServices, target?: unknown, line?: number): Promise<vscode.TextEditor | undefined> {
  const parsed = parseCommandTarget(target);
  // A path or URI opens as given (listed or not); a row or nothing goes through the session a command acts on.
  const file =
    parsed.kind === 'session' && !parsed.node ? path.resolve(parsed.file) : (await arbor.resolveSession(targetFile(parsed)))?.file;
  if (!file) return undefined;
  if (line === undefined) line = entryLine(arbor, file, targetEntry(parsed)?.entryId);
  const editor = await vscode.window.showTextDocument(rawUri(file), { preview: true });
  if (typeof line === 'number' && Number.isInteger(line) && line >= 1) {
    const at = new vscode.Position(Math.min(line, editor.document.lineCount) - 1, 0);
    editor.selection = new vscode.Selection(at, at);
    editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenter);
  }
  return editor;
}

/** The line of an entry node's entry in the store's index, if the target is one. */
function entryLine(arbor: ArborServices, file: string, entryId: string | undefined): number | undefined {
  const index = arbor.store.get(file)?.index;
  if (entryId === undefined || !index) return undefined;
  const i = index.indexOf(entryId);
  return i >= 0 ? index.record(i).line : undefined;
}
