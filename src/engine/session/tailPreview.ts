import { openRegularFile } from './sessionFile';
import { bomLength, parseHeader, readRecords, trimEnd, trimStart } from './lineReader';
import { SessionIndex } from './sessionIndex';
import type { Diagnostic } from './diagnostics';
import type { EntryRecord } from './entryRecord';

export interface TailPreviewOptions {
  /** Bytes to read from the end of the file. */
  bytes: number;
  signal?: AbortSignal;
}

/**
 * A first look at a large session: the entries in its last `bytes`, indexed
 * as a partial SessionIndex (entries whose parent lies before the part read
 * are its roots; nothing is reported about them). The newest part of the
 * active path, its branch points and labels are complete in it as long as
 * they lie in that part (entries are appended after their parents), which
 * is what a tree shows first while the whole file is indexed.
 *
 * Line numbers are not known (records say line 0), entries are not checked
 * beyond what the fast indexer checks, and diagnostics are dropped: the full
 * index reports them. Returns undefined for a version 1 file, or when the
 * file is small enough to read whole (then there is nothing to preview).
 */
export async function loadTailPreview(file: string, options: TailPreviewOptions): Promise<SessionIndex | undefined> {
  const fh = await openRegularFile(file);
  try {
    const { size } = await fh.stat();
    const headerBuf = Buffer.allocUnsafe(Math.min(size, 64 * 1024));
    const { bytesRead: headLen } = await fh.read(headerBuf, 0, headerBuf.length, 0);
    const headNl = headerBuf.subarray(0, headLen).indexOf(10);
    if (headNl < 0) return undefined; // a header longer than 64 KB (or no line yet): wait for the full index
    const headStart = trimStart(headerBuf, bomLength(headerBuf.subarray(0, headLen)), headNl);
    const headEnd = trimEnd(headerBuf, headStart, headNl);
    if (headStart === headEnd) return undefined;
    const header = parseHeader(file, headerBuf, { line: 1, start: headStart, end: headEnd });
    const version = typeof header.version === 'number' ? header.version : 1;
    const from = Math.max(headNl + 1, size - options.bytes);
    if (version < 2 || from <= headNl + 1) return undefined;
    options.signal?.throwIfAborted();
    const buf = Buffer.allocUnsafe(size - from);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, from + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    const view = buf.subarray(0, got);
    // Start after the first line break (the line `from` falls in is cut) and stop at the last one.
    const start = view.indexOf(10) + 1;
    const lastBreak = view.lastIndexOf(10) + 1;
    const records: EntryRecord[] = [];
    const dropped: Diagnostic[] = [];
    if (start > 0 && lastBreak > start) {
      readRecords(
        { file, buf: view, version, mode: 'fast', signal: options.signal, fileOffset: from },
        start,
        lastBreak,
        1,
        records,
        dropped,
      );
    }
    for (const r of records) r.line = 0;
    return new SessionIndex({
      file,
      header,
      version,
      records,
      diagnostics: [],
      committedSize: from + lastBreak,
      lineCount: 0,
      size: from + got,
      endsWithNewline: got === 0 || view[got - 1] === 10,
      partial: true,
    });
  } finally {
    await fh.close();
  }
}
