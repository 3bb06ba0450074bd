import { checkEntryText, type LineCheck } from './parseLine';
import { parsePlainMessageLine } from './plainMessageLine';
import { detachedText } from '../text/detachedText';
import { headerShapeProblem } from './entryShape';
import { scanMessageLine } from './lineScanner';
import { entryMayHoldFileOps, FileOpScanner } from './fileOpHints';
import { SessionFormatError, type Diagnostic } from './diagnostics';
import { incompleteLongLineMessage, MAX_PARSED_ENTRY_BYTES, oversizedEntryMessage, oversizedLineMessage } from './entryLimits';
import type { EntryRecord } from './entryRecord';
import { lastRecordId, type RecordSink } from './recordTable';
import { entryTypeOf } from './entryKinds';
import { isRecord } from './jsonObject';
import type { SessionEntry, SessionHeader } from './types';

/**
 * Reading the lines of a session file, shared by every loader (whole-buffer
 * loadSession/indexSessionBuffer, streamSession, tailPreview and the tail
 * reader readAppended): line spans with one trim (spaces, tabs, CRs) and a
 * BOM skip, the header line, entry lines into records (parsed, or indexed
 * without parsing in fast mode), and the cut-off last line. Offsets are
 * buffer offsets, or file offsets when ReadContext.fileOffset is set.
 */

export interface LineSpan {
  line: number;
  start: number;
  end: number;
}

