import * as vscode from 'vscode';

export const FILE_SCHEME = 'arbor-file';
const MAX_KEPT = 200;

/**
 * Read-only documents for the two sides of a file change (what the session
 * says a file held before and after a step, or at a target entry). Contents
 * are handed in when the diff is opened and kept for the most recent ones;
 * the URI path ends with the file's own name so the editor picks its language.
 */
export class FileStepDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private next = 0;

  register(relPath: string, label: string, text: string): vscode.Uri {
    const key = String(++this.next);
    this.texts.set(key, text);
    if (this.texts.size > MAX_KEPT) this.texts.delete(this.texts.keys().next().value!);
    const safe = relPath.replace(/^\/+/, '');
    return vscode.Uri.from({ scheme: FILE_SCHEME, path: `/${label}/${safe}`, query: `k=${key}` });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const key = new URLSearchParams(uri.query).get('k') ?? '';
    return this.texts.get(key) ?? '(this version is no longer kept: open the change again from the Sessions view)';
  }

  dispose(): void {
    this.texts.clear();
  }
}
