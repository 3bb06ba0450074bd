import { promises as fsp, realpathSync, statSync, unlinkSync } from 'node:fs';
import * as path from 'node:path';
import { readRegularTextFile, readRegularTextFileSync } from './sessionFile';
import { ensurePrivateFolder } from './privateFolder';

/** A lock file holds one small JSON object; a larger one is not Arbor's. */
const LOCK_MAX_BYTES = 64 * 1024;
import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * The advisory lock Arbor's writers (CLI and extension, any number of
 * processes) take around "check the leaf, append": a lock file beside the
 * session, created with O_EXCL and holding the holder's pid, host and start
 * time. Node has no flock(2), and a lock file also works across the
 * processes of one user on any local file system.
 *
 * - Waiting is bounded (`waitMs`); past it the operation is refused.
 * - A lock whose holder is dead (same host, pid gone) is stale and is broken.
 *   A lock file whose content stays unreadable while we wait (a holder that
 *   died between creating and writing it) is stale too. Liveness is judged
 *   from the holder and the file's content, never from modification times.
 * - The lock is always released: in a finally, and at process exit.
 * Pi itself takes no lock: its appends are guarded by the torn-line wait and
 * the leaf check, not by this.
 */

export interface LockOptions {
  signal?: AbortSignal;
  /** Longest wait for another holder, in ms (default 10 s). */
  waitMs?: number;
  /** Poll interval while waiting, in ms (default 20). */
  pollMs?: number;
  /** An unreadable lock file is taken as stale after this long unchanged, in ms (default 2 s). */
  unreadableMs?: number;
}

/** Another process holds the write lock for longer than Arbor waits. Nothing was written. */
export class SessionLockedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SessionLockedError';
  }
}

interface Holder {
  pid: number;
  host: string;
  since: string;
  token: string;
}

/**
 * Path of the lock file of a session beside it: named by the file's device
 * and inode, in the folder of its real path, so two names of one file (a
 * symbolic link, hard links in one folder) take the same lock, and so do
 * the processes of users sharing the folder. Hard links in two different
 * folders meet at the user's lock (userLockPathFor), taken first.
 */
export function lockPathFor(file: string): string {
  let real = file;
  try {
    real = realpathSync(file);
    const st = statSync(real, { bigint: true });
    return path.join(path.dirname(real), `.${st.dev}-${st.ino}.arbor-lock`);
  } catch {
    // a missing file: the writer reports it
  }
  return `${real}.arbor-lock`;
}

/** The user's own folder of locks by device and inode (0700): every name of a file, in any folder, meets there. */
export function userLockFolder(): string {
  return path.join(os.homedir(), '.cache', 'arbor', 'locks');
}

/** Path of the user's lock of a session (by device and inode), or undefined for a missing file. */
export function userLockPathFor(file: string): string | undefined {
  try {
    const st = statSync(realpathSync(file), { bigint: true });
    return path.join(userLockFolder(), `${st.dev}-${st.ino}.arbor-lock`);
  } catch {
    return undefined; // a missing file: the writer reports it
  }
}

/**
 * The user's lock folder made (0700), or false where it cannot be (a folder
 * someone else owns, a link, a read-only home): the lock beside the file
 * still holds, hard links in other folders are then not excluded.
 */
async function userLockFolderReady(): Promise<boolean> {
  try {
    await ensurePrivateFolder(userLockFolder());
    return true;
  } catch {
    return false;
  }
}

/** Lock files this process holds, removed at exit if a finally never ran (a crash elsewhere, process.exit). */
const held = new Map<string, string>();
let exitHook = false;

function releaseAllAtExit(): void {
  for (const [lockPath, token] of held) removeIfOurs(lockPath, token);
}

function removeIfOurs(lockPath: string, token: string): void {
  try {
    if (parseHolder(readRegularTextFileSync(lockPath, LOCK_MAX_BYTES))?.token === token) unlinkSync(lockPath);
  } catch {
    // already gone
  }
}

/**
 * Runs `fn` holding the session's write lock (other holders in this process
 * wait on the lock file too): the user's lock by device and inode, then the
 * one beside the file, always in that order (no two writers wait on each other).
 */
