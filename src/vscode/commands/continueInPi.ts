import * as vscode from 'vscode';
import { promises as fsp, constants } from 'node:fs';
import * as path from 'node:path';
import type { ArborServices } from '../services';
import { readConfig } from '../platform/settings';
import { baseDirFor } from '../sessions/sessionBaseDir';
import { showWarning } from '../platform/notify';

/** Finds an executable on PATH (or an absolute/relative path that is executable). */
export async function findOnPath(command: string, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const candidates =
    command.includes('/') || command.includes('\\')
      ? [path.resolve(command)]
      : (env.PATH ?? '')
          .split(path.delimiter)
          .filter(Boolean)
          .map((d) => path.join(d, command));
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const c of candidates) {
    for (const ext of exts) {
      try {
        await fsp.access(c + ext, constants.X_OK);
        return c + ext;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/** The npm package of the Pi coding agent, named in the hint when `pi` is not found. */
export const PI_PACKAGE = '@earendil-works/pi-coding-agent';

/**
 * Arbor: Continue in Pi. Opens a terminal running `pi --session FILE` in the
 * session's folder. Pi is the terminal's process (shellPath/shellArgs): no
 * shell reads a command line, so nothing in the file name is expanded.
 */
export async function continueInPiCommand(arbor: ArborServices, node?: unknown): Promise<vscode.Terminal | undefined> {
  const model = await arbor.resolveSession(node);
  if (!model) return undefined;
  const pi = readConfig().piPath;
  const found = await findOnPath(pi);
  if (!found) {
    void showWarning(
      `Arbor: "${pi}" was not found on PATH. Install the Pi coding agent (npm install -g ${PI_PACKAGE}) or set arbor.piPath.`,
      'Open Settings',
    ).then((choice) => {
      if (choice === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'arbor.piPath');
    });
    return undefined;
  }
  const terminal = vscode.window.createTerminal({
    name: `Pi: ${model.title ?? path.basename(model.file)}`,
    cwd: baseDirFor(model.cwd),
    iconPath: new vscode.ThemeIcon('hubot'),
    shellPath: found,
    shellArgs: ['--session', model.file],
  });
  terminal.show();
  return terminal;
}
