import type { FileHandle } from 'node:fs/promises';
import { openRegularFile } from './sessionFile';
import { findHeader, readCutOffLine, readRecords, type EntryVisitor } from './lineReader';
import { SessionFormatError, type Diagnostic } from './diagnostics';
import { SessionIndex } from './sessionIndex';
import { incompleteLongLineMessage, MAX_PARSED_ENTRY_BYTES, oversizedEntryMessage, oversizedLineMessage } from './entryLimits';
import { passLongLine, scanLongLine, type LongLine } from './longLine';
import { RecordTable, type RecordSink } from './recordTable';
import type { SessionHeader } from './types';

const CHUNK = 4 * 1024 * 1024;

/**
 * Indexes a large session by reading it in 4 MB chunks into one reused
 * buffer: message lines are indexed without parsing (their bytes are read
 * back from the file when needed), other lines are parsed. The file is never
 * held in memory whole, which on a 100 MB session saves both time (the same
 * few pages are reused) and memory. Returns undefined for a version 1 file
 * (small and linear: the whole-buffer loader migrates it).
 */
export async function streamSession(
  file: string,
  options: { signal?: AbortSignal; chunkSize?: number; onEntry?: EntryVisitor } = {},
): Promise<SessionIndex | undefined> {
  const fh = await openRegularFile(file);
  try {
    // Filled as the file is read: no object per entry (recordTable.ts).
    const records = new RecordTable();
    const diagnostics: Diagnostic[] = [];
    const read = await streamLines(fh, {
      file,
      from: 0,
      lineCount: 0,
      records,
      diagnostics,
      signal: options.signal,
      chunkSize: options.chunkSize,
      onEntry: options.onEntry,
    });
    if (!read.header) return undefined;
    return new SessionIndex({
      file,
      header: read.header,
      version: read.version,
      records,
      diagnostics,
      committedSize: read.committedSize,
      lineCount: read.lineCount,
      size: read.size,
      endsWithNewline: read.endsWithNewline,
    });
  } finally {
    await fh.close();
  }
}

export interface StreamLinesOptions {
  file: string;
  /** File offset of a line start to read from; 0 reads the header first. */
  from: number;
  /** Lines before `from`. */
  lineCount: number;
  /** The file's version, when reading on after its header (from > 0). */
  version?: number;
  records: RecordSink;
  diagnostics: Diagnostic[];
  signal?: AbortSignal;
  chunkSize?: number;
  /** Report a cut-off last line (a load does; a reader of appended bytes waits for the writer to finish it). */
  reportCutOff?: boolean;
  /** Sees every entry parsed (a load's visitor: lineReader.ts). */
  onEntry?: EntryVisitor;
}

export interface StreamedLines {
  /** The header, when read from offset 0 (undefined for a version 1 file: nothing else was read). */
  header?: SessionHeader;
  version: number;
  committedSize: number;
  lineCount: number;
  size: number;
  endsWithNewline: boolean;
}

/**
 * Indexes the lines of an open file from a line start to its end, in chunks
 * read into two reused buffers (the next chunk is read while the lines of
 * the other are indexed): message lines in fast mode, others parsed, a line
 * too long to parse passed over in bounded memory (longLine.ts). Used for a
 * whole session and for a large append to one.
 */
