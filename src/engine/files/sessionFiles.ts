import { fileHistory, type FileHistoryResult } from './fileHistory';
import type { FileContent, FileHistory } from './types';
import type { SessionIndex } from '../session/sessionIndex';
import type { SessionEntry } from '../session/types';

/**
 * File histories of a loaded session. Two views:
 * - chronological: every entry in file order. Pi appends entries as they
 *   happen and never restores files when the leaf moves, so this is what the
 *   session last did to each file on disk, whichever branch did it;
 * - along a path from the root to an entry: what the conversation at that
 *   entry has done, starting from each file's original content (a full read
 *   that came, in the whole session, before any change to it), or from
 *   "absent" for a file whose first contact was a write on another branch.
 */
export interface SessionFiles {
  cwd: string;
  chronological: FileHistoryResult;
  /** Each file's content when the session started, where the session shows it. */
  initial: Map<string, FileContent>;
}

export function sessionCwd(index: SessionIndex): string {
  return typeof index.header.cwd === 'string' ? index.header.cwd : '';
}

function entriesAt(index: SessionIndex, indexes: readonly number[]): SessionEntry[] {
  return indexes.map((i) => index.entry(i));
}

export function sessionFiles(index: SessionIndex, signal?: AbortSignal): SessionFiles {
  const cwd = sessionCwd(index);
  const all: number[] = [];
  for (let i = 0; i < index.entryCount; i++) all.push(i);
  const chronological = fileHistory(entriesAt(index, all), { cwd, signal, agent: index.agent });
  const initial = new Map<string, FileContent>();
  for (const [abs, read] of chronological.firstReads) initial.set(abs, read.content);
  for (const [abs, f] of chronological.files) {
    if (f.firstSeenByWrite && !initial.has(abs)) {
      initial.set(abs, {
        state: 'absent',
        reason: `first written at ${f.firstSeenByWrite.entryId}, never seen before: probably created there (it may have existed)`,
      });
    }
  }
  return { cwd, chronological, initial };
}

/** Histories along the path from the root to `entryIndex`, optionally also reporting other files (by absolute path). */
export function historyToEntry(
  index: SessionIndex,
  entryIndex: number,
  files: SessionFiles,
  options: { track?: Iterable<string>; signal?: AbortSignal } = {},
): FileHistoryResult {
  return fileHistory(entriesAt(index, index.pathTo(entryIndex)), {
    cwd: files.cwd,
    initial: files.initial,
    track: options.track,
    signal: options.signal,
    agent: index.agent,
  });
}

/**
 * Files changed by the given entries (the tool call's or its result's), with only those changes (order of first
 * change); `final` stays the content at the history's end (what Restore Files to that entry judges).
 */
export function changesBy(history: FileHistoryResult, entryIds: ReadonlySet<string>): FileHistory[] {
  const out: FileHistory[] = [];
  for (const f of history.files.values()) {
    const changes = f.changes.filter((c) => entryIds.has(c.entryId) || entryIds.has(c.resultEntryId));
    if (changes.length) out.push({ ...f, changes });
  }
  return out;
}

/** The entries among `indexes` that countChangedFiles reads (assistant messages and tool results): load them before it. */
export function changeEntries(index: SessionIndex, indexes: readonly number[]): number[] {
  return indexes.filter((i) => {
    const r = index.record(i);
    return r.type === 'message' && (r.role === 'assistant' || r.role === 'toolResult');
  });
}

/**
 * How many files some entries change (successful writes and edits), from
 * those entries alone: only assistant messages and tool results are parsed.
 */
export function countChangedFiles(index: SessionIndex, indexes: readonly number[]): number {
  const h = fileHistory(entriesAt(index, changeEntries(index, indexes)), { cwd: sessionCwd(index), agent: index.agent });
  let n = 0;
  for (const f of h.files.values()) if (f.changes.length) n++;
  return n;
}
