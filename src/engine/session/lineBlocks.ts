import type { EntryRecord } from './entryRecord';
import { openLineFile, type LineFile, type LineReadOptions } from './lineFile';

const BLOCK = 4 * 1024 * 1024;

/**
 * The block of the last call, kept for the next one: a pass over every entry
 * (`arbor tree` on 1e6 entries) makes hundreds of calls, and a fresh block
 * each time left hundreds of dead megabytes for the collector. Taken while in
 * use, so a concurrent call reads into a block of its own.
 */
let spareBlock: Buffer | undefined;

/**
 * Hands the bytes of many lines of a streamed session (records whose bytes
 * stayed on disk) to `visit`, reading them in file order through one reused
 * block: a run of neighbouring lines costs one read, not one per line. The
 * file is open only during the call (none when there is nothing to read).
 * `visit` gets the block and the line's span in it; the block is reused
 * after `visit` returns. A line whose bytes are gone (the file shrank) is
 * passed to `missing` instead. The signal is checked before each read.
 */
export async function readLinesOnDisk(
  file: string,
  records: readonly EntryRecord[],
  visit: (rec: EntryRecord, block: Buffer, start: number, end: number, blockChanged: boolean) => void,
  missing: (rec: EntryRecord) => void,
  options: LineReadOptions = {},
): Promise<void> {
  if (records.length === 0) return;
  options.signal?.throwIfAborted();
  const sorted = [...records].sort((a, b) => a.start - b.start);
  let lastEnd = 0;
  for (const r of sorted) if (r.end > lastEnd) lastEnd = r.end;
  let fh: LineFile | undefined;
  let block = spareBlock ?? Buffer.alloc(0);
  spareBlock = undefined;
  let view = block; // the bytes read into the block
  let blockStart = 0;
  let blockLen = 0;
  let fresh = false;
  try {
    for (const rec of sorted) {
      if (blockLen === 0 || rec.start < blockStart || rec.end > blockStart + blockLen) {
        options.signal?.throwIfAborted();
        fh ??= await (options.open ?? openLineFile)(file);
        // A block, or less when the lines left end sooner (a page of the tree is a few hundred KB).
        const want = Math.max(rec.end - rec.start, Math.min(BLOCK, lastEnd - rec.start));
        if (block.length < want) block = Buffer.allocUnsafe(want);
        blockStart = rec.start;
        blockLen = 0;
        while (blockLen < want) {
          const { bytesRead } = await fh.read(block, blockLen, want - blockLen, blockStart + blockLen);
          if (bytesRead === 0) break;
          blockLen += bytesRead;
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
    if (fh !== undefined) await fh.close();
    if (block.length <= BLOCK) spareBlock = block; // a block grown for one long line is not kept
  }
}
