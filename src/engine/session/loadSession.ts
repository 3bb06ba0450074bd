import { promises as fsp } from 'node:fs';
import { checkEntryText, checkEntryValue } from './parseLine';
import { migrateV1Entries } from './migrate';
import { scanMessageLine } from './lineScanner';
import { entryMayHoldFileOps, FileOpScanner } from './fileOpHints';
import { SessionFormatError, type Diagnostic } from './diagnostics';
import { SessionIndex } from './sessionIndex';
import { streamSession } from './streamSession';
import type { EntryRecord } from './entryRecord';
import type { SessionEntry, SessionHeader } from './types';

export interface LoadSessionOptions {
  signal?: AbortSignal;
  /**
   * 'full' parses every line up front (every bad line reported at load);
   * 'fast' indexes Pi-shaped message lines without parsing their bodies.
   * 'auto' (default) is 'full' up to 4 MB and 'fast' above.
   */
  validation?: 'full' | 'fast' | 'auto';
}

const AUTO_FULL_LIMIT = 4 * 1024 * 1024;

export async function loadSession(file: string, options: LoadSessionOptions = {}): Promise<SessionIndex> {
  options.signal?.throwIfAborted();
  if (options.validation !== 'full') {
    const { size } = await fsp.stat(file);
    if (options.validation === 'fast' || size > AUTO_FULL_LIMIT) {
      // Large files are streamed; version 1 files come back undefined and are read whole.
      const streamed = await streamSession(file, { signal: options.signal });
      if (streamed) return streamed;
    }
  }
  const buf = await readWholeFile(file, options.signal);
  return indexSessionBuffer(file, buf, options);
}

/** Reads a file in a few large reads (fs.promises.readFile reads small chunks and is slow on 100 MB files). */
async function readWholeFile(file: string, signal?: AbortSignal): Promise<Buffer> {
  const fh = await fsp.open(file, 'r');
  try {
    const { size } = await fh.stat();
    const buf = Buffer.allocUnsafe(size);
    let off = 0;
    while (off < size) {
      signal?.throwIfAborted();
      const { bytesRead } = await fh.read(buf, off, Math.min(size - off, 64 * 1024 * 1024), off);
      if (bytesRead === 0) break;
      off += bytesRead;
    }
    return off === size ? buf : buf.subarray(0, off);
  } finally {
    await fh.close();
  }
}

interface LineSpan {
  line: number;
  start: number;
  end: number;
}

