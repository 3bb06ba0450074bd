import { createHash } from 'node:crypto';
import { isRecord } from './jsonObject';

/**
 * Version 1 files are linear and have no ids. Arbor gives each entry an id
 * derived from the session id and its position, so the same file always shows
 * the same ids (the tree view and the CLI refer to them), chains each entry to
 * the previous one, and turns a compaction's `firstKeptEntryIndex` (an index
 * into the file's entries with the header as 0) into `firstKeptEntryId`.
 * Mutates the entries in place; nothing is written to disk.
 */
export function migrateV1Entries(sessionId: string, entries: Record<string, unknown>[]): void {
  const used = new Set<string>();
  let previous: string | null = null;
  entries.forEach((entry, i) => {
    const id = deterministicId(`${sessionId}:${i + 1}`, used);
    entry.id = id;
    entry.parentId = previous;
    previous = id;
  });
  for (const entry of entries) {
    if (entry.type !== 'compaction' || typeof entry.firstKeptEntryIndex !== 'number') continue;
    // Index 0 is the header; entry k of the file is entries[k - 1].
    const target = entries[entry.firstKeptEntryIndex - 1];
    if (target) entry.firstKeptEntryId = target.id;
    delete entry.firstKeptEntryIndex;
  }
  for (const entry of entries) {
    const m = entry.message;
    if (entry.type === 'message' && isRecord(m) && m.role === 'hookMessage') m.role = 'custom';
  }
}

export function deterministicId(seed: string, used: Set<string>): string {
  for (let n = 0; ; n++) {
    const id = createHash('sha256')
      .update(n ? `${seed}#${n}` : seed)
      .digest('hex')
      .slice(0, 8);
    if (!used.has(id)) {
      used.add(id);
      return id;
    }
  }
}
