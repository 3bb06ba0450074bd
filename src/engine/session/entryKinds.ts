import { isRecord } from './jsonObject';
import type { KnownEntry, KnownEntryType, SessionEntry, UnknownEntry, Usage } from './types';

/**
 * The parse boundary between a JSON object read from a session line and a
 * `SessionEntry`: known types are taken as they are (their fields are the
 * on-disk contract), any other type is wrapped as an `UnknownEntry`. Writers
 * write `entryJson(entry)`, so an unknown entry goes back out as it came in.
 */

/** Every known entry type (a Record, so the compiler checks it lists them all). */
const KNOWN_ENTRY_TYPES: Readonly<Record<KnownEntryType, true>> = {
  message: true,
  model_change: true,
  thinking_level_change: true,
  compaction: true,
  branch_summary: true,
  custom: true,
  custom_message: true,
  label: true,
  session_info: true,
  context_edit: true,
  usage: true,
};

/** A parsed JSON object with a `type` string: what the line checks let through. */
export type EntryObject = Record<string, unknown> & { type: string };

export function hasTypeString(value: Record<string, unknown>): value is EntryObject {
  return typeof value.type === 'string';
}

export function isKnownEntryType(type: string): type is KnownEntryType {
  return Object.prototype.hasOwnProperty.call(KNOWN_ENTRY_TYPES, type);
}

/** Whether a parsed entry object has a type Arbor knows (its fields are taken on trust, as Pi writes them). */
export function isKnownEntryObject(value: { type: string }): value is KnownEntry {
  return isKnownEntryType(value.type);
}

/** The entry a checked JSON object stands for (the object itself for a known type, else wrapped). */
export function entryFromObject(value: EntryObject): SessionEntry {
  if (isKnownEntryObject(value)) return value;
  return unknownEntry(value);
}

function unknownEntry(raw: EntryObject): UnknownEntry {
  return {
    type: 'unknown',
    originalType: raw.type,
    raw,
    id: typeof raw.id === 'string' ? raw.id : '',
    parentId: typeof raw.parentId === 'string' ? raw.parentId : null,
    timestamp: typeof raw.timestamp === 'string' ? raw.timestamp : undefined,
  };
}

/** The entry's `type` as written in the file (an unknown entry's original type). */
export function entryTypeOf(entry: SessionEntry): string {
  return entry.type === 'unknown' ? entry.originalType : entry.type;
}

/** What a writer writes for an entry: its object, or an unknown entry's line as read. */
export function entryJson(entry: SessionEntry): object {
  return entry.type === 'unknown' ? entry.raw : entry;
}

/** Every field of an entry as read from its line (for views that list fields they do not know). */
export function entryFields(entry: SessionEntry): Readonly<Record<string, unknown>> {
  return entry.type === 'unknown' ? entry.raw : { ...entry };
}

export type EntryOfType<T extends SessionEntry['type']> = Extract<SessionEntry, { type: T }>;

export function isEntryOfType<T extends SessionEntry['type']>(entry: SessionEntry, type: T): entry is EntryOfType<T> {
  return entry.type === type;
}

/** The entry, known to be of `type` (an entry Arbor just built or wrote); a mismatch is a bug and throws. */
export function expectEntryOfType<T extends SessionEntry['type']>(entry: SessionEntry | undefined, type: T): EntryOfType<T> {
  if (entry && isEntryOfType(entry, type)) return entry;
  throw new Error(`expected a ${type} entry, got ${entry ? entryTypeOf(entry) : 'none'}`);
}

/**
 * The `usage` an entry records at its top level: a summary's or a usage
 * entry's; for any other entry a field of that name, when it is an object, is
 * read as Pi's usage shape (its users read every number defensively).
 */
export function recordedUsage(entry: SessionEntry): Usage | undefined {
  if (entry.type === 'compaction' || entry.type === 'branch_summary' || entry.type === 'usage') return entry.usage;
  const u = entryFields(entry).usage;
  return isRecord(u) ? (u as Usage) : undefined;
}