/** Splits a chunk into non-blank lines, dropping a BOM and CR line ends. */
export function* splitLines(buf: Buffer, firstLine = 1, from = 0, skipBom = from === 0): Generator<LineSpan> {
  let pos = from;
  if (skipBom) pos = Math.max(pos, bomLength(buf));
  let line = firstLine;
  while (pos < buf.length) {
    const nl = buf.indexOf(10, pos);
    const lineEnd = nl < 0 ? buf.length : nl;
    const start = trimStart(buf, pos, lineEnd);
    const end = trimEnd(buf, start, lineEnd);
    if (end > start) yield { line, start, end };
    line++;
    pos = lineEnd + 1;
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d;
}

/** Start of buf[start, end) without its leading spaces, tabs and CRs (the one trim of every line reader). */
export function trimStart(buf: Buffer, start: number, end: number): number {
  while (start < end && isSpace(buf[start])) start++;
  return start;
}

/** End of buf[start, end) without its trailing spaces, tabs and CRs. */
export function trimEnd(buf: Buffer, start: number, end: number): number {
  while (end > start && isSpace(buf[end - 1])) end--;
  return end;
}

/** Length of a UTF-8 byte order mark at buf[0] (3), else 0. */
export function bomLength(buf: Buffer): number {
  return buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
}

export interface CompleteLines {
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
export function readCutOffLine(
  ctx: ReadContext,
  tail: CompleteLines,
  records: RecordSink,
  report = true,
  diagnostics?: Diagnostic[],
): { committedSize: number } {
  const { buf } = ctx;
  const start = trimStart(buf, tail.lastBreak, buf.length);
  const end = trimEnd(buf, start, buf.length);
  if (start >= end) return { committedSize: buf.length };
  if (end - start > MAX_PARSED_ENTRY_BYTES) {
    // Too long to parse: left as a line a writer has not finished (as the streaming reader leaves a longer one), and
    // indexed from its leading fields once its line break is written. Never parsed, so never described from its content.
    if (report && diagnostics) {
      diagnostics.push({
        file: ctx.file,
        line: tail.lineCount + 1,
        message: incompleteLongLineMessage(end - start),
      });
    }
    return { committedSize: tail.lastBreak };
  }
  const checked = checkEntryText(buf.toString('utf8', start, end), Math.max(ctx.version, 2));
  if (checked.ok && ctx.version >= 2) {
    ctx.onEntry?.(records.length, checked.entry);
    records.push(recordFor(checked.entry, buf, { line: tail.lineCount + 1, start, end }, ctx.fileOffset));
    return { committedSize: buf.length };
  }
  if (report && diagnostics) {
    diagnostics.push({
      file: ctx.file,
      line: tail.lineCount + 1,
      message: 'the last line is incomplete (a writer stopped mid-line); skipped',
    });
  }
  return { committedSize: tail.lastBreak };
}

/** The complete lines of a chunk that starts at a line start (bytes appended to a file). */
export function chunkLines(chunk: Buffer, firstLine: number): CompleteLines {
  const lastBreak = chunk.lastIndexOf(10) + 1;
  return { lines: splitLines(chunk.subarray(0, lastBreak), firstLine, 0, false), start: 0, lastBreak, lineCount: firstLine - 1 };
}

export function parseHeader(file: string, buf: Buffer, span: LineSpan): SessionHeader {
  return parseHeaderText(file, span.line, buf.toString('utf8', span.start, span.end));
}

/** Checks the header line (line 1 of a session). Newer versions than 3 are read as 3: unknown entry kinds are kept. */
export function parseHeaderText(file: string, line: number, text: string): SessionHeader {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // A binary file's bytes (or any text's) are never echoed: Node's message quotes the line.
    if (/[\u0000-\u0008\u000e-\u001f\ufffd]/.test(text.slice(0, 4096)))
      throw new SessionFormatError(file, line, 'not a Pi session: the file is binary (its first line holds control bytes or is not UTF-8)');
    const at = /position (\d+)/.exec((err as Error).message);
    throw new SessionFormatError(file, line, `not a Pi session: the first line is not valid JSON${at ? ` (at character ${at[1]})` : ''}`);
  }
  const h = value;
  if (!isRecord(h) || h.type !== 'session') {
    throw new SessionFormatError(file, line, 'not a Pi session: the first line is not a {"type":"session",...} header');
  }
  if (h.version !== undefined && (typeof h.version !== 'number' || !Number.isInteger(h.version) || h.version < 1)) {
    throw new SessionFormatError(file, line, `session header has an invalid "version": ${JSON.stringify(h.version)}`);
  }
  const odd = headerShapeProblem(h);
  if (odd) throw new SessionFormatError(file, line, `session header cannot be read: ${odd}`);
  if (typeof h.id !== 'string') h.id = '';
  if (typeof h.timestamp !== 'string') h.timestamp = '';
  if (h.parentSession !== undefined && typeof h.parentSession !== 'string') delete h.parentSession;
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
  /** Sees every entry parsed while reading, as its record is added (see EntryVisitor). */
  onEntry?: EntryVisitor;
}

/**
 * Called with each entry a load parses and the index it gets (its position
 * in file order), as the load reads it. Given one, a fast-mode read also
 * parses the message lines it indexes by their keys (keeping none of their
 * bodies): a caller that reads every entry once (`arbor tree`) parses
 * each line once, during the load, instead of a second
 * time from disk. The index is the same with or without a visitor (ids,
 * parents, types, roles, lines, offsets); what it caches may differ: a plain
 * message line read for a visitor is indexed as the key scan indexes one,
 * its entry not kept, even where the scan would have passed the line to
 * JSON.parse (an id with an escape or a non-ASCII character, say), so it is
 * read again from disk when needed. A line that does not parse, or whose
 * parse is not what its keys said (a key written twice: JSON.parse reads the
 * last), is not visited; the index reads it as it does without a visitor.
 */
export type EntryVisitor = (index: number, entry: SessionEntry) => void;

/**
 * Indexes the v2/v3 entry lines in buf[from, to) (whole lines; `to` is just
 * after a line break). One pass: finds each line break, trims, and either
 * indexes a Pi-shaped message line without parsing it (fast mode) or parses
 * the line. Returns the number of the last line read.
 * Exported for reading appended bytes of a watched file.
 */
export function readRecords(
  ctx: ReadContext,
  from: number,
  to: number,
  firstLine: number,
  records: RecordSink,
  diagnostics: Diagnostic[],
): number {
  const { buf, file, version } = ctx;
  const fast = ctx.mode === 'fast';
  const hints = fast ? new FileOpScanner(buf) : undefined;
  let pos = from;
  let line = firstLine - 1;
  while (pos < to) {
    const nl = buf.indexOf(10, pos);
    const lineEnd = nl < 0 || nl >= to ? to : nl;
    line++;
    const start = trimStart(buf, pos, lineEnd);
    const end = trimEnd(buf, start, lineEnd);
    pos = lineEnd + 1;
    if (end === start) continue;
    if ((line & 0x3fff) === 0) ctx.signal?.throwIfAborted();
    let text: string | undefined; // the line's text, once decoded
    if (fast) {
      // Most entries continue the one before: its id string is shared (one string less made and kept per entry).
      const prev = lastRecordId(records);
      // With a visitor, a plain message line (plainMessageLine.ts: the entry JSON.parse gives, each key once) is read once:
      // its record is made from that entry, as the scan would make it; any other line is scanned as without a visitor.
      text = ctx.onEntry && end - start <= MAX_PARSED_ENTRY_BYTES ? buf.toString('utf8', start, end) : undefined;
      const plain = text === undefined ? undefined : parsePlainMessageLine(text, version);
      if (plain) {
        ctx.onEntry!(records.length, plain);
        // Its ids are slices of the line: the previous entry's id string, or detached copies (a long id would keep the line alive).
        const parentId = plain.parentId === null ? null : plain.parentId === prev ? prev : detachedText(plain.parentId);
        records.push(messageRecord(ctx, hints!, { id: detachedText(plain.id), parentId, role: plain.message.role, line, start, end }));
        continue;
      }
      const scanned = scanMessageLine(buf, start, end, prev);
      if (scanned) {
        const role = version < 3 && scanned.role === 'hookMessage' ? 'custom' : scanned.role;
        if (end - start > MAX_PARSED_ENTRY_BYTES) diagnostics.push({ file, line, message: oversizedEntryMessage(end - start) });
        if (text !== undefined) {
          // The visitor gets the parsed entry when it is the one the scan read (a repeated key, which JSON.parse reads last, makes it another: not visited).
          const parsed: LineCheck = checkEntryText(text, version);
          if (
            parsed.ok &&
            parsed.entry.type === 'message' &&
            parsed.entry.id === scanned.id &&
            parsed.entry.parentId === scanned.parentId &&
            parsed.entry.message.role === role
          ) {
            ctx.onEntry!(records.length, parsed.entry);
          }
        }
        const parentId = scanned.parentId === prev ? prev : scanned.parentId;
        records.push(messageRecord(ctx, hints!, { id: scanned.id, parentId, role, line, start, end }));
        continue;
      }
    }
    if (end - start > MAX_PARSED_ENTRY_BYTES) {
      diagnostics.push({ file, line, message: `${oversizedLineMessage(end - start)}; line skipped` });
      continue;
    }
    const checked = checkEntryText(text ?? buf.toString('utf8', start, end), version);
    if (!checked.ok) {
      diagnostics.push({ file, line, message: checked.message });
      continue;
    }
    ctx.onEntry?.(records.length, checked.entry);
    const entry = checked.entry;
    if (fast && entry.type === 'message') {
      // A message line the scan could not index (JSON with spaces between tokens, a repeated key, an escaped id) is
      // indexed from its parse and, like a scanned one, not kept: its lazy parse (parseEntryLine) is this same parse.
      // Keeping it made a session written as spaced JSON hold every message in memory (issue 38 item 4).
      const prev = lastRecordId(records);
      const parentId = entry.parentId === null ? null : entry.parentId === prev ? prev : detachedText(entry.parentId);
      const rec = messageRecord(ctx, hints!, { id: detachedText(entry.id), parentId, role: entry.message.role, line, start, end });
      rec.mayHoldFileOps = entryMayHoldFileOps(entry); // exact, from the parse
      records.push(rec);
      continue;
    }
    records.push(recordFor(entry, buf, { line, start, end }, ctx.fileOffset));
  }
  return line;
}

/** The record of a message line indexed in fast mode (its entry not kept): from the scan of its keys, or from its plain parse. */
function messageRecord(
  ctx: ReadContext,
  hints: FileOpScanner,
  m: { id: string; parentId: string | null; role: string; line: number; start: number; end: number },
): EntryRecord {
  const off = ctx.fileOffset;
  return {
    id: m.id,
    parentId: m.parentId,
    type: 'message',
    role: m.role,
    line: m.line,
    chunk: off === undefined ? ctx.buf : null,
    start: off === undefined ? m.start : off + m.start,
    end: off === undefined ? m.end : off + m.end,
    // Tool results are most of a session's bytes: a streamed load leaves them to the planner.
    mayHoldFileOps: off !== undefined && m.role === 'toolResult' ? undefined : hints.mayHold(m.role, m.start, m.end),
    entry: undefined,
  };
}

export function recordFor(entry: SessionEntry, buf: Buffer, span: LineSpan, fileOffset?: number): EntryRecord {
  const role = entry.type === 'message' ? entry.message.role : undefined;
  return {
    id: entry.id,
    parentId: entry.parentId,
    type: entryTypeOf(entry),
    role,
    line: span.line,
    chunk: fileOffset === undefined ? buf : null,
    start: fileOffset === undefined ? span.start : fileOffset + span.start,
    end: fileOffset === undefined ? span.end : fileOffset + span.end,
    mayHoldFileOps: entryMayHoldFileOps(entry),
    entry,
  };
}

/** The session header: the first non-blank line of a file's first bytes (`view`), or 'need-more' when those hold none yet. */
export function findHeader(
  file: string,
  view: Buffer,
  lastBreak: number,
  eof: boolean,
): { header: SessionHeader; line: number; next: number } | 'need-more' {
  let pos = bomLength(view);
  let line = 0;
  const limit = eof ? view.length : lastBreak;
  while (pos < limit) {
    const nl = view.indexOf(10, pos);
    const end = nl < 0 || nl >= limit ? limit : nl;
    line++;
    const start = trimStart(view, pos, end);
    const next = end + 1;
    if (start < trimEnd(view, start, end)) {
      return { header: parseHeader(file, view, { line, start, end: trimEnd(view, start, end) }), line, next: Math.min(next, view.length) };
    }
    pos = next;
  }
  return 'need-more';
}
