import * as vscode from 'vscode';
import { redact } from './redact';

/**
 * Every notification Arbor shows goes through here: the text is redacted
 * (no API key in a message, whatever a provider echoed into an error), and
 * Arbor's tests can see what was shown.
 */
export type NotificationKind = 'info' | 'warning' | 'error';

export interface Notification {
  kind: NotificationKind;
  message: string;
  detail?: string;
  modal: boolean;
  items: string[];
}

type NotifyListener = (n: Notification) => void;
const listeners = new Set<NotifyListener>();

/** Every notification shown, after redaction (for Arbor's own tests, through the test-mode internals, src/vscode/testHooks.ts). */
export function onDidNotify(listener: NotifyListener): vscode.Disposable {
  listeners.add(listener);
  return new vscode.Disposable(() => listeners.delete(listener));
}

function show(kind: NotificationKind, message: string, options: vscode.MessageOptions, items: string[]): Thenable<string | undefined> {
  const n: Notification = {
    kind,
    message: redact(message),
    detail: options.detail === undefined ? undefined : redact(options.detail),
    modal: !!options.modal,
    items,
  };
  for (const l of listeners) l(n);
  const opts: vscode.MessageOptions = { ...options, detail: n.detail };
  if (kind === 'error') return vscode.window.showErrorMessage(n.message, opts, ...items);
  if (kind === 'warning') return vscode.window.showWarningMessage(n.message, opts, ...items);
  return vscode.window.showInformationMessage(n.message, opts, ...items);
}

export function showError(message: string, ...items: string[]): Thenable<string | undefined> {
  return show('error', message, {}, items);
}

export function showWarning(message: string, ...items: string[]): Thenable<string | undefined> {
  return show('warning', message, {}, items);
}

export function showInfo(message: string, ...items: string[]): Thenable<string | undefined> {
  return show('info', message, {}, items);
}

/** A modal question (a warning dialog); resolves to the chosen item, or undefined for Cancel. */
export function askModal(message: string, detail: string | undefined, ...items: string[]): Thenable<string | undefined> {
  return show('warning', message, { modal: true, detail }, items);
}
