import { createHash } from 'node:crypto';
import { lstatSync, promises as fsp, constants as fsConstants } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { PiIdentity } from './protocol';
import { ensurePrivateFolder } from '../session/privateFolder';

/**
 * Where a live Pi with Arbor's bridge announces itself: one registry file per
 * running session in `<Pi agent folder>/arbor-bridge/` (mode 0700, owned by
 * the user), each `<pid>-<random>.json` (mode 0600) naming the session file,
 * the endpoint and a random token. Written by the bridge (src/piBridge), read
 * by Arbor (findLivePi.ts). Node built-ins only: the bridge bundles this file.
 */

export const REGISTRY_FORMAT = 1;
export const BRIDGE_FOLDER = 'arbor-bridge';
/** Longest Unix socket path the kernels we run on accept (sun_path is 108 bytes on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 100;

export interface RegistryEntry extends PiIdentity {
  format: number;
  endpoint: string;
  token: string;
  startedAt: string;
  /** The machine the bridge runs on (os.hostname()); entries written before it was recorded have none. */
  host?: string;
}

export function bridgeFolder(agentDir: string): string {
  return path.join(agentDir, BRIDGE_FOLDER);
}

export { ensurePrivateFolder };

/**
 * The endpoint of one bridge: a Unix socket in the private folder, or, where
 * that path would be too long for a socket, one in a folder only the user can
 * have made: under `$XDG_RUNTIME_DIR` (the user's own 0700 folder) when it is
 * set and private, else a folder of this bridge alone under the system's
 * temporary folder whose name holds the bridge's random name (no other user
 * can guess it to make it first). A named pipe on Windows. `own`: the folder
 * is this bridge's alone (removed with the socket).
 */
