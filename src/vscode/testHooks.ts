import * as vscode from 'vscode';
import type { ArborServices } from './services';
import type { ContextStatusBar } from './status/statusBar';
import type { LiveWatcher } from './sessions/liveWatcher';
import type { FileLinkOpener } from './panels/fileLinkOpener';
import type { WebviewHost } from './panels/webviewHost';
import type { EntryView } from '../webview/protocol';
import { onDidLog } from './platform/logging';
import { onDidNotify } from './platform/notify';

/**
 * What Arbor's own integration tests observe inside the extension host. Not
 * part of the API activate() returns: this module is loaded, and its command
 * registered, only when VS Code runs the extension in ExtensionMode.Test.
 */
export interface ArborInternals {
  services: ArborServices;
  statusBar: ContextStatusBar;
  liveWatcher: LiveWatcher;
  /** Opens the panel's file links; tests replace its `confirm`. */
  fileLinks: FileLinkOpener;
  /** The entry panel (Arbor: Show Entry): what it shows. */
  entryPanel: WebviewHost<EntryView>;
  /** How many times the session store indexed `file` in full (counted by the loader extension.ts gives the store in test mode). */
  indexLoads: (file: string) => number;
  /** Whether the tokenizer's table is loaded (preloaded after start-up when the estimator is tokenizer). */
  tokenizerLoaded: () => boolean;
  /** Every log line (redacted), as written to Output > Arbor. */
  onDidLog: typeof onDidLog;
  /** Every notification shown (redacted). */
  onDidNotify: typeof onDidNotify;
}

/** The command (not contributed, so not in the palette) that hands the internals to a test in the same extension host. */
export const TEST_INTERNALS_COMMAND = 'arbor.test.internals';

export function registerTestHooks(context: vscode.ExtensionContext, internals: Omit<ArborInternals, 'onDidLog' | 'onDidNotify'>): void {
  const all: ArborInternals = { ...internals, onDidLog, onDidNotify };
  context.subscriptions.push(vscode.commands.registerCommand(TEST_INTERNALS_COMMAND, () => all));
}