export async function streamLines(fh: FileHandle, o: StreamLinesOptions): Promise<StreamedLines> {
  const { file, records, diagnostics, signal } = o;
  let reading: Promise<{ bytesRead: number }> | undefined;
  try {
    const { size } = await fh.stat();
    const chunkSize = Math.min(o.chunkSize ?? CHUNK, Math.max(size - o.from, 1));
    let buf = Buffer.allocUnsafe(chunkSize);
    let spare = Buffer.allocUnsafe(chunkSize);
    let bufLen = 0; // bytes in buf: the unfinished line carried over, then what the read added
    let bufOffset = o.from; // file offset of buf[0]
    let filePos = o.from;
    let line = o.lineCount;
    let header: SessionHeader | undefined;
    let version = o.version ?? 3;
    let needHeader = o.from === 0;
    const finish = (committedSize: number, endsWithNewline: boolean): StreamedLines => ({
      header,
      version,
      committedSize,
      lineCount: line,
      size: filePos,
      endsWithNewline,
    });
    /** Reads on into buf after its bufLen bytes, growing it first when full (a line longer than the buffer). */
    const readMore = () => {
      if (bufLen === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, bufLen);
        buf = bigger;
        spare = Buffer.allocUnsafe(buf.length);
      }
      reading = fh.read(buf, bufLen, buf.length - bufLen, filePos);
    };
    readMore();
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead } = await reading!;
      bufLen += bytesRead;
      filePos += bytesRead;
      const eof = bytesRead === 0 || filePos >= size;
      const view = buf.subarray(0, bufLen);
      let lastBreak = eof ? bufLen : view.lastIndexOf(10) + 1;
      if (!eof && lastBreak === 0) {
        if (bufLen > MAX_PARSED_ENTRY_BYTES) {
          // A line too long to parse: passed over in bounded memory, indexed from its first bytes when it can be.
          if (needHeader)
            throw new SessionFormatError(
              file,
              1,
              `not a Pi session: the first line is longer than the ${MAX_PARSED_ENTRY_BYTES / 1048576} MB Arbor parses`,
            );
          const long = await passLongLine(fh, buf, bufLen, bufOffset, filePos, signal);
          if (!long.complete) {
            filePos = long.filePos;
            if (long.start >= 0 && o.reportCutOff !== false)
              diagnostics.push({
                file,
                line: line + 1,
                message: incompleteLongLineMessage(long.end - long.start),
              });
            return finish(long.start >= 0 ? bufOffset : filePos, long.start < 0);
          }
          line++;
          if (long.start >= 0) addLongLine(long, line, version, records, diagnostics, file);
          bufOffset = long.next;
          bufLen = long.restLength;
          filePos = long.filePos;
          readMore();
          continue;
        }
        readMore();
        continue;
      }
      let from = 0;
      if (needHeader) {
        // The header is the first non-blank line.
        const found = findHeader(file, view, eof ? bufLen : lastBreak, eof);
        if (found === 'need-more') {
          if (!eof) {
            readMore();
            continue;
          }
          throw new SessionFormatError(file, 1, 'empty file: a Pi session starts with a session header line');
        }
        needHeader = false;
        header = found.header;
        line = found.line;
        from = found.next;
        version = typeof header.version === 'number' ? header.version : 1;
        if (version < 2) return { ...finish(0, false), header: undefined };
        if (found.next > lastBreak) lastBreak = found.next;
      }
      if (eof) {
        lastBreak = view.lastIndexOf(10) + 1;
        if (from > lastBreak) lastBreak = from;
        const ctx = { file, buf: view, version, mode: 'fast' as const, signal, fileOffset: bufOffset, onEntry: o.onEntry };
        line = readRecords(ctx, from, lastBreak, line + 1, records, diagnostics);
        // The bytes after the last line break: a complete entry, or a line a writer has not finished.
        const cut = readCutOffLine(
          ctx,
          { lines: [], start: lastBreak, lastBreak, lineCount: line },
          records,
          o.reportCutOff !== false,
          diagnostics,
        );
        return finish(bufOffset + cut.committedSize, filePos === 0 || view[bufLen - 1] === 10);
      }
      // Carry the unfinished last line over to the spare buffer and start reading after it...
      const carry = bufLen - lastBreak;
      if (spare.length < carry * 2) spare = Buffer.allocUnsafe(Math.max(buf.length, carry * 2));
      buf.copy(spare, 0, lastBreak, bufLen);
      reading = fh.read(spare, carry, spare.length - carry, filePos);
      // ...while the complete lines of this one are indexed.
      line = readRecords(
        { file, buf: view, version, mode: 'fast', signal, fileOffset: bufOffset, onEntry: o.onEntry },
        from,
        lastBreak,
        line + 1,
        records,
        diagnostics,
      );
      [buf, spare] = [spare, buf];
      bufOffset += lastBreak;
      bufLen = carry;
    }
  } finally {
    // An abort or an error can leave a read in flight: let it finish before the caller closes the file.
    await reading?.catch(() => undefined);
  }
}

/** The record of a line too long to parse (its content is never read), or a diagnostic when its fields are not where Pi writes them. */
function addLongLine(long: LongLine, line: number, version: number, records: RecordSink, diagnostics: Diagnostic[], file: string): void {
  const scanned = scanLongLine(long);
  if (!scanned) {
    diagnostics.push({ file, line, message: `${oversizedLineMessage(long.end - long.start)}; line skipped` });
    return;
  }
  const role = version < 3 && scanned.role === 'hookMessage' ? 'custom' : scanned.role;
  diagnostics.push({ file, line, message: oversizedEntryMessage(long.end - long.start) });
  records.push({
    id: scanned.id,
    parentId: scanned.parentId,
    type: 'message',
    role,
    line,
    chunk: null,
    start: long.start,
    end: long.end,
    mayHoldFileOps: false,
    entry: undefined,
  });
}
