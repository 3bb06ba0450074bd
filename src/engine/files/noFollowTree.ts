import { restoreReasons } from './restoreReasons';
import { constants as C, existsSync, promises as fs, type BigIntStats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Files under a working directory, reached without following links.
 *
 * Node has no openat(), so each folder on the way is opened as a handle
 * (O_DIRECTORY | O_NOFOLLOW) and the next component is named through that
 * handle: on Linux as `/proc/self/fd/<fd>/<name>` (the kernel resolves the
 * handle, not the path, so a folder swapped for a symbolic link after it was
 * opened is not followed); elsewhere through the folder's path, after an
 * lstat of the component and a device/inode check of what was opened. Every
 * replace or delete is preceded by `verifyChain`: each folder on the way,
 * looked up again by name from the root without following links, must still
 * be the object (device, inode) that was opened. What remains: a folder moved
 * out of the root between that check and the rename/unlink (microseconds) is
 * still the folder that was verified, so the change lands in it, wherever it
 * now is; outside Linux, a component swapped between its lstat and its open
 * is caught by the device/inode check, but a swap between verifyChain and
 * the write itself is not.
 */

const O_NOFOLLOW = C.O_NOFOLLOW ?? 0;
const O_DIRECTORY = C.O_DIRECTORY ?? 0;
const O_NONBLOCK = C.O_NONBLOCK ?? 0;
const viaProc = process.platform === 'linux' && existsSync('/proc/self/fd');

export class RefusedPath extends Error {}

export interface Identity {
  dev: bigint;
  ino: bigint;
}

/** The working directory itself does not exist: nothing under it can be checked or written. */
export class MissingRoot extends RefusedPath {
  constructor(readonly root: string) {
    super(restoreReasons.cwdMissing(root).text);
    this.name = 'MissingRoot';
  }
}

export interface OpenDir {
  handle: FileHandle;
  id: Identity;
  /** The folder's path as named from the root (for messages and the path check). */
  abs: string;
}

const sameId = (a: Identity, b: Identity) => a.dev === b.dev && a.ino === b.ino;

function errCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException)?.code;
}

/**
 * What separates the parts of a session's relative path here: "/" (and "\\"
 * on Windows only: on Linux and macOS a backslash is a character of a file's
 * name, so `a\b.txt` is one file, not `b.txt` in `a`).
 */
export const PATH_SEPARATORS = process.platform === 'win32' ? /[\\/]/ : /\//;

/** Splits a relative path into components, refusing absolute paths and `..`. */
export function pathParts(rel: string): string[] {
  if (!rel || path.isAbsolute(rel) || /^[a-zA-Z]:/.test(rel)) throw new RefusedPath('not a relative path');
  const parts = rel.split(PATH_SEPARATORS).filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..')) throw new RefusedPath('path leads out of the working directory (..)');
  if (!parts.length) throw new RefusedPath('not a relative path');
  return parts;
}

/** The names tempName makes. */
const TEMP_NAME = /^\..*\.arbor-\d+-[0-9a-f]{8}\.tmp$/s;

export class NoFollowTree {
  private constructor(
    readonly root: string,
    private readonly rootDir: OpenDir,
  ) {}

  /** Opens the working directory (its real path: links in `root` itself are the user's choice). */
  static async open(root: string): Promise<NoFollowTree> {
    let real: string;
    try {
      real = await fs.realpath(root);
    } catch {
      throw new MissingRoot(root);
    }
    const handle = await fs.open(real, C.O_RDONLY | O_DIRECTORY);
    const st = await handle.stat({ bigint: true });
    return new NoFollowTree(real, { handle, id: st, abs: real });
  }

  async close(): Promise<void> {
    await this.rootDir.handle.close().catch(() => undefined);
  }

  /** A name inside an opened folder, resolved through the folder's handle where the system allows. */
  child(dir: OpenDir, name: string): string {
    return viaProc ? `/proc/self/fd/${dir.handle.fd}/${name}` : path.join(dir.abs, name);
  }

