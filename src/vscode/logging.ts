import * as vscode from 'vscode';

let channel: vscode.LogOutputChannel | undefined;

/** The extension's log (Output > Arbor). Errors shown to the user carry their details here. */
export function log(): vscode.LogOutputChannel {
  channel ??= vscode.window.createOutputChannel('Arbor', { log: true });
  return channel;
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

export function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || /aborted|cancel/i.test(err.name));
}

/**
 * Reports a failed operation: a notification with a short message and a
 * "Show Log" button, the full error (with stack) in the log.
 */
export async function reportError(what: string, err: unknown): Promise<void> {
  if (isAbort(err)) {
    log().info(`${what}: cancelled`);
    void vscode.window.showInformationMessage(`Arbor: ${what} cancelled. Nothing was written.`);
    return;
  }
  log().error(`${what} failed:`, err instanceof Error ? (err.stack ?? err.message) : String(err));
  // Not awaited: a notification stays until dismissed, and the caller must not wait for that.
  void vscode.window.showErrorMessage(`Arbor: ${what} failed: ${errorMessage(err)}`, 'Show Log').then((choice) => {
    if (choice === 'Show Log') log().show(true);
  });
}
