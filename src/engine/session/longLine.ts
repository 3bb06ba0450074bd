import type { FileHandle } from 'node:fs/promises';
import { scanMessageLine } from './lineScanner';

/**
 * Passing over a line too long to parse (longer than MAX_PARSED_ENTRY_BYTES)
 * while streaming a session, in bounded memory: the reader's buffer is
 * reused for every read, only the line's first HEAD_BYTES are kept (enough
 * for the fields Pi writes first: type, id, parentId, timestamp, role), and
 * the rest is only searched for the line break. So a 500 MB entry costs one
 * pass over its bytes and no more memory than the reader's buffer.
 */

/** Bytes kept from the start of a long line: Pi's leading fields fit in a few hundred. */
const HEAD_BYTES = 4096;

export interface LongLine {
  /** File offsets of the line without its leading and trailing spaces, tabs and CRs; start < 0 for a blank line. */
  start: number;
  end: number;
  /** The line's first bytes, and its last non-blank byte appended (what scanMessageLine checks). */
  head: Buffer;
  /** Whether a line break ends the line (else it runs to the end of the file: a writer has not finished it). */
  complete: boolean;
  /** File offset after the line break (the end of the file when there is none). */
  next: number;
  /** Bytes read past the line break, moved to buf[0, restLength). */
  restLength: number;
  /** File offset of the next read (next + restLength). */
  filePos: number;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d;
}

/**
 * Reads on from `filePos` until the end of the line whose first `bufLen`
 * bytes (no line break among them) are in buf, starting at file offset
 * `lineOffset`. buf is overwritten; the bytes after the line break are left
 * at its start.
 */
export async function passLongLine(
  fh: FileHandle,
  buf: Buffer,
  bufLen: number,
  lineOffset: number,
  filePos: number,
  signal?: AbortSignal,
): Promise<LongLine> {
  let start = -1;
  let end = -1;
  let lastByte = 0;
  let head = Buffer.alloc(0);
  // One segment of the line at file offset `at`: note where its non-blank bytes begin and end.
  const take = (seg: Buffer, at: number) => {
    if (start < 0) {
      let i = 0;
      while (i < seg.length && isSpace(seg[i])) i++;
      if (i === seg.length) return;
      start = at + i;
      head = Buffer.from(seg.subarray(i, i + HEAD_BYTES));
    }
    let j = seg.length;
    while (j > 0 && isSpace(seg[j - 1])) j--;
    if (j > 0) {
      end = at + j;
      lastByte = seg[j - 1];
    }
  };
  take(buf.subarray(0, bufLen), lineOffset);
  for (;;) {
    signal?.throwIfAborted();
    const { bytesRead } = await fh.read(buf, 0, buf.length, filePos);
    if (bytesRead === 0) {
      return { start, end, head: withLast(head, lastByte), complete: false, next: filePos, restLength: 0, filePos };
    }
    const nl = buf.subarray(0, bytesRead).indexOf(10);
    take(buf.subarray(0, nl < 0 ? bytesRead : nl), filePos);
    if (nl >= 0) {
      const restLength = bytesRead - nl - 1;
      buf.copy(buf, 0, nl + 1, bytesRead);
      return {
        start,
        end,
        head: withLast(head, lastByte),
        complete: true,
        next: filePos + nl + 1,
        restLength,
        filePos: filePos + bytesRead,
      };
    }
    filePos += bytesRead;
  }
}

function withLast(head: Buffer, lastByte: number): Buffer {
  return Buffer.concat([head, Buffer.from([lastByte])]);
}

/** The tree fields of a long message line written in Pi's key order, from its kept head (undefined otherwise). */
export function scanLongLine(line: LongLine): ReturnType<typeof scanMessageLine> {
  return scanMessageLine(line.head, 0, line.head.length);
}
