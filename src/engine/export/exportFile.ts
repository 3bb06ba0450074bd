import { constants as C, promises as fs, type BigIntStats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ArborUsageError } from '../session/diagnostics';

/**
 * Writing an export where the user asked, never onto a session: the out
 * path (links followed: a symbolic link, a hard link, a symlinked folder) is
 * compared by device and inode with the session file, and a `.jsonl` path or
 * a file that starts like a Pi session is refused (Arbor and Pi read those as
 * sessions). The document goes to a temporary file in the same folder,
 * fsynced, then takes the out path: by rename over an existing file (only
 * with `force`), or by hard link where there was none (so a file that
 * appeared meanwhile is not overwritten). Rename replaces the folder entry,
 * never the bytes of the file it named, so even a link swapped in after the
 * checks cannot make the export write into the session. The temporary file
 * is removed whatever happens.
 */
export interface ExportFileOptions {
  /** The session being exported. */
  session: string;
  /** Replace an existing file. */
  force?: boolean;
  signal?: AbortSignal;
}

/** Pieces are gathered up to this many characters before a write. */
const WRITE_CHARS = 1 << 20;

const sameInode = (a: BigIntStats, b: BigIntStats) => a.dev === b.dev && a.ino === b.ino;

async function statOrUndefined(p: string, lstat = false): Promise<BigIntStats | undefined> {
  try {
    return lstat ? await fs.lstat(p, { bigint: true }) : await fs.stat(p, { bigint: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

async function startsLikeSession(file: string): Promise<boolean> {
  let h: FileHandle | undefined;
  try {
    h = await fs.open(file, C.O_RDONLY | (C.O_NONBLOCK ?? 0));
    const buf = Buffer.alloc(256);
    const { bytesRead } = await h.read(buf, 0, buf.length, 0);
    return /^\s*\{\s*"type"\s*:\s*"session"/.test(buf.toString('utf8', 0, bytesRead));
  } catch {
    return false;
  } finally {
    await h?.close();
  }
}

/**
 * Checks the out path; returns where the document goes (the folder's real path and the name) and whether a file is
 * there. Throws ArborUsageError (exit 2) with the reason.
 */
export async function checkExportTarget(out: string, options: ExportFileOptions): Promise<{ dir: string; name: string; exists: boolean }> {
  const abs = path.resolve(out);
  const name = path.basename(abs);
  if (!name || name === '.' || name === '..') throw new ArborUsageError(`--out ${out}: not a file name`);
  if (/\.jsonl$/i.test(name))
    throw new ArborUsageError(`--out ${out}: a .jsonl file is read as a session by Arbor and Pi; export to .md or .html`);
  let dir: string;
  try {
    dir = await fs.realpath(path.dirname(abs));
  } catch {
    throw new ArborUsageError(`--out ${out}: the folder ${path.dirname(abs)} does not exist`);
  }
  if (!(await fs.stat(dir)).isDirectory()) throw new ArborUsageError(`--out ${out}: ${path.dirname(abs)} is not a folder`);
  const target = path.join(dir, name);
  const session = await statOrUndefined(options.session);
  const there = await statOrUndefined(target);
  if (session && there && sameInode(session, there))
    throw new ArborUsageError(`--out ${out} is the session file itself (through a link): refusing to overwrite it`);
  if (path.resolve(options.session) === target || (await fs.realpath(options.session).catch(() => '')) === target)
    throw new ArborUsageError(`--out ${out} is the session file itself: refusing to overwrite it`);
  const entry = await statOrUndefined(target, true);
  if (entry) {
    if (there && !there.isFile()) throw new ArborUsageError(`--out ${out} exists and is not a regular file`);
    if (await startsLikeSession(target)) throw new ArborUsageError(`--out ${out} is a Pi session file: refusing to overwrite it`);
    if (!options.force) throw new ArborUsageError(`--out ${out} exists: pass --force to replace it`);
  }
  return { dir, name, exists: entry !== undefined };
}

/** Writes the pieces to `out` after checkExportTarget; returns the bytes written. */
export async function writeExportFile(
  out: string,
  pieces: Iterable<string> | AsyncIterable<string>,
  options: ExportFileOptions,
): Promise<{ path: string; bytes: number }> {
  const { dir, name } = await checkExportTarget(out, options);
  const target = path.join(dir, name);
  const tmp = path.join(dir, `.${name.slice(0, 100)}.arbor-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  const h = await fs.open(tmp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | (C.O_NOFOLLOW ?? 0), 0o666);
  let bytes = 0;
  let placed = false;
  try {
    try {
      let pending: string[] = [];
      let chars = 0;
      const flush = async () => {
        if (!pending.length) return;
        const buf = Buffer.from(pending.join(''), 'utf8');
        pending = [];
        chars = 0;
        let off = 0;
        while (off < buf.length) off += (await h.write(buf, off, buf.length - off)).bytesWritten;
        bytes += buf.length;
      };
      for await (const piece of pieces) {
        options.signal?.throwIfAborted();
        pending.push(piece);
        chars += piece.length;
        if (chars >= WRITE_CHARS) await flush();
      }
      await flush();
      await h.sync();
    } finally {
      await h.close();
    }
    // Checked again right before the document takes the name.
    const { exists } = await checkExportTarget(out, options);
    if (exists) await fs.rename(tmp, target);
    else {
      try {
        await fs.link(tmp, target);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST')
          throw new ArborUsageError(`--out ${out} appeared while exporting: pass --force to replace it`);
        throw err;
      }
      await fs.unlink(tmp).catch(() => undefined);
    }
    placed = true;
    return { path: target, bytes };
  } finally {
    if (!placed) await fs.unlink(tmp).catch(() => undefined);
  }
}