/** Splits a chunk into non-blank lines, dropping a BOM and CR line ends. */
export function* splitLines(buf: Buffer, firstLine = 1, from = 0, skipBom = from === 0): Generator<LineSpan> {
  let pos = from;
  if (skipBom && buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) pos = 3;
  let line = firstLine;
  while (pos < buf.length) {
    const nl = buf.indexOf(10, pos);
    const lineEnd = nl < 0 ? buf.length : nl;
    let start = pos;
    let end = lineEnd;
    while (start < end && isSpace(buf[start])) start++;
    while (end > start && isSpace(buf[end - 1])) end--;
    if (end > start) yield { line, start, end };
    line++;
    pos = lineEnd + 1;
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d;
}

export function indexSessionBuffer(file: string, buf: Buffer, options: LoadSessionOptions = {}): SessionIndex {
  const diagnostics: Diagnostic[] = [];
  const lines = splitLines(buf);
  const first = lines.next();
  if (first.done) throw new SessionFormatError(file, 1, 'empty file: a Pi session starts with a session header line');
  const header = parseHeader(file, buf, first.value);
  const version = typeof header.version === 'number' ? header.version : 1;
  const mode = options.validation === 'fast' || (options.validation !== 'full' && buf.length > AUTO_FULL_LIMIT) ? 'fast' : 'full';
  const records: EntryRecord[] = [];
  const tail = completeLines(buf, first.value.end, first.value.line + 1);
  if (version < 2) {
    readV1Records(file, buf, tail.lines, header, records, diagnostics);
    for (let i = buf.indexOf(10, tail.start); i >= 0 && i < tail.lastBreak; i = buf.indexOf(10, i + 1)) tail.lineCount++;
  } else {
    tail.lineCount = readRecords({ file, buf, version, mode, signal: options.signal }, tail.start, tail.lastBreak, first.value.line + 1, records, diagnostics);
  }
  const cut = readCutOffLine({ file, buf, version, mode }, tail, records, true, diagnostics);
  return new SessionIndex({
    file,
    header,
    version,
    records,
    diagnostics,
    committedSize: cut.committedSize,
    lineCount: tail.lineCount,
    size: buf.length,
    endsWithNewline: buf.length === 0 || buf[buf.length - 1] === 10,
  });
}

interface CompleteLines {
  /** The lines (only used for v1 files; v2/v3 lines are read by readRecords). */
  lines: Iterable<LineSpan>;
  /** Offset of the first line after the header. */
  start: number;
  /** Offset after the last line break. */
  lastBreak: number;
  lineCount: number;
}

/** The lines after `from` that end in a line break, and where a cut-off last line would start. */
export function completeLines(buf: Buffer, from: number, firstLine = 2): CompleteLines {
  const nlAfterHeader = buf.indexOf(10, from);
  const start = nlAfterHeader < 0 ? buf.length : nlAfterHeader + 1;
  const lastNl = buf.lastIndexOf(10);
  const lastBreak = lastNl < start ? start : lastNl + 1;
  const lines = splitLines(buf.subarray(0, lastBreak), firstLine, start);
  // lineCount is set by whoever reads the lines (readRecords, or the v1 reader).
  return { lines, start, lastBreak, lineCount: firstLine - 1 };
}

/**
 * Bytes after the last line break: a complete entry without its final line
 * break is read; anything else is a line a writer has not finished (or died
 * in), left for a later read and reported.
 */
function readCutOffLine(ctx: ReadContext, tail: CompleteLines, records: EntryRecord[], report = true, diagnostics?: Diagnostic[]): { committedSize: number } {
  const { buf } = ctx;
  let start = tail.lastBreak;
  let end = buf.length;
  while (start < end && (buf[start] === 0x20 || buf[start] === 0x09 || buf[start] === 0x0d)) start++;
  while (end > start && (buf[end - 1] === 0x20 || buf[end - 1] === 0x09 || buf[end - 1] === 0x0d)) end--;
  if (start >= end) return { committedSize: buf.length };
  const checked = checkEntryText(buf.toString('utf8', start, end), Math.max(ctx.version, 2));
  if (checked.ok && ctx.version >= 2) {
    records.push(recordFor(checked.entry, buf, { line: tail.lineCount + 1, start, end }, ctx.fileOffset));
    return { committedSize: buf.length };
  }
  if (report && diagnostics) {
    diagnostics.push({ file: ctx.file, line: tail.lineCount + 1, message: 'the last line is incomplete (a writer stopped mid-line); skipped' });
  }
  return { committedSize: tail.lastBreak };
}

export { readCutOffLine };

/** The complete lines of a chunk that starts at a line start (bytes appended to a file). */
export function chunkLines(chunk: Buffer, firstLine: number): CompleteLines {
  const lastBreak = chunk.lastIndexOf(10) + 1;
  return { lines: splitLines(chunk.subarray(0, lastBreak), firstLine, 0, false), start: 0, lastBreak, lineCount: firstLine - 1 };
}

function parseHeader(file: string, buf: Buffer, span: LineSpan): SessionHeader {
  return parseHeaderText(file, span.line, buf.toString('utf8', span.start, span.end));
}

/** Checks the header line (line 1 of a session). Newer versions than 3 are read as 3: unknown entry kinds are kept. */
export function parseHeaderText(file: string, line: number, text: string): SessionHeader {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new SessionFormatError(file, line, `not a Pi session: the first line is not valid JSON (${(err as Error).message})`);
  }
  const h = value as Record<string, unknown> | null;
  if (typeof h !== 'object' || h === null || h.type !== 'session') {
    throw new SessionFormatError(file, line, 'not a Pi session: the first line is not a {"type":"session",...} header');
  }
  if (h.version !== undefined && (typeof h.version !== 'number' || !Number.isInteger(h.version) || h.version < 1)) {
    throw new SessionFormatError(file, line, `session header has an invalid "version": ${JSON.stringify(h.version)}`);
  }
  if (typeof h.id !== 'string') h.id = '';
  if (typeof h.cwd !== 'string') h.cwd = '';
  return h as SessionHeader;
}

