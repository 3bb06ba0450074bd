import * as vscode from 'vscode';
import { redact } from './redact';
import { showError, showInfo } from './notify';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The extension's log: the Output > Arbor channel, every line redacted (see redact.ts). */
export interface ArborLog extends vscode.Disposable {
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string, ...args: unknown[]): void;
  show(preserveFocus?: boolean): void;
}

type LogListener = (level: LogLevel, line: string) => void;
const listeners = new Set<LogListener>();

/** Every line written to the log, after redaction (for Arbor's own tests, through the test-mode internals, src/vscode/testHooks.ts). */
export function onDidLog(listener: LogListener): vscode.Disposable {
  listeners.add(listener);
  return new vscode.Disposable(() => listeners.delete(listener));
}

function text(arg: unknown): string {
  if (arg instanceof Error) return arg.stack ?? arg.message;
  if (typeof arg === 'string') return arg;
  try {
    return JSON.stringify(arg);
  } catch {
    return String(arg);
  }
}

let logger: ArborLog | undefined;

/** The extension's log (Output > Arbor). Errors shown to the user carry their details here. */
export function log(): ArborLog {
  if (logger) return logger;
  const channel = vscode.window.createOutputChannel('Arbor', { log: true });
  const write = (level: LogLevel, message: string, args: unknown[]) => {
    const line = redact([message, ...args.map(text)].join(' '));
    channel[level](line);
    for (const l of listeners) l(level, line);
  };
  const created: ArborLog = {
    debug: (m, ...a) => write('debug', m, a),
    info: (m, ...a) => write('info', m, a),
    warn: (m, ...a) => write('warn', m, a),
    error: (m, ...a) => write('error', m, a),
    show: (preserveFocus) => channel.show(preserveFocus),
    dispose: () => {
      channel.dispose();
      if (logger === created) logger = undefined;
    },
  };
  logger = created;
  return created;
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
 * "Show Log" button, the full error (with stack) in the log. Both redacted.
 */
export async function reportError(what: string, err: unknown): Promise<void> {
  if (isAbort(err)) {
    log().info(`${what}: cancelled`);
    void showInfo(`Arbor: ${what} cancelled. Nothing was written.`);
    return;
  }
  log().error(`${what} failed:`, err instanceof Error ? (err.stack ?? err.message) : String(err));
  // Not awaited: a notification stays until dismissed, and the caller must not wait for that.
  void showError(`Arbor: ${what} failed: ${errorMessage(err)}`, 'Show Log').then((choice) => {
    if (choice === 'Show Log') log().show(true);
  });
}
