import { createHash } from 'node:crypto';
import { historyToEntry, sessionFiles, type SessionFiles } from './sessionFiles';
import type { FileContent } from './types';
import { restoreReasons, type RestoreReason, type RestoreReasonKind } from './restoreReasons';
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

export function restoreCandidates(
  index: SessionIndex,
  targetIndex: number,
  options: { files?: SessionFiles; signal?: AbortSignal } = {},
): RestoreCandidate[] {
  const files = options.files ?? sessionFiles(index, options.signal);
  const changed = [...files.chronological.files.values()].filter((f) => f.changes.length > 0);
  const atTarget = historyToEntry(index, targetIndex, files, { track: changed.map((f) => f.absPath), signal: options.signal });
  const out: RestoreCandidate[] = [];
  // Every changed file is a candidate, even one the target leaves as the session last did: the disk decides (after a
  // restore, going back to the leaf must write).
  for (const f of changed)
    out.push({ absPath: f.absPath, path: f.path, insideCwd: f.insideCwd, target: atTarget.files.get(f.absPath)!.final, expected: f.final });
  return out;
}

/** What is on disk at a candidate's place (or why it may not be touched). */
export type DiskState =
  | { kind: 'file'; sha256: string; size: number }
  | { kind: 'missing' }
  | { kind: 'refused'; reason: string }
  /** The working directory itself does not exist: nothing under it can be checked or written. */
  | { kind: 'no-cwd'; cwd: string };

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
  | {
      action: 'skip';
      path: string;
      absPath: string;
      reason: string;
      reasonKind?: RestoreReasonKind;
      chooseText?: string;
      onDisk?: string | null;
    };

/** What the last restore (not undone) left at a path: sha256 of what it wrote, or null where it deleted. */
export type LastRestoreState = ReadonlyMap<string, string | null>;

const hasText = (c: FileContent): c is Extract<FileContent, { text: string }> => c.state === 'known' || c.state === 'assumed';

export function sha256(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * One file's decision, and when it is left alone, why: the most fundamental
 * reason first (restoreReasons.ts): the working directory is missing, the
 * file changed on disk, its content is not determined, its path is refused.
 * The disk is as expected when it holds what the session last produced, or
 * what the last restore wrote there (`restored`: so a restore can be
 * followed by a restore to another entry, the leaf included).
 */
export function decideRestore(c: RestoreCandidate, disk: DiskState, restored?: string | null): RestoreDecision {
  const base = { path: c.path, absPath: c.absPath };
  const { target, expected } = c;
  const onDisk = disk.kind === 'file' ? disk.sha256 : disk.kind === 'missing' ? null : undefined;
  const choose = hasText(target) ? { chooseText: target.text, onDisk: onDisk ?? null } : {};
  const skip = (r: RestoreReason, offerChoice: boolean): RestoreDecision => ({
    action: 'skip',
    ...base,
    reason: r.text,
    reasonKind: r.kind,
    ...(offerChoice ? choose : {}),
  });
  if (disk.kind === 'no-cwd') return skip(restoreReasons.cwdMissing(disk.cwd), false);
  const byLastRestore = restored !== undefined && onDisk !== undefined && restored === onDisk;
  if (c.insideCwd && disk.kind !== 'refused') {
    if (hasText(target) && disk.kind === 'file' && disk.sha256 === sha256(target.text)) return { action: 'unchanged', ...base };
    if (target.state === 'absent' && disk.kind === 'missing') return { action: 'unchanged', ...base };
    if (!byLastRestore && hasText(expected) && disk.kind === 'missing') return skip(restoreReasons.missingOnDisk(), true);
    if (!byLastRestore && hasText(expected) && disk.kind === 'file' && disk.sha256 !== sha256(expected.text))
      return skip(restoreReasons.changedOnDisk(), true);
  }
  if (!byLastRestore && !hasText(expected)) return skip(restoreReasons.currentNotDetermined(expected.reason), true);
  if (target.state === 'unknown') return skip(restoreReasons.targetNotDetermined(target.reason), false);
  if (target.state === 'assumed') return skip(restoreReasons.targetNotVerified(target), true);
  if (!c.insideCwd) return skip(restoreReasons.outsideCwd(), false);
  if (disk.kind === 'refused') return skip(restoreReasons.pathRefused(disk.reason), false);
  if (target.state === 'known') return { action: 'restore', ...base, text: target.text, onDisk: onDisk ?? null };
  if (onDisk === null || onDisk === undefined) return { action: 'unchanged', ...base };
  return { action: 'delete', ...base, reason: target.reason, onDisk };
}