export interface ReadContext {
  file: string;
  buf: Buffer;
  version: number;
  mode: 'full' | 'fast';
  signal?: AbortSignal;
  /**
   * Set when buf is a reused read buffer: records then keep no reference to
   * it, and their offsets are file offsets (buf[0] is at this file offset).
   */
  fileOffset?: number;
}

/**
 * Indexes the v2/v3 entry lines in buf[from, to) (whole lines; `to` is just
 * after a line break). One pass: finds each line break, trims, and either
 * indexes a Pi-shaped message line without parsing it (fast mode) or parses
 * the line. Returns the number of the last line read.
 * Exported for reading appended bytes of a watched file.
 */
export function readRecords(ctx: ReadContext, from: number, to: number, firstLine: number, records: EntryRecord[], diagnostics: Diagnostic[]): number {
  const { buf, file, version } = ctx;
  const fast = ctx.mode === 'fast';
  const streamed = ctx.fileOffset !== undefined;
  const hints = fast ? new FileOpScanner(buf) : undefined;
  let pos = from;
  let line = firstLine - 1;
  while (pos < to) {
    const nl = buf.indexOf(10, pos);
    const lineEnd = nl < 0 || nl >= to ? to : nl;
    line++;
    let start = pos;
    let end = lineEnd;
    pos = lineEnd + 1;
    while (start < end && isSpace(buf[start])) start++;
    while (end > start && isSpace(buf[end - 1])) end--;
    if (end === start) continue;
    if ((line & 0x3fff) === 0) ctx.signal?.throwIfAborted();
    if (fast) {
      const scanned = scanMessageLine(buf, start, end);
      if (scanned) {
        const role = version < 3 && scanned.role === 'hookMessage' ? 'custom' : scanned.role;
        const off = ctx.fileOffset;
        records.push({
          id: scanned.id,
          parentId: scanned.parentId,
          type: 'message',
          role,
          line,
          chunk: off === undefined ? buf : null,
          start: off === undefined ? start : off + start,
          end: off === undefined ? end : off + end,
          // Tool results are most of a session's bytes: a streamed load leaves them to the planner.
          mayHoldFileOps: streamed && role === 'toolResult' ? undefined : hints!.mayHold(role, start, end),
          entry: undefined,
        });
        continue;
      }
    }
    const checked = checkEntryText(buf.toString('utf8', start, end), version);
    if (!checked.ok) {
      diagnostics.push({ file, line, message: checked.message });
      continue;
    }
    records.push(recordFor(checked.entry, buf, { line, start, end }, ctx.fileOffset));
  }
  return line;
}

export function recordFor(entry: SessionEntry, buf: Buffer, span: LineSpan, fileOffset?: number): EntryRecord {
  const role = entry.type === 'message' ? (entry as { message: { role: string } }).message.role : undefined;
  return {
    id: entry.id,
    parentId: entry.parentId,
    type: entry.type,
    role,
    line: span.line,
    chunk: fileOffset === undefined ? buf : null,
    start: fileOffset === undefined ? span.start : fileOffset + span.start,
    end: fileOffset === undefined ? span.end : fileOffset + span.end,
    mayHoldFileOps: entryMayHoldFileOps(entry),
    entry,
  };
}

function readV1Records(
  file: string,
  buf: Buffer,
  lines: Iterable<LineSpan>,
  header: SessionHeader,
  records: EntryRecord[],
  diagnostics: Diagnostic[],
): void {
  const values: Record<string, unknown>[] = [];
  const spans: LineSpan[] = [];
  for (const span of lines) {
    let value: unknown;
    try {
      value = JSON.parse(buf.toString('utf8', span.start, span.end));
    } catch (err) {
      diagnostics.push({ file, line: span.line, message: `invalid JSON (${(err as Error).message}); line skipped` });
      continue;
    }
    const checked = checkEntryValue(value, 1);
    if (!checked.ok) {
      diagnostics.push({ file, line: span.line, message: checked.message });
      continue;
    }
    values.push(checked.entry as unknown as Record<string, unknown>);
    spans.push(span);
  }
  migrateV1Entries(header.id, values);
  values.forEach((v, i) => records.push(recordFor(v as unknown as SessionEntry, buf, spans[i])));
}
