import * as vscode from 'vscode';
import * as path from 'node:path';
import type { ArborServices } from '../services';
import { exportBranch, exportPieces, type ExportFormat } from '../../engine/export/exportBranch';
import { writeExportFile } from '../../engine/export/exportFile';
import { exportFileName } from '../../engine/export/exportName';
import { showInfo } from '../platform/notify';
import { parseCommandTarget, targetEntry, targetFile } from '../tree/commandTarget';

export interface ExportBranchOptions {
  format?: ExportFormat;
  /** Where to write (skips the save dialog). */
  target?: vscode.Uri;
}

/**
 * Arbor: Export Branch. The active path of a session (from a session row),
 * or the branch ending at an entry (from an entry row), as Markdown or a
 * self-contained HTML page, written where the user picks.
 */
export async function exportBranchCommand(
  arbor: ArborServices,
  node?: unknown,
  options: ExportBranchOptions = {},
): Promise<vscode.Uri | undefined> {
  const on = parseCommandTarget(node ?? arbor.treeView.selection[0]);
  const model = await arbor.resolveSession(targetFile(on));
  if (!model) return undefined;
  const session = await arbor.peekSession(model.file);
  if (!session) throw new Error(`${model.file} could not be loaded`);
  const leafId = targetEntry(on)?.entryId;
  let format = options.format;
  if (!format) {
    const pick = await vscode.window.showQuickPick(
      [
        { label: 'Markdown', description: '.md', format: 'md' as const },
        { label: 'HTML page', description: '.html, self-contained', format: 'html' as const },
      ],
      { title: `Arbor: export ${leafId ? `the branch ending at ${leafId}` : 'the current branch'}`, placeHolder: 'Format' },
    );
    if (!pick) return undefined;
    format = pick.format;
  }
  let target = options.target;
  if (!target) {
    // Named after the session, in the workspace (else beside the session); the dialog lets the user put it anywhere.
    const dir = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(path.dirname(model.file));
    target = await vscode.window.showSaveDialog({
      title: 'Arbor: Export Branch',
      defaultUri: vscode.Uri.joinPath(dir, exportFileName({ title: session.title, leafId, format })),
      filters: format === 'html' ? { HTML: ['html'] } : { Markdown: ['md'] },
    });
    if (!target) return undefined;
  }
  if (target.scheme === 'file') {
    // The CLI's writer: streamed, never onto the session (device and inode), atomic; the save dialog already asked about replacing.
    await writeExportFile(target.fsPath, exportPieces(session.index, { format, leafId, title: session.title }), {
      session: model.file,
      force: true,
    });
  } else {
    const text = await exportBranch(session.index, { format, leafId, title: session.title });
    await vscode.workspace.fs.writeFile(target, Buffer.from(text, 'utf8'));
  }
  void showInfo(`Arbor: exported to ${target.fsPath}`);
  return target;
}
