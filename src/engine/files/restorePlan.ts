import { createHash } from 'node:crypto';
import { historyToEntry, sessionFiles, type SessionFiles } from './sessionFiles';
import type { FileContent } from './types';
import type { SessionIndex } from '../session/sessionIndex';

/**
 * Restoring files to an entry: per file the session changed (on any
 * branch), the content at the target entry (along its path) and the content
 * the session last produced (in file order, i.e. what should be on disk now).
 * Pure: the disk is looked at by the caller (diskState.ts) and judged here.
 */
export interface RestoreCandidate {
  absPath: string;
  /** Relative to the session's cwd (forward slashes), or absolute when outside it. */
  path: string;
  insideCwd: boolean;
  target: FileContent;
  expected: FileContent;
}

export function restoreCandidates(index: SessionIndex, targetIndex: number, options: { files?: SessionFiles; signal?: AbortSignal } = {}): RestoreCandidate[] {
  const files = options.files ?? sessionFiles(index, options.signal);
  const changed = [...files.chronological.files.values()].filter((f) => f.changes.length > 0);
  const atTarget = historyToEntry(index, targetIndex, files, { track: changed.map((f) => f.absPath), signal: options.signal });
  const out: RestoreCandidate[] = [];
  // Every changed file is a candidate, even one the target leaves as the session last did: the disk decides (after a restore, going back to the leaf must write).
  for (const f of changed) out.push({ absPath: f.absPath, path: f.path, insideCwd: f.insideCwd, target: atTarget.files.get(f.absPath)!.final, expected: f.final });
  return out;
}

/** What is on disk at a candidate's place (or why it may not be touched). */
export type DiskState =
  | { kind: 'file'; sha256: string; size: number }
  | { kind: 'missing' }
  | { kind: 'refused'; reason: string };

/**
 * `onDisk` is what the disk held when the decision was made (sha256, or null
 * for no file): the restore re-verifies it right before replacing or deleting.
 */
export type RestoreDecision =
  | { action: 'restore'; path: string; absPath: string; text: string; onDisk: string | null }
  /** A file the session created on a branch the target does not contain: delete only after confirmation. */
  | { action: 'delete'; path: string; absPath: string; reason: string; onDisk: string }
  | { action: 'unchanged'; path: string; absPath: string }
  /** Left alone; `chooseText` is what the user may still choose to write after looking at a diff (over `onDisk`). */
  | { action: 'skip'; path: string; absPath: string; reason: string; chooseText?: string; onDisk?: string | null };

/** What the last restore (not undone) left at a path: sha256 of what it wrote, or null where it deleted. */
export type LastRestoreState = ReadonlyMap<string, string | null>;

const hasText = (c: FileContent): c is Extract<FileContent, { text: string }> => c.state === 'known' || c.state === 'assumed';

export function sha256(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * One file's decision. The disk is as expected when it holds what the
 * session last produced, or what the last restore wrote there (`restored`:
 * so a restore can be followed by a restore to another entry, the leaf
 * included).
 */
export function decideRestore(c: RestoreCandidate, disk: DiskState, restored?: string | null): RestoreDecision {
  const base = { path: c.path, absPath: c.absPath };
  const { target, expected } = c;
  if (!c.insideCwd) return { action: 'skip', ...base, reason: "outside the session's working directory" };
  if (disk.kind === 'refused') return { action: 'skip', ...base, reason: disk.reason };
  const onDisk = disk.kind === 'file' ? disk.sha256 : null;
  const choose = hasText(target) ? { chooseText: target.text, onDisk } : {};
  if (hasText(target) && disk.kind === 'file' && disk.sha256 === sha256(target.text)) return { action: 'unchanged', ...base };
  if (target.state === 'absent' && disk.kind === 'missing') return { action: 'unchanged', ...base };
  const byLastRestore = restored !== undefined && restored === onDisk;
  if (!byLastRestore) {
    if (!hasText(expected)) return { action: 'skip', ...base, reason: `its current content is not determined by the session: ${expected.reason}`, ...choose };
    if (disk.kind === 'missing') return { action: 'skip', ...base, reason: 'missing on disk, but the session last left it there', ...choose };
    if (disk.sha256 !== sha256(expected.text)) return { action: 'skip', ...base, reason: 'changed on disk since the session last wrote it', ...choose };
  }
  switch (target.state) {
    case 'known':
      return { action: 'restore', ...base, text: target.text, onDisk };
    case 'absent':
      if (onDisk === null) return { action: 'unchanged', ...base };
      return { action: 'delete', ...base, reason: target.reason, onDisk };
    case 'assumed':
      return { action: 'skip', ...base, reason: `its content at the target is not verified: ${target.reason}`, ...choose };
    default:
      return { action: 'skip', ...base, reason: `its content at the target is not determined by the session: ${target.reason}` };
  }
}