  /**
   * Opens the folders leading to `rel`'s last component, without following
   * links. A missing folder is created when `create` is set (and listed in
   * `created`, outermost first), else the result is undefined (so the file is
   * missing). The caller closes the returned folders (closeChain).
   */
  async openParents(
    rel: string,
    options: { create?: boolean; created?: string[] } = {},
  ): Promise<{ chain: OpenDir[]; name: string } | undefined> {
    const parts = pathParts(rel);
    const name = parts.pop()!;
    const chain: OpenDir[] = [this.rootDir];
    try {
      for (const part of parts) {
        const parent = chain[chain.length - 1];
        let dir = await this.openDir(parent, part);
        if (!dir && options.create) {
          try {
            await fs.mkdir(this.child(parent, part), 0o777);
            options.created?.push(path.relative(this.root, path.join(parent.abs, part)).split(path.sep).join('/'));
          } catch (err) {
            if (errCode(err) === 'ENOENT')
              throw new RefusedPath(`a folder on the way (${path.basename(parent.abs)}) was removed during the restore`);
            if (errCode(err) !== 'EEXIST') throw err;
          }
          dir = await this.openDir(parent, part);
        }
        if (!dir) {
          await closeChain(chain);
          return undefined;
        }
        chain.push(dir);
      }
    } catch (err) {
      await closeChain(chain);
      throw err;
    }
    return { chain, name };
  }

