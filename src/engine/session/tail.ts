import { closeSync, fstatSync, read, readSync } from 'node:fs';
import { openRegularFile, openRegularFileSync } from './sessionFile';
import { streamLines } from './streamSession';
import { promisify } from 'node:util';
import { chunkLines, readCutOffLine, readRecords } from './lineReader';
import { SessionFormatError } from './diagnostics';
import type { EntryRecord } from './entryRecord';
import type { SessionIndex } from './sessionIndex';

export interface TailResult {
  /** Entries added to the index. */
  added: number;
  /** The file shrank or was replaced: the index no longer matches it and must be reloaded. */
  replaced: boolean;
}

const readAsync = promisify(read);

/** Appends larger than this are read in chunks through reused buffers (a 500 MB entry appended is never held whole). */
const STREAMED_APPEND_BYTES = 16 * 1024 * 1024;

/** Appends up to this size are read synchronously: a few hundred bytes cost microseconds, less than a trip through the thread pool. */
const SYNC_READ_LIMIT = 256 * 1024;

/**
 * Reads only the bytes appended since the index was built (or last
 * refreshed) and adds their entries. A line still being written is left for
 * the next call.
 */
export async function readAppended(index: SessionIndex, options: { signal?: AbortSignal } = {}): Promise<TailResult> {
  const fd = openRegularFileSync(index.file);
  try {
    const { size } = fstatSync(fd);
    if (size < index.size) return { added: 0, replaced: true };
    if (size === index.committedSize) return { added: 0, replaced: false };
    // Another agent's records are converted as a whole (a streamed message, a boundary and its summary): read it again.
    if (index.agent !== 'pi') return { added: 0, replaced: size !== index.size };
    options.signal?.throwIfAborted();
    const length = size - index.committedSize;
    if (index.version < 2)
      throw new SessionFormatError(index.file, index.lineCount + 1, 'appended lines in a version 1 file cannot be read live; reload it');
    if (length > STREAMED_APPEND_BYTES) return await readAppendedStreamed(index, options.signal);
    const buf = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n =
        length <= SYNC_READ_LIMIT
          ? readSync(fd, buf, got, length - got, index.committedSize + got)
          : (await readAsync(fd, buf, got, length - got, index.committedSize + got)).bytesRead;
      if (n === 0) break;
      got += n;
    }
    const chunk = buf.subarray(0, got);
    const records: EntryRecord[] = [];
    const tail = chunkLines(chunk, index.lineCount + 1);
    // Appended bytes are usually a few lines: parse them fully (only a huge append takes the fast path).
    const mode = got > 4 * 1024 * 1024 ? ('fast' as const) : ('full' as const);
    // Records get file offsets (and keep no reference to this buffer): like every other record, their line is at [start, end) of the file.
    const ctx = { file: index.file, buf: chunk, version: index.version, mode, signal: options.signal, fileOffset: index.committedSize };
    tail.lineCount = readRecords(ctx, 0, tail.lastBreak, index.lineCount + 1, records, index.diagnostics);
    const cut = readCutOffLine(ctx, tail, records, false);
    index.appendRecords(records, {
      committedSize: index.committedSize + cut.committedSize,
      lineCount: tail.lineCount,
      size: index.committedSize + got,
      endsWithNewline: got === 0 ? index.endsWithNewline : chunk[got - 1] === 10,
    });
    return { added: records.length, replaced: false };
  } finally {
    closeSync(fd);
  }
}

/** A large append, streamed (streamSession.ts): its lines are indexed without parsing, as a large load's are. */
async function readAppendedStreamed(index: SessionIndex, signal?: AbortSignal): Promise<TailResult> {
  const fh = await openRegularFile(index.file);
  try {
    const records: EntryRecord[] = [];
    const read = await streamLines(fh, {
      file: index.file,
      from: index.committedSize,
      lineCount: index.lineCount,
      version: index.version,
      records,
      diagnostics: index.diagnostics,
      signal,
      reportCutOff: false,
    });
    index.appendRecords(records, {
      committedSize: read.committedSize,
      lineCount: read.lineCount,
      size: read.size,
      endsWithNewline: read.endsWithNewline,
    });
    return { added: records.length, replaced: false };
  } finally {
    await fh.close();
  }
}
