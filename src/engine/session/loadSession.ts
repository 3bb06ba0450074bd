import { checkEntryObject, shapeCheck } from './parseLine';
import { entryFromObject, type EntryObject } from './entryKinds';
import { migrateV1Entries } from './migrate';
import { SessionFormatError, type Diagnostic } from './diagnostics';
import {
  completeLines,
  parseHeader,
  readCutOffLine,
  readRecords,
  recordFor,
  splitLines,
  type EntryVisitor,
  type LineSpan,
} from './lineReader';
import { SessionIndex } from './sessionIndex';
import { openRegularFile, statRegularFile } from './sessionFile';
import { streamSession } from './streamSession';
import type { EntryRecord } from './entryRecord';
import type { SessionHeader } from './types';
import { loadForeignSession, sniffAgent } from './agents/loadForeign';

export interface LoadSessionOptions {
  signal?: AbortSignal;
  /**
   * 'full' parses every line up front (every bad line reported at load);
   * 'fast' indexes Pi-shaped message lines without parsing their bodies.
   * 'auto' (default) is 'full' up to 4 MB and 'fast' above.
   */
  validation?: 'full' | 'fast' | 'auto';
  /** Sees every entry as the load parses it (each line parsed once; see EntryVisitor in lineReader.ts). */
  onEntry?: EntryVisitor;
}

/** Files up to this size are read whole and parsed; larger ones are streamed. */
export const AUTO_FULL_LIMIT = 4 * 1024 * 1024;

export async function loadSession(file: string, options: LoadSessionOptions = {}): Promise<SessionIndex> {
  options.signal?.throwIfAborted();
  // Format detection is by content: Claude Code's and Codex's sessions are read through their converters (engine/session/agents/).
  const agent = await sniffAgent(file);
  if (agent === 'claude-code' || agent === 'codex') return loadForeignSession(file, agent, options);
  if (options.validation !== 'full') {
    const { size } = await statRegularFile(file);
    if (options.validation === 'fast' || size > AUTO_FULL_LIMIT) {
      // Large files are streamed; version 1 files come back undefined and are read whole.
      const streamed = await streamSession(file, { signal: options.signal, onEntry: options.onEntry });
      if (streamed) return streamed;
    }
  }
  const buf = await readWholeFile(file, options.signal);
  return indexSessionBuffer(file, buf, options);
}

/** Reads a file in a few large reads (fs.promises.readFile reads small chunks and is slow on 100 MB files). */
async function readWholeFile(file: string, signal?: AbortSignal): Promise<Buffer> {
  const fh = await openRegularFile(file);
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
    readV1Records(file, buf, tail.lines, header, records, diagnostics, options.onEntry);
    for (let i = buf.indexOf(10, tail.start); i >= 0 && i < tail.lastBreak; i = buf.indexOf(10, i + 1)) tail.lineCount++;
  } else {
    tail.lineCount = readRecords(
      { file, buf, version, mode, signal: options.signal, onEntry: options.onEntry },
      tail.start,
      tail.lastBreak,
      first.value.line + 1,
      records,
      diagnostics,
    );
  }
  const cut = readCutOffLine({ file, buf, version, mode, onEntry: options.onEntry }, tail, records, true, diagnostics);
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

function readV1Records(
  file: string,
  buf: Buffer,
  lines: Iterable<LineSpan>,
  header: SessionHeader,
  records: EntryRecord[],
  diagnostics: Diagnostic[],
  onEntry?: EntryVisitor,
): void {
  const values: EntryObject[] = [];
  const spans: LineSpan[] = [];
  for (const span of lines) {
    let value: unknown;
    try {
      value = JSON.parse(buf.toString('utf8', span.start, span.end));
    } catch (err) {
      diagnostics.push({ file, line: span.line, message: `invalid JSON (${(err as Error).message}); line skipped` });
      continue;
    }
    const checked = checkEntryObject(value, 1);
    if (!checked.ok) {
      diagnostics.push({ file, line: span.line, message: checked.message });
      continue;
    }
    values.push(checked.value);
    spans.push(span);
  }
  migrateV1Entries(header.id, values);
  values.forEach((v, i) => {
    const shape = shapeCheck(v);
    if (!shape.ok) {
      diagnostics.push({ file, line: spans[i].line, message: shape.message });
      return;
    }
    const entry = entryFromObject(v);
    onEntry?.(records.length, entry);
    records.push(recordFor(entry, buf, spans[i]));
  });
}
