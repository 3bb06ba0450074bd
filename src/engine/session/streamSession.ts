import { promises as fsp } from 'node:fs';
import { parseHeaderText, readCutOffLine, readRecords } from './loadSession';
import { SessionFormatError, type Diagnostic } from './diagnostics';
import { SessionIndex } from './sessionIndex';
import type { EntryRecord } from './entryRecord';
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
export async function streamSession(file: string, options: { signal?: AbortSignal; chunkSize?: number } = {}): Promise<SessionIndex | undefined> {
  const fh = await fsp.open(file, 'r');
  let reading: Promise<{ bytesRead: number }> | undefined;
  try {
    const { size } = await fh.stat();
    const chunkSize = Math.min(options.chunkSize ?? CHUNK, Math.max(size, 1));
    // Two buffers: the next chunk is read into one while the lines of the other are indexed.
    let buf = Buffer.allocUnsafe(chunkSize);
    let spare = Buffer.allocUnsafe(chunkSize);
    let bufLen = 0; // bytes in buf: the unfinished line carried over, then what the read added
    let bufOffset = 0; // file offset of buf[0]
    let filePos = 0;
    let line = 0;
    let header: SessionHeader | undefined;
    let version = 3;
    const records: EntryRecord[] = [];
    const diagnostics: Diagnostic[] = [];
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
      options.signal?.throwIfAborted();
      const { bytesRead } = await reading!;
      bufLen += bytesRead;
      filePos += bytesRead;
      const eof = bytesRead === 0 || filePos >= size;
      const view = buf.subarray(0, bufLen);
      let lastBreak = eof ? bufLen : view.lastIndexOf(10) + 1;
      if (!eof && lastBreak === 0) {
        readMore();
        continue;
      }
      let from = 0;
      if (!header) {
        // The header is the first non-blank line.
        const found = findHeader(file, view, eof ? bufLen : lastBreak, eof);
        if (found === 'need-more') {
          if (!eof) {
            readMore();
            continue;
          }
          throw new SessionFormatError(file, 1, 'empty file: a Pi session starts with a session header line');
        }
        header = found.header;
        line = found.line;
        from = found.next;
        version = typeof header.version === 'number' ? header.version : 1;
        if (version < 2) return undefined;
        if (found.next > lastBreak) lastBreak = found.next;
      }
      if (eof) {
        lastBreak = view.lastIndexOf(10) + 1;
        if (from > lastBreak) lastBreak = from;
        const ctx = { file, buf: view, version, mode: 'fast' as const, signal: options.signal, fileOffset: bufOffset };
        line = readRecords(ctx, from, lastBreak, line + 1, records, diagnostics);
        // The bytes after the last line break: a complete entry, or a line a writer has not finished.
        const cut = readCutOffLine(ctx, { lines: [], start: lastBreak, lastBreak, lineCount: line }, records, true, diagnostics);
        return new SessionIndex({
          file,
          header,
          version,
          records,
          diagnostics,
          committedSize: bufOffset + cut.committedSize,
          lineCount: line,
          size: filePos,
          endsWithNewline: filePos === 0 || view[bufLen - 1] === 10,
        });
      }
      // Carry the unfinished last line over to the spare buffer and start reading after it...
      const carry = bufLen - lastBreak;
      if (spare.length < carry * 2) spare = Buffer.allocUnsafe(Math.max(buf.length, carry * 2));
      buf.copy(spare, 0, lastBreak, bufLen);
      reading = fh.read(spare, carry, spare.length - carry, filePos);
      // ...while the complete lines of this one are indexed.
      line = readRecords({ file, buf: view, version, mode: 'fast', signal: options.signal, fileOffset: bufOffset }, from, lastBreak, line + 1, records, diagnostics);
      [buf, spare] = [spare, buf];
      bufOffset += lastBreak;
      bufLen = carry;
    }
  } finally {
    // An abort or an error can leave a read in flight: let it finish before closing the file.
    await reading?.catch(() => undefined);
    await fh.close();
  }
}

function findHeader(file: string, view: Buffer, lastBreak: number, eof: boolean): { header: SessionHeader; line: number; next: number } | 'need-more' {
  let pos = 0;
  let line = 0;
  if (view.length >= 3 && view[0] === 0xef && view[1] === 0xbb && view[2] === 0xbf) pos = 3;
  const limit = eof ? view.length : lastBreak;
  while (pos < limit) {
    const nl = view.indexOf(10, pos);
    const end = nl < 0 || nl >= limit ? limit : nl;
    line++;
    const text = view.toString('utf8', pos, end).trim();
    const next = end + 1;
    if (text) {
      return { header: parseHeaderText(file, line, text), line, next: Math.min(next, view.length) };
    }
    pos = next;
  }
  return 'need-more';
}
