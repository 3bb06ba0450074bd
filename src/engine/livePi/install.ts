import { promises as fsp, constants as fsConstants } from 'node:fs';
import * as path from 'node:path';

/**
 * Installing Arbor's bridge into Pi: one file, `arbor-bridge.js`, in Pi's
 * global extensions folder (`<agent folder>/extensions/`), which Pi loads at
 * start. Its first line names it and its version; a file of that name that
 * is not Arbor's is never replaced or removed.
 */

export const BRIDGE_FILE_NAME = 'arbor-bridge.js';
const MARK = '// arbor-pi-bridge ';

export type BridgeInstallState =
  | { kind: 'absent'; file: string }
  | { kind: 'current'; file: string; version: string }
  | { kind: 'different'; file: string; version: string }
  | { kind: 'foreign'; file: string };

export function extensionsFolder(agentDir: string): string {
  return path.join(agentDir, 'extensions');
}

export function bridgeInstallPath(agentDir: string): string {
  return path.join(extensionsFolder(agentDir), BRIDGE_FILE_NAME);
}

/** The version named on a bridge bundle's first line, or undefined when the text is not Arbor's bridge. */
export function bridgeVersionOf(text: string): string | undefined {
  if (!text.startsWith(MARK)) return undefined;
  const v = /^\/\/ arbor-pi-bridge (\S+?):?\s/.exec(text)?.[1];
  return v;
}

async function readSmall(file: string): Promise<string | undefined> {
  let fh: fsp.FileHandle | undefined;
  try {
    fh = await fsp.open(file, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0) | (fsConstants.O_NONBLOCK ?? 0));
    const st = await fh.stat();
    if (!st.isFile() || st.size > 16 * 1024 * 1024) return '';
    return await fh.readFile('utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') return '';
    throw err;
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

async function bundleText(bundlePath: string): Promise<string> {
  const text = await fsp.readFile(bundlePath, 'utf8');
  if (!bridgeVersionOf(text)) throw new Error(`${bundlePath} is not Arbor's bridge bundle (run the build)`);
  return text;
}

/** What is installed in an agent folder, compared with the bundle Arbor ships. */
export async function bridgeInstallState(agentDir: string, bundlePath: string): Promise<BridgeInstallState> {
  const file = bridgeInstallPath(agentDir);
  const installed = await readSmall(file);
  if (installed === undefined) return { kind: 'absent', file };
  const version = bridgeVersionOf(installed);
  if (!version) return { kind: 'foreign', file };
  return installed === (await bundleText(bundlePath)) ? { kind: 'current', file, version } : { kind: 'different', file, version };
}

export interface InstallResult {
  file: string;
  /** installed: there was none; replaced: an older (or other) version was; unchanged: this very bundle was. */
  action: 'installed' | 'replaced' | 'unchanged';
  version: string;
  previousVersion?: string;
}

/** Installs (or replaces) the bridge, atomically; idempotent. A foreign file of the same name is refused. */
export async function installBridge(agentDir: string, bundlePath: string): Promise<InstallResult> {
  const text = await bundleText(bundlePath);
  const version = bridgeVersionOf(text) ?? '?';
  const state = await bridgeInstallState(agentDir, bundlePath);
  if (state.kind === 'foreign')
    throw new Error(`${state.file} exists and is not Arbor's bridge; move it away first (Arbor does not replace it)`);
  if (state.kind === 'current') return { file: state.file, action: 'unchanged', version };
  await fsp.mkdir(extensionsFolder(agentDir), { recursive: true });
  const tmp = `${state.file}.${process.pid}.tmp`;
  try {
    await fsp.writeFile(tmp, text, { mode: 0o644, flag: 'wx' });
    await fsp.rename(tmp, state.file);
  } finally {
    await fsp.rm(tmp, { force: true }).catch(() => undefined);
  }
  return state.kind === 'absent'
    ? { file: state.file, action: 'installed', version }
    : { file: state.file, action: 'replaced', version, previousVersion: state.version };
}

/** Removes the installed bridge (only Arbor's own file). Returns whether one was removed. */
export async function uninstallBridge(agentDir: string): Promise<{ file: string; removed: boolean }> {
  const file = bridgeInstallPath(agentDir);
  const installed = await readSmall(file);
  if (installed === undefined) return { file, removed: false };
  if (!bridgeVersionOf(installed)) throw new Error(`${file} is not Arbor's bridge; Arbor does not remove it`);
  await fsp.rm(file, { force: true });
  return { file, removed: true };
}