export async function withSessionLock<T>(file: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const besideFile = () => holdWhile(file, lockPathFor(file), fn, options);
  const userLock = userLockPathFor(file);
  if (!userLock || !(await userLockFolderReady())) return besideFile();
  return holdWhile(file, userLock, besideFile, options);
}

async function holdWhile<T>(file: string, lockPath: string, fn: () => Promise<T>, options: LockOptions): Promise<T> {
  const token = await acquire(file, lockPath, options);
  try {
    return await fn();
  } finally {
    held.delete(lockPath);
    removeIfOurs(lockPath, token);
  }
}

async function acquire(file: string, lockPath: string, options: LockOptions): Promise<string> {
  const waitMs = options.waitMs ?? 10_000;
  const pollMs = options.pollMs ?? 20;
  const unreadableMs = options.unreadableMs ?? 2000;
  const started = Date.now();
  let unreadable: { text: string; since: number } | undefined;
  for (;;) {
    options.signal?.throwIfAborted();
    const token = randomBytes(8).toString('hex');
    if (await tryCreate(lockPath, token)) return token;
    let text: string;
    try {
      // A lock file that is a FIFO or a device is refused (NotRegularFileError), never read.
      text = await readRegularTextFile(lockPath, LOCK_MAX_BYTES);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // released meanwhile: try again at once
      throw err;
    }
    const holder = parseHolder(text);
    if (holder && holderIsDead(holder)) {
      await breakStale(lockPath, text);
      continue;
    }
    if (!holder) {
      if (!unreadable || unreadable.text !== text) unreadable = { text, since: Date.now() };
      else if (Date.now() - unreadable.since >= unreadableMs) {
        await breakStale(lockPath, text);
        unreadable = undefined;
        continue;
      }
    }
    if (Date.now() - started >= waitMs) {
      const who = holder ? `process ${holder.pid} on ${holder.host}, since ${holder.since}` : 'another process';
      throw new SessionLockedError(
        `${file}: another Arbor writer (${who}) holds the write lock ${lockPath}; waited ${Math.round(waitMs / 1000)} s. Nothing was written; try again.`,
      );
    }
    await delay(pollMs, undefined, { signal: options.signal });
  }
}

async function tryCreate(lockPath: string, token: string): Promise<boolean> {
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(lockPath, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  held.set(lockPath, token);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', releaseAllAtExit);
  }
  try {
    const holder: Holder = { pid: process.pid, host: os.hostname(), since: new Date().toISOString(), token };
    await fh.writeFile(JSON.stringify(holder));
  } catch (err) {
    held.delete(lockPath);
    await fh.close();
    await fsp.rm(lockPath, { force: true });
    throw err;
  }
  await fh.close();
  return true;
}

function parseHolder(text: string): Holder | undefined {
  try {
    const v = JSON.parse(text) as Partial<Holder> | null;
    if (v && typeof v.pid === 'number' && typeof v.host === 'string' && typeof v.token === 'string') {
      return { pid: v.pid, host: v.host, since: String(v.since ?? ''), token: v.token };
    }
  } catch {
    // unreadable
  }
  return undefined;
}

/** Only a holder on this host can be judged: its pid no longer runs. */
function holderIsDead(holder: Holder): boolean {
  if (holder.host !== os.hostname()) return false;
  // Our own pid: a lock this process does not hold is a dead process's whose pid we reuse.
  if (holder.pid === process.pid) return ![...held.values()].includes(holder.token);
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Removes a stale lock file, unless it changed since it was judged stale
 * (another process broke it and took the lock meanwhile): it is moved aside
 * under a unique name first, and put back if it is not the one judged.
 */
async function breakStale(lockPath: string, staleText: string): Promise<void> {
  const aside = `${lockPath}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await fsp.rename(lockPath, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const moved = await readRegularTextFile(aside, LOCK_MAX_BYTES).catch(() => staleText);
  if (moved !== staleText) await fsp.link(aside, lockPath).catch(() => undefined);
  await fsp.rm(aside, { force: true });
}
