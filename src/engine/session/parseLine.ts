import type { Diagnostic } from './diagnostics';
import { MAX_PARSED_ENTRY_BYTES, oversizedLineMessage } from './entryLimits';
import type { EntryRecord } from './entryRecord';
import { entryShapeProblem } from './entryShape';
import { entryFromObject, entryTypeOf, hasTypeString, type EntryObject } from './entryKinds';
import { isRecord } from './jsonObject';
import type { AgentMessage, MessageEntry, SessionEntry } from './types';

export type LineCheck = { ok: true; entry: SessionEntry } | { ok: false; message: string };

/** A line's object once checked, before it becomes an entry (version 1 entries are migrated first). */
export type ObjectCheck = { ok: true; value: EntryObject } | { ok: false; message: string };

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
  const checked = checkEntryObject(value, version);
  return checked.ok ? { ok: true, entry: entryFromObject(checked.value) } : checked;
}

/** The checks of checkEntryValue, giving the object itself (its fields as read). */
export function checkEntryObject(value: unknown, version: number): ObjectCheck {
  if (!isRecord(value)) {
    return { ok: false, message: 'not a JSON object; line skipped' };
  }
  const e = value;
  if (!hasTypeString(e) || e.type.length === 0) {
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
    const m = e.message;
    if (!isRecord(m) || typeof m.role !== 'string') {
      return { ok: false, message: `message entry${typeof e.id === 'string' ? ` "${e.id}"` : ''} has no "message.role"; line skipped` };
    }
    if (version < 3 && m.role === 'hookMessage') m.role = 'custom';
  }
  // A version 1 entry is checked once migrated (its fields are not yet those of version 3): see shapeCheck.
  return version >= 2 ? shapeCheck(e) : { ok: true, value: e };
}

/** The entry's shape checked (entryShape.ts): the object itself, or why it cannot be used. */
export function shapeCheck(e: EntryObject): ObjectCheck {
  const problem = entryShapeProblem(e);
  if (problem) return { ok: false, message: `${e.type} entry${typeof e.id === 'string' ? ` "${e.id}"` : ''}: ${problem}; line skipped` };
  return { ok: true, value: e };
}

/**
 * Lazily parses an indexed line. A line that looked right to the fast indexer
 * but does not parse keeps its place in the tree with empty content, and the
 * problem is reported with its file and line. `lineText` is the line of a
 * record whose bytes are on disk (the index reads them, a block at a time).
 */
export function parseEntryLine(
  rec: EntryRecord,
  file: string,
  version: number,
  diagnostics: Diagnostic[],
  lineText?: string,
): SessionEntry {
  const oversized = rec.end - rec.start > MAX_PARSED_ENTRY_BYTES;
  // No text for a line on disk: its bytes are gone (the file shrank); it is reported as unreadable.
  const text = oversized ? '' : (lineText ?? (rec.chunk ? rec.chunk.toString('utf8', rec.start, rec.end) : ''));
  const checked: LineCheck = oversized ? { ok: false, message: oversizedLineMessage(rec.end - rec.start) } : checkEntryText(text, version);
  if (checked.ok && entryTypeOf(checked.entry) === rec.type) return checked.entry;
  diagnostics.push({
    file,
    line: rec.line,
    message: checked.ok
      ? `entry type changed while reading; content ignored`
      : `${checked.message.replace('; line skipped', '')}; content ignored`,
  });
  const base = { id: rec.id, parentId: rec.parentId, timestamp: '' };
  const placeholder: SessionEntry =
    rec.type === 'message'
      ? ({ type: 'message', ...base, message: emptyMessage(rec.role ?? 'custom') } satisfies MessageEntry)
      : entryFromObject({ type: rec.type, ...base });
  placeholders.add(placeholder);
  return placeholder;
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
