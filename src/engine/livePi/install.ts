import { createHash } from 'node:crypto';
import { promises as fsp, constants as fsConstants } from 'node:fs';
import * as path from 'node:path';
import { bridgeFolder, ensurePrivateFolder } from './registry';

/**
 * Installing Arbor's bridge into Pi: one file, `arbor-bridge.js`, in Pi's
 * global extensions folder (`<agent folder>/extensions/`), which Pi loads at
 * start. Its first line names it and its version; a file of that name that
 * is not Arbor's is never replaced or removed.
 *
 * Pi runs that file as code, so whatever the umask: folders Arbor makes are
 * 0700, the file 0644 (0600 for the record below), and an extensions folder
 * (or agent folder) another user can write to, or that belongs to someone
 * else, is refused. The file's SHA-256 at install is kept in the private
 * bridge folder (`installed.json`), so a file changed since (by anyone) is
 * reported as changed, not as "another version".
 */

export const BRIDGE_FILE_NAME = 'arbor-bridge.js';
const MARK = '// arbor-pi-bridge ';

export type BridgeInstallState =
  | { kind: 'absent'; file: string }
  | { kind: 'current'; file: string; version: string }
  /** Another bundle than the one Arbor ships, as Arbor installed it: an older or newer version, or another build of this one. */
  | { kind: 'different'; file: string; version: string; sameVersion: boolean }
  /** Not what Arbor installed: its content changed since (or Arbor has no record of installing it), or others can write it. */
  | { kind: 'changed'; file: string; version: string; reason: string }
  | { kind: 'foreign'; file: string };

/** Where Arbor records the hash of the bridge it installed. */
function installRecordPath(agentDir: string): string {
  return path.join(bridgeFolder(agentDir), 'installed.json');
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

async function installedHash(agentDir: string): Promise<string | undefined> {
  const text = await readSmall(installRecordPath(agentDir)).catch(() => undefined);
  if (!text) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    const hash = typeof parsed === 'object' && parsed !== null && 'sha256' in parsed ? parsed.sha256 : undefined;
    return typeof hash === 'string' ? hash : undefined;
  } catch {
    return undefined;
  }
}

/** Why a folder Pi loads code from is unsafe (another user owns it or can write to it), or undefined when it is safe or missing. */
async function unsafeFolder(dir: string): Promise<string | undefined> {
  if (process.platform === 'win32') return undefined;
  let st;
  try {
    st = await fsp.stat(dir);
  } catch {
    return undefined;
  }
  if (typeof process.getuid === 'function' && st.uid !== process.getuid() && st.uid !== 0) return `${dir} belongs to another user`;
  if ((st.mode & 0o022) !== 0)
    return `${dir} can be written by other users (mode ${(st.mode & 0o777).toString(8)}), who could replace the code Pi loads from it; run chmod go-w on it`;
  return undefined;
}

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

async function readSmall(file: string, onStat?: (st: import('node:fs').Stats) => void): Promise<string | undefined> {
  let fh: fsp.FileHandle | undefined;
  try {
    fh = await fsp.open(file, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0) | (fsConstants.O_NONBLOCK ?? 0));
    const st = await fh.stat();
    if (!st.isFile() || st.size > 16 * 1024 * 1024) return '';
    onStat?.(st);
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
  let writableByOthers = false;
  const installed = await readSmall(file, (st) => {
    writableByOthers =
      process.platform !== 'win32' && ((st.mode & 0o022) !== 0 || (typeof process.getuid === 'function' && st.uid !== process.getuid()));
  });
  if (installed === undefined) return { kind: 'absent', file };
  const version = bridgeVersionOf(installed);
  if (!version) return { kind: 'foreign', file };
  if (writableByOthers) return { kind: 'changed', file, version, reason: 'other users can write it (or it is not yours)' };
  const unsafe = (await unsafeFolder(extensionsFolder(agentDir))) ?? (await unsafeFolder(agentDir));
  if (unsafe) return { kind: 'changed', file, version, reason: unsafe };
  const bundle = await bundleText(bundlePath);
  const recorded = await installedHash(agentDir);
  if (recorded === undefined)
    return { kind: 'changed', file, version, reason: 'Arbor has no record of installing it (an older Arbor, or a copy by hand)' };
  if (sha256(installed) !== recorded)
    return { kind: 'changed', file, version, reason: 'its content is not what Arbor installed (edited or replaced since)' };
  if (installed === bundle) return { kind: 'current', file, version };
  return { kind: 'different', file, version, sameVersion: version === bridgeVersionOf(bundle) };
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
  await makeFolder(agentDir);
  await makeFolder(extensionsFolder(agentDir));
  for (const dir of [agentDir, extensionsFolder(agentDir)]) {
    const unsafe = await unsafeFolder(dir);
    if (unsafe) throw new Error(`Arbor does not install code Pi runs into a folder others can change: ${unsafe}; nothing was installed`);
  }
  // The record first (in the private bridge folder): a bridge file never exists without the hash it was installed with.
  await ensurePrivateFolder(bridgeFolder(agentDir));
  await writeAtomically(installRecordPath(agentDir), JSON.stringify({ sha256: sha256(text), version }), 0o600);
  await writeAtomically(state.file, text, 0o644);
  return state.kind === 'absent'
    ? { file: state.file, action: 'installed', version }
    : { file: state.file, action: 'replaced', version, previousVersion: state.version };
}

/** Makes a folder 0700 (whatever the umask) when it is missing; an existing one is left as it is (and checked by the caller). */
async function makeFolder(dir: string): Promise<void> {
  try {
    await fsp.mkdir(dir, { mode: 0o700 });
    await fsp.chmod(dir, 0o700);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      await makeFolder(path.dirname(dir));
      await makeFolder(dir);
    } else if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/** Writes `file` through a temporary file and a rename, with exactly `mode` (chmod: the umask does not apply). */
async function writeAtomically(file: string, text: string, mode: number): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await fsp.writeFile(tmp, text, { mode, flag: 'wx' });
    await fsp.chmod(tmp, mode);
    await fsp.rename(tmp, file);
  } finally {
    await fsp.rm(tmp, { force: true }).catch(() => undefined);
  }
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