  private async openDir(parent: OpenDir, name: string): Promise<OpenDir | undefined> {
    const where = this.child(parent, name);
    let before: BigIntStats | undefined;
    try {
      before = await fs.lstat(where, { bigint: true });
    } catch (err) {
      if (errCode(err) === 'ENOENT') return undefined;
      throw err;
    }
    if (before.isSymbolicLink()) throw new RefusedPath(`a folder on the way (${name}) is a symbolic link`);
    if (!before.isDirectory()) throw new RefusedPath(`${name} on the way is not a folder`);
    let handle: FileHandle;
    try {
      handle = await fs.open(where, C.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch (err) {
      if (errCode(err) === 'ENOTDIR' || errCode(err) === 'ELOOP')
        throw new RefusedPath(`a folder on the way (${name}) was replaced by a link or a file`);
      if (errCode(err) === 'ENOENT') throw new RefusedPath(`a folder on the way (${name}) was removed during the restore`);
      throw err;
    }
    const st = await handle.stat({ bigint: true });
    if (!sameId(st, before)) {
      await handle.close();
      throw new RefusedPath(`a folder on the way (${name}) changed while it was opened`);
    }
    return { handle, id: st, abs: path.join(parent.abs, name) };
  }

  /**
   * Each folder of the chain, looked up again by name from the root without
   * following links, is still the one that was opened: nothing was moved or
   * swapped for a link since.
   */
  async verifyChain(chain: OpenDir[]): Promise<void> {
    const root = await fs.lstat(this.root, { bigint: true });
    if (!sameId(root, chain[0].id)) throw new RefusedPath('the working directory was replaced during the restore');
    for (let i = 1; i < chain.length; i++) {
      let st: BigIntStats;
      try {
        st = await fs.lstat(chain[i].abs, { bigint: true });
      } catch {
        throw new RefusedPath(`a folder on the way (${path.basename(chain[i].abs)}) was moved during the restore`);
      }
      if (st.isSymbolicLink() || !sameId(st, chain[i].id))
        throw new RefusedPath(`a folder on the way (${path.basename(chain[i].abs)}) was moved or replaced during the restore`);
    }
  }

  /** The file `name` in `dir` opened for reading, without following a link and without blocking on a FIFO; undefined when missing. */
  async openFile(dir: OpenDir, name: string): Promise<{ handle: FileHandle; stat: BigIntStats } | undefined> {
    let handle: FileHandle;
    try {
      handle = await fs.open(this.child(dir, name), C.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch (err) {
      if (errCode(err) === 'ENOENT') return undefined;
      if (errCode(err) === 'ELOOP') throw new RefusedPath('is a symbolic link');
      // Linux refuses to open a socket with ENXIO; its message would name the /proc/self/fd path.
      if (errCode(err) === 'ENXIO') throw new RefusedPath('is a socket (or a device), not a regular file');
      throw err;
    }
    const stat = await handle.stat({ bigint: true });
    if (!stat.isFile()) {
      await handle.close();
      throw new RefusedPath('not a regular file');
    }
    return { handle, stat };
  }

  async lstat(dir: OpenDir, name: string): Promise<BigIntStats | undefined> {
    try {
      return await fs.lstat(this.child(dir, name), { bigint: true });
    } catch (err) {
      if (errCode(err) === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** A new name for a temporary file beside `name` (its journal records it before it is made). */
  static tempName(name: string): string {
    return `.${name.slice(0, 100)}.arbor-${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  }

  /** Makes the temporary file `tmp` (exclusive create, no link followed). */
  async createTemp(dir: OpenDir, tmp: string, mode: number): Promise<FileHandle> {
    return fs.open(this.child(dir, tmp), C.O_WRONLY | C.O_CREAT | C.O_EXCL | O_NOFOLLOW, mode);
  }

  async rename(dir: OpenDir, from: string, to: string): Promise<void> {
    await fs.rename(this.child(dir, from), this.child(dir, to));
  }

  /** Puts `from` at `to` only if nothing is there (a hard link, then the temporary name removed). */
  async linkNew(dir: OpenDir, from: string, to: string): Promise<void> {
    await fs.link(this.child(dir, from), this.child(dir, to));
    await this.removeQuietly(dir, from);
  }

  async unlink(dir: OpenDir, name: string): Promise<void> {
    await fs.unlink(this.child(dir, name));
  }

  async removeQuietly(dir: OpenDir, name: string): Promise<void> {
    await fs.unlink(this.child(dir, name)).catch(() => undefined);
  }

  /**
   * Removes what is left of temporary files a killed run named in its journal:
   * only a regular file whose name has the temporary pattern (tempName), never
   * through a link.
   */
  async removeLeftTemps(rels: readonly string[]): Promise<void> {
    for (const rel of rels) {
      if (!TEMP_NAME.test(path.posix.basename(rel))) continue;
      const parents = await this.openParents(rel).catch(() => undefined);
      if (!parents) continue;
      try {
        const dir = parents.chain[parents.chain.length - 1];
        const st = await this.lstat(dir, parents.name);
        if (!st?.isFile()) continue;
        await this.verifyChain(parents.chain);
        await this.removeQuietly(dir, parents.name);
      } catch {
        // moved meanwhile: left alone
      } finally {
        await closeChain(parents.chain);
      }
    }
  }

  /** Removes the folders in `rels` (innermost first) when they are empty; those that are not stay. */
  async removeEmptyDirs(rels: string[]): Promise<void> {
    for (const rel of [...rels].reverse()) {
      const parents = await this.openParents(rel).catch(() => undefined);
      if (!parents) continue;
      try {
        await this.verifyChain(parents.chain);
        await fs.rmdir(this.child(parents.chain[parents.chain.length - 1], parents.name));
      } catch {
        // not empty, or moved: left alone
      } finally {
        await closeChain(parents.chain);
      }
    }
  }
}

/** Closes the folders a walk opened (not the root's handle, which the tree owns). */
export async function closeChain(chain: OpenDir[]): Promise<void> {
  for (const d of chain.slice(1)) await d.handle.close().catch(() => undefined);
}

/** Two lstat/fstat results describe the same, unchanged file. */
export function sameFile(a: BigIntStats, b: BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}
