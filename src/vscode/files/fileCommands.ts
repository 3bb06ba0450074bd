import * as vscode from 'vscode';
import type { ArborServices } from '../services';
import { FILE_SCHEME, FileStepDocuments } from './fileDocuments';
import { showFileChangesCommand, type ShowFileChangesOptions } from './showFileChanges';
import { restoreFilesCommand, restoreFilesTo, undoRestoreCommand, type RestoreFilesOptions, type RestoreFilesResult } from './restoreFiles';

let documents: FileStepDocuments | undefined;

type Register = (id: string, title: string, fn: (...args: never[]) => unknown) => void;

/** The file-change commands and the read-only `arbor-file:` documents their diffs show. */
export function registerFileCommands(context: vscode.ExtensionContext, arbor: ArborServices, register: Register): void {
  const docs = new FileStepDocuments();
  documents = docs;
  context.subscriptions.push(docs, vscode.workspace.registerTextDocumentContentProvider(FILE_SCHEME, docs), {
    dispose: () => (documents = undefined),
  });
  register('arbor.showFileChanges', 'Show File Changes', (node?: unknown, options?: ShowFileChangesOptions) =>
    showFileChangesCommand(arbor, docs, node, options),
  );
  register('arbor.restoreFiles', 'Restore Files to This Point', (node?: unknown, options?: RestoreFilesOptions) =>
    restoreFilesCommand(arbor, docs, node, options),
  );
  register('arbor.undoRestoreFiles', 'Undo Last File Restore', (node?: unknown) => undoRestoreCommand(arbor, node));
}

/**
 * The "also restore files to this point" step of Jump Here, after the leaf
 * moved to `newLeafId`. Asks only when Jump Here itself asked (no options
 * from code); from code, restores only when `restoreFiles` is given.
 */
export async function restoreFilesAfterJump(
  arbor: ArborServices,
  file: string,
  newLeafId: string | null,
  interactive: boolean,
  restoreFiles?: RestoreFilesOptions,
): Promise<RestoreFilesResult | undefined> {
  if (!documents || (!interactive && !restoreFiles)) return undefined;
  const model = await arbor.resolveSession(file);
  const index = model?.index;
  if (!model || !index) return undefined;
  const at = newLeafId === null ? -1 : index.indexOf(newLeafId);
  if (newLeafId !== null && at < 0) return undefined;
  return restoreFilesTo(documents, model, at, restoreFiles, { afterJump: true });
}
