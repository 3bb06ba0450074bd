import { closeSync, openSync, readSync } from 'node:fs';
import type { EntryRecord } from './entryRecord';

const BLOCK = 4 * 1024 * 1024;

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
  let block = Buffer.alloc(0);
  let view = block; // the bytes read into the block
  let blockStart = 0;
  let blockLen = 0;
  let fresh = false;
  try {
    for (const rec of sorted) {
      if (blockLen === 0 || rec.start < blockStart || rec.end > blockStart + blockLen) {
        fd ??= openSync(file, 'r');
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
  }
}
