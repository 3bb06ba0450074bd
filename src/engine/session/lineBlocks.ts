import { closeSync, readSync } from 'node:fs';
import { openRegularFileSync } from './sessionFile';
import type { EntryRecord } from './entryRecord';

const BLOCK = 4 * 1024 * 1024;

/**
 * The block of the last call, kept for the next one: a pass over every entry
 * (`arbor tree` on 1e6 entries) makes hundreds of calls, and a fresh block
 * each time left hundreds of dead megabytes for the collector. Taken while in
 * use, so a nested call reads into a block of its own.
 */
let spareBlock: Buffer | undefined;

/**
 * Hands the bytes of many lines of a streamed session (records whose bytes
 * stayed on disk) to `visit`, reading them in file order through one reused
 * block: a run of neighbouring lines costs one read, not one per line.
 * `visit` gets the block and the line's span in it; the block is reused
 * after `visit` returns. A line whose bytes are gone (the file shrank) is
 * passed to `missing` instead.
 */
export function forEachLineOnDisk(
  file: string,
  records: readonly EntryRecord[],
  visit: (rec: EntryRecord, block: Buffer, start: number, end: number, blockChanged: boolean) => void,
  missing: (rec: EntryRecord) => void,
): void {
  const sorted = [...records].sort((a, b) => a.start - b.start);
  let lastEnd = 0;
  for (const r of sorted) if (r.end > lastEnd) lastEnd = r.end;
  let fd: number | undefined;
  let block = spareBlock ?? Buffer.alloc(0);
  spareBlock = undefined;
  let view = block; // the bytes read into the block
  let blockStart = 0;
  let blockLen = 0;
  let fresh = false;
  try {
    for (const rec of sorted) {
      if (blockLen === 0 || rec.start < blockStart || rec.end > blockStart + blockLen) {
        fd ??= openRegularFileSync(file);
        // A block, or less when the lines left end sooner (a page of the tree is a few hundred KB).
        const want = Math.max(rec.end - rec.start, Math.min(BLOCK, lastEnd - rec.start));
        if (block.length < want) block = Buffer.allocUnsafe(want);
        blockStart = rec.start;
        blockLen = 0;
        while (blockLen < want) {
          const n = readSync(fd, block, blockLen, want - blockLen, blockStart + blockLen);
          if (n === 0) break;
          blockLen += n;
        }
        view = block.subarray(0, blockLen);
        fresh = true;
      }
      if (rec.end - blockStart > blockLen) {
        missing(rec);
        continue;
      }
      visit(rec, view, rec.start - blockStart, rec.end - blockStart, fresh);
      fresh = false;
    }
  } finally {
    if (fd !== undefined) closeSync(fd);
    if (block.length <= BLOCK) spareBlock = block; // a block grown for one long line is not kept
  }
}

const READ_BLOCK = 1024 * 1024;

/**
 * The bytes of single lines of a streamed session, read through one reused
 * block aligned to 1 MB of the file: neighbouring lines asked for one by
 * one (a page of the tree, a walk along a path, forwards or backwards) cost
 * one open and read per block, not one per line. The file is open only
 * during a read.
 */
export class LineBlockReader {
  private block = Buffer.alloc(0);
  private blockStart = 0;
  private blockLen = 0;
  /** Opens made (for the bench). */
  opens = 0;

  constructor(private readonly file: string) {}

  /** The text of file bytes [start, end), or undefined when they are gone (the file shrank). */
  text(start: number, end: number): string | undefined {
    if (start < this.blockStart || end > this.blockStart + this.blockLen) this.read(start, end);
    if (end > this.blockStart + this.blockLen) return undefined;
    return this.block.toString('utf8', start - this.blockStart, end - this.blockStart);
  }

  /** Drops the block (after an append, say: the next read sees the new bytes). */
  clear(): void {
    this.blockLen = 0;
  }

  private read(start: number, end: number): void {
    // Whole aligned blocks around the line (two when it crosses a boundary), so the lines on either side are in it too.
    const from = start - (start % READ_BLOCK);
    const want = Math.max(Math.ceil(end / READ_BLOCK) * READ_BLOCK, from + READ_BLOCK) - from;
    // Grown for a long line, the block shrinks back afterwards (one huge entry must not pin its bytes).
    if (this.block.length < want || this.block.length > Math.max(want, 4 * READ_BLOCK)) this.block = Buffer.allocUnsafe(want);
    this.blockStart = from;
    this.blockLen = 0;
    const fd = openRegularFileSync(this.file);
    this.opens++;
    try {
      while (this.blockLen < want) {
        const n = readSync(fd, this.block, this.blockLen, want - this.blockLen, from + this.blockLen);
        if (n === 0) break;
        this.blockLen += n;
      }
    } finally {
      closeSync(fd);
    }
  }
}
