import { constants as C, promises as fs, type BigIntStats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ArborUsageError } from '../session/diagnostics';
import { agentName, agentOfRecord, type AgentKind } from '../session/agents/agentKind';

/**
 * Writing an export where the user asked, never onto a session: the out
 * path's symbolic links are followed to the file they lead to, which is
 * written (the link stays a link); a path leading into /dev or /proc (a
 * device, /dev/stdout, a descriptor) or to anything not a regular file is
 * refused. The target is compared by device and inode with the session file
 * (a hard link, a symlinked folder), and a `.jsonl` name or a file whose first
 * line parses as a session record is refused (Arbor and Pi read those as
 * sessions). The document goes to a temporary file beside the target,
 * fsynced, then takes the target's name: by rename over an existing file (only
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

/** How many bytes of a file's first line are read to tell whether it is a session header. */
const HEADER_LINE_BYTES = 1 << 20;

/**
 * What makes `file` a session, when its first non-blank line is an agent's
 * session record (Pi's `{"type":"session",...}` header, in any key order and
 * spacing: the line is parsed, never matched as a prefix); undefined when it
 * is not. A first line longer than HEADER_LINE_BYTES that starts like JSON
 * cannot be told apart, so it counts.
 */
async function sessionKindOf(file: string): Promise<string | undefined> {
  let h: FileHandle | undefined;
  try {
    h = await fs.open(file, C.O_RDONLY | (C.O_NONBLOCK ?? 0) | (C.O_NOFOLLOW ?? 0));
    const buf = Buffer.alloc(HEADER_LINE_BYTES);
    let filled = 0;
    for (let n = -1; n !== 0 && filled < buf.length; filled += n) n = (await h.read(buf, filled, buf.length - filled, filled)).bytesRead;
    const text = buf
      .toString('utf8', 0, filled)
      .replace(/^\uFEFF/, '')
      .trimStart();
    const nl = text.indexOf('\n');
    if (nl < 0 && filled === buf.length)
      return text.startsWith('{') ? `a file whose first line (over ${HEADER_LINE_BYTES >> 20} MB) may be a session header` : undefined;
    let agent: AgentKind | undefined;
    try {
      agent = agentOfRecord(JSON.parse(nl < 0 ? text : text.slice(0, nl)));
    } catch {
      return undefined;
    }
    return agent && `a ${agentName(agent)} session file`;
  } catch {
    return undefined;
  } finally {
    await h?.close();
  }
}

/** Folders whose entries are devices or open descriptors (/dev/stdout, /proc/self/fd/1), never files to export to. */
const isSpecialFolder = (dir: string) => /^\/(dev|proc)(\/|$)/.test(dir);

/** Symbolic links followed from --out before it counts as a loop (as the kernel's limit). */
const MAX_LINK_HOPS = 40;

/**
 * Where `out` leads: its folder's real path and the final name, following
 * symbolic links one at a time (the document is written there, beside the
 * link's target, and the link stays). A path that leads into /dev or /proc
 * (a device, /dev/stdout, a descriptor) is refused.
 */
async function resolveOut(out: string): Promise<{ dir: string; name: string }> {
  let p = path.resolve(out);
  for (let hop = 0; hop <= MAX_LINK_HOPS; hop++) {
    const name = path.basename(p);
    if (!name || name === '.' || name === '..') throw new ArborUsageError(`--out ${out}: not a file name`);
    let dir: string;
    try {
      dir = await fs.realpath(path.dirname(p));
    } catch {
      throw new ArborUsageError(`--out ${out}: the folder ${path.dirname(p)} does not exist`);
    }
    if (!(await fs.stat(dir)).isDirectory()) throw new ArborUsageError(`--out ${out}: ${path.dirname(p)} is not a folder`);
    const where = path.join(dir, name);
    if (isSpecialFolder(dir))
      throw new ArborUsageError(
        `--out ${out}${where === path.resolve(out) ? '' : ` leads to ${where}, which`} is a device or an open descriptor, not a file: ` +
          'leave out --out to write to stdout, or name a file',
      );
    const st = await statOrUndefined(where, true);
    if (!st?.isSymbolicLink()) return { dir, name };
    p = path.resolve(dir, await fs.readlink(where));
  }
  throw new ArborUsageError(`--out ${out}: too many levels of symbolic links`);
}

/**
 * Checks the out path; returns where the document goes (the real folder and the name, links followed) and whether
 * a file is there. Throws ArborUsageError (exit 2) with the reason.
 */
export async function checkExportTarget(out: string, options: ExportFileOptions): Promise<{ dir: string; name: string; exists: boolean }> {
  const given = path.basename(path.resolve(out));
  if (!given || given === '.' || given === '..') throw new ArborUsageError(`--out ${out}: not a file name`);
  const { dir, name } = await resolveOut(out);
  for (const n of [given, name])
    if (/\.jsonl$/i.test(n))
      throw new ArborUsageError(`--out ${out}: a .jsonl file is read as a session by Arbor and Pi; export to .md or .html`);
  const target = path.join(dir, name);
  const session = await statOrUndefined(options.session);
  const there = await statOrUndefined(target, true);
  if (session && there && sameInode(session, there))
    throw new ArborUsageError(`--out ${out} is the session file itself (through a link): refusing to overwrite it`);
  if (path.resolve(options.session) === target || (await fs.realpath(options.session).catch(() => '')) === target)
    throw new ArborUsageError(`--out ${out} is the session file itself: refusing to overwrite it`);
  const linked = (await statOrUndefined(path.resolve(out), true))?.isSymbolicLink() === true;
  if (there) {
    if (!there.isFile())
      throw new ArborUsageError(`--out ${out}${linked ? ` leads to ${target}, which` : ''} exists and is not a regular file`);
    const kind = await sessionKindOf(target);
    if (kind) throw new ArborUsageError(`--out ${out} is ${kind}: refusing to overwrite it`);
  }
  if ((there || linked) && !options.force) throw new ArborUsageError(`--out ${out} exists: pass --force to replace it`);
  return { dir, name, exists: there !== undefined };
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
    // Checked again right before the document takes the name (a link changed meanwhile is refused).
    const again = await checkExportTarget(out, options);
    if (path.join(again.dir, again.name) !== target) throw new ArborUsageError(`--out ${out} changed while exporting: nothing was written`);
    const { exists } = again;
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
