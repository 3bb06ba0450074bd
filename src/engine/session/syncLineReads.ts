import { closeSync, readSync } from 'node:fs';
import { openRegularFileSync } from './sessionFile';

const READ_BLOCK = 1024 * 1024;

/**
 * TRANSITIONAL (issue #22 item 3): the synchronous on-demand line reads of
 * layers not yet converted to SessionIndex.load. A layer opts in explicitly
 * per index (SessionIndex.allowSyncLineReads): today the CLI's compaction
 * and summary-check commands and the extension's context, summary and
 * compaction flows; the tree, the panels and a jump (loadBranchPlan) load
 * asynchronously.
 *
 * The bytes of single lines of a streamed session, read through one reused
 * block aligned to 1 MB of the file: neighbouring lines asked for one by
 * one (a page of the tree, a walk along a path, forwards or backwards) cost
 * one open and read per block, not one per line. The file is open only
 * during a read.
 */
export class SyncLineReader {
  private block = Buffer.alloc(0);
  private blockStart = 0;
  private blockLen = 0;

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
