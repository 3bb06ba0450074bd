import { closeSync, openSync, readSync } from 'node:fs';
import type { Diagnostic } from './diagnostics';
import type { EntryRecord } from './entryRecord';
import type { AgentMessage, SessionEntry } from './types';

export type LineCheck =
  | { ok: true; entry: SessionEntry }
  | { ok: false; message: string };

function describeJsonError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Parses and checks one entry line of a v2/v3 file. Never throws. */
export function checkEntryText(text: string, version: number): LineCheck {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `invalid JSON (${describeJsonError(err)}); line skipped` };
  }
  return checkEntryValue(value, version);
}

export function checkEntryValue(value: unknown, version: number): LineCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: 'not a JSON object; line skipped' };
  }
  const e = value as Record<string, unknown>;
  if (typeof e.type !== 'string' || e.type.length === 0) {
    return { ok: false, message: 'entry has no "type" string; line skipped' };
  }
  if (e.type === 'session') {
    return { ok: false, message: 'a second session header; line skipped' };
  }
  if (version >= 2) {
    if (typeof e.id !== 'string' || e.id.length === 0) {
      return { ok: false, message: `${e.type} entry has no "id" string; line skipped` };
    }
    if (e.parentId !== null && typeof e.parentId !== 'string') {
      return { ok: false, message: `entry "${e.id}" has a "parentId" that is neither a string nor null; line skipped` };
    }
  }
  if (e.type === 'message') {
    const m = e.message as Record<string, unknown> | null | undefined;
    if (typeof m !== 'object' || m === null || typeof m.role !== 'string') {
      return { ok: false, message: `message entry "${String(e.id)}" has no "message.role"; line skipped` };
    }
    if (version < 3 && m.role === 'hookMessage') m.role = 'custom';
  }
  return { ok: true, entry: e as unknown as SessionEntry };
}

/**
 * Lazily parses an indexed line. A line that looked right to the fast indexer
 * but does not parse keeps its place in the tree with empty content, and the
 * problem is reported with its file and line. `lineText` is the line when
 * the caller already read it.
 */
export function parseEntryLine(rec: EntryRecord, file: string, version: number, diagnostics: Diagnostic[], lineText?: string): SessionEntry {
  const text = lineText ?? (rec.chunk ? rec.chunk.toString('utf8', rec.start, rec.end) : readLineFromFile(file, rec.start, rec.end));
  const checked = checkEntryText(text, version);
  if (checked.ok && checked.entry.type === rec.type) return checked.entry;
  diagnostics.push({
    file,
    line: rec.line,
    message: checked.ok ? `entry type changed while reading; content ignored` : `${checked.message.replace('; line skipped', '')}; content ignored`,
  });
  const placeholder: Record<string, unknown> = { type: rec.type, id: rec.id, parentId: rec.parentId, timestamp: '' };
  if (rec.type === 'message') placeholder.message = emptyMessage(rec.role ?? 'custom');
  placeholders.add(placeholder);
  return placeholder as unknown as SessionEntry;
}

const placeholders = new WeakSet<object>();

/** Whether an entry stands for a line that did not parse (its problem was reported to the index that parsed it). */
export function isPlaceholderEntry(entry: SessionEntry): boolean {
  return placeholders.has(entry);
}

function emptyMessage(role: string): AgentMessage {
  switch (role) {
    case 'assistant':
      return { role: 'assistant', content: [] };
    case 'toolResult':
      return { role: 'toolResult', toolCallId: '', toolName: '', content: [] };
    case 'bashExecution':
      return { role: 'bashExecution', command: '', output: '', excludeFromContext: true };
    default:
      return { role: 'user', content: [] };
  }
}

/** The bytes of one line of a streamed session, read back from the file (append-only: they never change). */
function readLineFromFile(file: string, start: number, end: number): string {
  const buf = Buffer.allocUnsafe(end - start);
  const fd = openSync(file, 'r');
  try {
    let off = 0;
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, start + off);
      if (n === 0) break;
      off += n;
    }
    return buf.toString('utf8', 0, off);
  } finally {
    closeSync(fd);
  }
}
