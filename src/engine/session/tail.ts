import { promises as fsp } from 'node:fs';
import { chunkLines, readCutOffLine, readRecords } from './loadSession';
import { SessionFormatError } from './diagnostics';
import type { EntryRecord } from './entryRecord';
import type { SessionIndex } from './sessionIndex';

export interface TailResult {
  /** Entries added to the index. */
  added: number;
  /** The file shrank or was replaced: the index no longer matches it and must be reloaded. */
  replaced: boolean;
}

/**
 * Reads only the bytes appended since the index was built (or last
 * refreshed) and adds their entries. A line still being written is left for
 * the next call.
 */
export async function readAppended(index: SessionIndex, options: { signal?: AbortSignal } = {}): Promise<TailResult> {
  const fh = await fsp.open(index.file, 'r');
  try {
    const { size } = await fh.stat();
    if (size < index.size) return { added: 0, replaced: true };
    if (size === index.committedSize) return { added: 0, replaced: false };
    options.signal?.throwIfAborted();
    const length = size - index.committedSize;
    const buf = Buffer.allocUnsafe(length);
    let read = 0;
    while (read < length) {
      const r = await fh.read(buf, read, length - read, index.committedSize + read);
      if (r.bytesRead === 0) break;
      read += r.bytesRead;
    }
    const chunk = buf.subarray(0, read);
    const records: EntryRecord[] = [];
    const tail = chunkLines(chunk, index.lineCount + 1);
    // Appended bytes are usually a few lines: parse them fully (only a huge append takes the fast path).
    const mode = read > 4 * 1024 * 1024 ? ('fast' as const) : ('full' as const);
    const ctx = { file: index.file, buf: chunk, version: index.version, mode, signal: options.signal };
    if (index.version < 2) throw new SessionFormatError(index.file, index.lineCount + 1, 'appended lines in a version 1 file cannot be read live; reload it');
    tail.lineCount = readRecords(ctx, 0, tail.lastBreak, index.lineCount + 1, records, index.diagnostics);
    const cut = readCutOffLine(ctx, tail, records, false);
    index.appendRecords(records, {
      committedSize: index.committedSize + cut.committedSize,
      lineCount: tail.lineCount,
      size: index.committedSize + read,
      endsWithNewline: read === 0 ? index.endsWithNewline : chunk[read - 1] === 10,
    });
    return { added: records.length, replaced: false };
  } finally {
    await fh.close();
  }
}