export function endpointPath(agentDir: string, name: string): { endpoint: string; folder: string | null; own: boolean } {
  if (process.platform === 'win32') return { endpoint: `\\\\.\\pipe\\arbor-bridge-${name}`, folder: null, own: false };
  const folder = bridgeFolder(agentDir);
  const endpoint = path.join(folder, `${name}.sock`);
  if (Buffer.byteLength(endpoint) <= MAX_SOCKET_PATH) return { endpoint, folder, own: false };
  const tag = createHash('sha256').update(agentDir).digest('hex').slice(0, 12);
  const runtime = privateRuntimeDir();
  if (runtime) {
    const short = path.join(runtime, `arbor-bridge-${tag}`);
    const inRuntime = path.join(short, `${name}.sock`);
    if (Buffer.byteLength(inRuntime) <= MAX_SOCKET_PATH) return { endpoint: inRuntime, folder: short, own: false };
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  // One level right under the temporary folder (sticky where it is shared), named after the bridge's random name.
  const own = path.join(
    os.tmpdir(),
    `arbor-bridge-${uid}-${createHash('sha256').update(`${agentDir}\0${name}`).digest('hex').slice(0, 16)}`,
  );
  return { endpoint: path.join(own, 's.sock'), folder: own, own: true };
}

/** `$XDG_RUNTIME_DIR` when it is a real folder of this user's that others cannot reach. */
function privateRuntimeDir(): string | undefined {
  const dir = process.env.XDG_RUNTIME_DIR;
  if (!dir || !path.isAbsolute(dir)) return undefined;
  try {
    const st = lstatSync(dir);
    if (!st.isDirectory() || (st.mode & 0o077) !== 0) return undefined;
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

/** Writes an entry atomically (temporary file, then rename) with mode 0600. */
export async function writeRegistryEntry(agentDir: string, name: string, entry: RegistryEntry): Promise<string> {
  return writePrivateJson(agentDir, name, entry);
}

/** Writes `<bridge folder>/<name>.json` atomically (temporary file, then rename), mode 0600, in the private folder. */
export async function writePrivateJson(agentDir: string, name: string, entry: unknown): Promise<string> {
  const dir = bridgeFolder(agentDir);
  await ensurePrivateFolder(dir);
  const file = path.join(dir, `${name}.json`);
  const tmp = `${file}.${process.pid}.tmp`;
  const fh = await fsp.open(tmp, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | (fsConstants.O_NOFOLLOW ?? 0), 0o600);
  try {
    await fh.writeFile(JSON.stringify(entry));
  } finally {
    await fh.close();
  }
  await fsp.rename(tmp, file);
  return file;
}

export async function removeQuietly(file: string): Promise<void> {
  await fsp.rm(file, { force: true }).catch(() => undefined);
}

export function isProcessAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isEntry(v: unknown): v is RegistryEntry {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return (
    o.format === REGISTRY_FORMAT &&
    typeof o.pid === 'number' &&
    typeof o.sessionFile === 'string' &&
    typeof o.endpoint === 'string' &&
    typeof o.token === 'string' &&
    o.token.length >= 32 &&
    typeof o.piVersion === 'string' &&
    typeof o.bridgeVersion === 'string' &&
    typeof o.cwd === 'string' &&
    typeof o.sessionId === 'string' &&
    (o.host === undefined || typeof o.host === 'string')
  );
}

export interface ListedEntry {
  file: string;
  entry: RegistryEntry;
}

/** The bridge folder and its file names, when it is the user's private folder (else none: nothing in it is trusted). */
export async function privateBridgeFolder(agentDir: string): Promise<{ dir: string; names: string[] }> {
  const dir = bridgeFolder(agentDir);
  if (!(await isPrivateFolder(dir))) return { dir, names: [] };
  try {
    return { dir, names: await fsp.readdir(dir) };
  } catch {
    return { dir, names: [] };
  }
}

/**
 * The live bridges announced in an agent folder. An entry whose process is
 * gone is stale: it is removed and not listed, and its socket with it only
 * when that is this host's and Arbor's own (isOwnStaleSocket). Files that
 * are not ours, are not regular, can be read by others or do not parse are
 * passed over. A missing folder holds none.
 */
export async function listRegistry(agentDir: string): Promise<ListedEntry[]> {
  const { dir, names } = await privateBridgeFolder(agentDir);
  const out: ListedEntry[] = [];
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const file = path.join(dir, name);
    const entry = await readEntry(file);
    if (!entry) continue;
    if (!isProcessAlive(entry.pid)) {
      await removeQuietly(file);
      if (await isOwnStaleSocket(agentDir, entry)) await removeQuietly(entry.endpoint);
      continue;
    }
    out.push({ file, entry });
  }
  return out;
}

/**
 * Whether a dead bridge's endpoint is Arbor's to remove: the entry names this
 * host (an entry without a host, or another host's on a shared home folder,
 * is not: its pid says nothing here), and the endpoint is a socket of this
 * user's right inside the folder a bridge of this agent folder puts its
 * socket in. Anything else (a file, a link, a socket elsewhere) is left alone.
 */
async function isOwnStaleSocket(agentDir: string, entry: RegistryEntry): Promise<boolean> {
  if (process.platform === 'win32' || entry.host !== os.hostname()) return false;
  const { folder } = endpointPath(agentDir, path.basename(entry.endpoint, '.sock'));
  if (folder === null || !path.isAbsolute(entry.endpoint) || path.dirname(entry.endpoint) !== folder) return false;
  const mine = (st: { uid: number }) => typeof process.getuid !== 'function' || st.uid === process.getuid();
  try {
    const dir = await fsp.lstat(folder);
    if (!dir.isDirectory() || !mine(dir)) return false;
    const st = await fsp.lstat(entry.endpoint);
    return st.isSocket() && mine(st);
  } catch {
    return false;
  }
}

/** A real folder (not a link) of this user's that others cannot reach; false when missing. Someone else's folder, or a link to one, announces nothing. */
async function isPrivateFolder(dir: string): Promise<boolean> {
  try {
    const st = await fsp.lstat(dir);
    if (!st.isDirectory()) return false;
    if (process.platform === 'win32') return true;
    return (st.mode & 0o077) === 0 && (typeof process.getuid !== 'function' || st.uid === process.getuid());
  } catch {
    return false;
  }
}

async function readEntry(file: string): Promise<RegistryEntry | undefined> {
  let fh: fsp.FileHandle | undefined;
  try {
    fh = await fsp.open(file, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0) | (fsConstants.O_NONBLOCK ?? 0));
    const st = await fh.stat();
    if (!st.isFile() || st.size > 64 * 1024) return undefined;
    if (process.platform !== 'win32') {
      if ((st.mode & 0o077) !== 0) return undefined;
      if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return undefined;
    }
    const parsed: unknown = JSON.parse(await fh.readFile('utf8'));
    return isEntry(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

/** Two paths name the same session file (resolved through links; case as the file system has it). */
export async function sameFile(a: string, b: string): Promise<boolean> {
  if (path.resolve(a) === path.resolve(b)) return true;
  try {
    const [sa, sb] = await Promise.all([fsp.stat(a), fsp.stat(b)]);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return false;
  }
}
