import { openRegularFile } from './sessionFile';
import { assertWritable } from './agents/readOnly';
import { randomBytes } from 'node:crypto';
import { readAppended } from './tail';
import { statSync } from 'node:fs';
import { ArborUsageError } from './diagnostics';
import { StaleSessionError } from './writeErrors';
import { settleIncompleteLine, type IncompleteLineOptions } from './incompleteLine';
import { withSessionLock, type LockOptions } from './writeLock';
import type { SessionIndex } from './sessionIndex';
import { entryFromObject, entryJson } from './entryKinds';
import type { SessionEntry } from './types';

/** An entry to append: the writer fills in parentId, timestamp and (unless given) a fresh id. */
export type NewEntry = { type: string; id?: string; [key: string]: unknown };

export { StaleSessionError };

export interface AppendOptions {
  /**
   * Parent of the first new entry (default: the current leaf). Each further
   * entry is a child of the one before it.
   */
  parentId?: string | null;
  /** Refuse if the file's leaf is no longer this (another writer appended meanwhile). */
  expectedLeafId?: string | null;
  signal?: AbortSignal;
  now?: () => Date;
  /**
   * Called with the complete entries just before the bytes are written (after
   * every check passed). A watcher of the file can note the ids here so that
   * it does not take Arbor's own append for another writer's.
   */
  beforeWrite?: (entries: readonly SessionEntry[]) => void;
  /** How long to wait for another process's incomplete last line (see incompleteLine.ts). */
  incompleteLine?: Omit<IncompleteLineOptions, 'signal'>;
  /** How long to wait for another Arbor writer's lock (see writeLock.ts). */
  lock?: Omit<LockOptions, 'signal'>;
}

/** A fresh 8-hex id not used in the file. */
export function newEntryId(isUsed: (id: string) => boolean): string {
  for (;;) {
    const id = randomBytes(4).toString('hex');
    if (!isUsed(id)) return id;
  }
}

/**
 * Appends entries to a session file: each as one complete JSON line, all of
 * them in a single write to a file opened for appending, so a concurrent
 * writer's lines and Arbor's never interleave. Existing bytes are never
 * changed; after a dead writer's cut-off last line a line break is written
 * first, while a line another process is still writing is waited for (see
 * incompleteLine.ts). Arbor's writers take the session's write lock around
 * "bring the index up to date, check the leaf, append" (see writeLock.ts),
 * so two of them never both attach to the same leaf.
 */
export async function appendEntries(index: SessionIndex, entries: NewEntry[], options: AppendOptions = {}): Promise<SessionEntry[]> {
  assertWritable(index);
  if (index.partial) throw new ArborUsageError(`${index.file}: a partial (preview) index cannot be written with; load the whole session`);
  if (index.version < 2) {
    throw new ArborUsageError(
      `${index.file} is a version 1 session (entries have no ids to point at); Arbor will not append to it. ` +
        'Run `arbor upgrade FILE` to write an upgraded copy (the original is kept as a backup).',
    );
  }
  options.signal?.throwIfAborted();
  const plannedSize = index.size;
  const plannedCount = index.entryCount;
  return withSessionLock(index.file, () => appendLocked(index, entries, options, plannedSize, plannedCount), {
    ...options.lock,
    signal: options.signal,
  });
}

async function appendLocked(
  index: SessionIndex,
  entries: NewEntry[],
  options: AppendOptions,
  plannedSize: number,
  plannedCount: number,
): Promise<SessionEntry[]> {
  for (;;) {
    const before = await readAppended(index, { signal: options.signal });
    if (before.replaced)
      throw new StaleSessionError(`${index.file} was truncated or replaced since it was read; reload it. Nothing was written.`);
    await settleIncompleteLine(index, plannedSize, { ...options.incompleteLine, signal: options.signal });
    if (options.expectedLeafId !== undefined && index.leafId !== options.expectedLeafId) {
      const added = index.entryCount - plannedCount;
      throw new StaleSessionError(
        `${index.file} gained ${added} entr${added === 1 ? 'y' : 'ies'} since it was planned (leaf is now ` +
          `${index.leafId}, was ${options.expectedLeafId}). Nothing was written; plan again.`,
      );
    }
    const written = buildEntries(index, entries, options);
    const text = (index.endsWithNewline ? '' : '\n') + written.map((e) => JSON.stringify(entryJson(e))).join('\n') + '\n';
    options.signal?.throwIfAborted();
    // Bytes that landed since the checks (another process's line): check again rather than write after half a line.
    if (statSync(index.file).size !== index.size) continue;
    options.beforeWrite?.(written);
    await appendOnce(index.file, Buffer.from(text, 'utf8'));
    await readAppended(index);
    return written;
  }
}

/** The complete entries: ids, parents (a chain from `parentId` or the leaf) and one timestamp. */
function buildEntries(index: SessionIndex, entries: NewEntry[], options: AppendOptions): SessionEntry[] {
  const now = (options.now ?? (() => new Date()))();
  const used = new Set<string>();
  const isUsed = (id: string) => used.has(id) || index.has(id);
  let parentId = options.parentId === undefined ? index.leafId : options.parentId;
  if (parentId !== null && !index.has(parentId)) throw new ArborUsageError(`entry "${parentId}" is not in ${index.file}`);
  const written: SessionEntry[] = [];
  for (const e of entries) {
    if (e.id !== undefined && isUsed(e.id)) throw new ArborUsageError(`entry id "${e.id}" is already in ${index.file}`);
    const id = e.id ?? newEntryId(isUsed);
    used.add(id);
    const { type, id: _ignored, parentId: _parent, timestamp: _ts, ...rest } = e;
    void _ignored;
    void _parent;
    void _ts;
    const entry = entryFromObject({ type, id, parentId, timestamp: now.toISOString(), ...rest });
    written.push(entry);
    parentId = id;
  }
  return written;
}

/** One write(2) of the whole buffer to a file opened with O_APPEND (repeated only if the kernel writes part of it). */
async function appendOnce(file: string, data: Buffer): Promise<void> {
  const fh = await openRegularFile(file, 'a');
  try {
    let off = 0;
    while (off < data.length) {
      const { bytesWritten } = await fh.write(data, off, data.length - off);
      off += bytesWritten;
    }
  } finally {
    await fh.close();
  }
}
