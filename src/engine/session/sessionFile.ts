import { closeSync, constants, fstatSync, openSync, promises as fsp, readSync, statSync, type Stats } from 'node:fs';
import { ArborUsageError } from './diagnostics';

/**
 * Opening a session file: only regular files. A FIFO would block open(2)
 * (and every read) forever, a device could be endless, a directory is not a
 * session. The path is checked with stat first (a clear message at once),
 * then opened with O_NONBLOCK (a FIFO swapped in meanwhile cannot block the
 * open) and the handle itself is checked with fstat (closing that race).
 * O_NONBLOCK changes nothing for a regular file.
 */

/** The path is not a regular file; nothing was opened or written. */
export class NotRegularFileError extends ArborUsageError {
  readonly file: string;
  constructor(file: string, kind: string) {
    super(`${file}: is ${kind}, not a regular file; Arbor opens only regular session files`);
    this.name = 'NotRegularFileError';
    this.file = file;
  }
}

/** What a non-regular file is, in words. */
export function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

function requireRegular(file: string, st: Stats): Stats {
  if (!st.isFile()) throw new NotRegularFileError(file, fileKind(st));
  return st;
}

const NONBLOCK = constants.O_NONBLOCK ?? 0;
const OPEN_FLAGS = {
  r: constants.O_RDONLY | NONBLOCK,
  a: constants.O_WRONLY | constants.O_APPEND | NONBLOCK,
} as const;

export type OpenMode = keyof typeof OPEN_FLAGS;

/** Stats a path (following links) and refuses anything but a regular file. */
export async function statRegularFile(file: string): Promise<Stats> {
  return requireRegular(file, await fsp.stat(file));
}

export function statRegularFileSync(file: string): Stats {
  return requireRegular(file, statSync(file));
}

/** Opens a regular file for reading ('r') or appending ('a'); never blocks on a FIFO. */
export async function openRegularFile(file: string, mode: OpenMode = 'r'): Promise<fsp.FileHandle> {
  await statRegularFile(file);
  const fh = await fsp.open(file, OPEN_FLAGS[mode]);
  try {
    requireRegular(file, await fh.stat());
  } catch (err) {
    await fh.close();
    throw err;
  }
  return fh;
}

/** Synchronous openRegularFile: returns a file descriptor the caller closes. */
export function openRegularFileSync(file: string, mode: OpenMode = 'r'): number {
  statRegularFileSync(file);
  const fd = openSync(file, OPEN_FLAGS[mode]);
  try {
    requireRegular(file, fstatSync(fd));
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return fd;
}

/** The file is larger than a small text file Arbor reads whole (settings, a lock file) may be. */
export class FileTooLargeError extends ArborUsageError {
  constructor(file: string, maxBytes: number) {
    super(`${file}: is larger than ${maxBytes} bytes, more than Arbor reads of such a file`);
    this.name = 'FileTooLargeError';
  }
}

/** A small text file read whole: only a regular file (never blocks on a FIFO, never reads a device), at most `maxBytes`. */
export async function readRegularTextFile(file: string, maxBytes: number): Promise<string> {
  const fh = await openRegularFile(file, 'r');
  try {
    const buf = Buffer.alloc(maxBytes + 1);
    let n = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
      if (n > maxBytes) throw new FileTooLargeError(file, maxBytes);
    }
    return buf.toString('utf8', 0, n);
  } finally {
    await fh.close();
  }
}

/** Synchronous readRegularTextFile. */
export function readRegularTextFileSync(file: string, maxBytes: number): string {
  const fd = openRegularFileSync(file, 'r');
  try {
    const buf = Buffer.alloc(maxBytes + 1);
    let n = 0;
    for (;;) {
      const bytesRead = readSync(fd, buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
      if (n > maxBytes) throw new FileTooLargeError(file, maxBytes);
    }
    return buf.toString('utf8', 0, n);
  } finally {
    closeSync(fd);
  }
}
