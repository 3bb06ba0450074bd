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

export function restoreCandidates(index: SessionIndex, targetIndex: number, options: { files?: SessionFiles; signal?: AbortSignal } = {}): RestoreCandidate[] {
  const files = options.files ?? sessionFiles(index, options.signal);
  const changed = [...files.chronological.files.values()].filter((f) => f.changes.length > 0);
  const atTarget = historyToEntry(index, targetIndex, files, { track: changed.map((f) => f.absPath), signal: options.signal });
  const out: RestoreCandidate[] = [];
  for (const f of changed) {
    const target = atTarget.files.get(f.absPath)!.final;
    const expected = f.final;
    if (target.state === 'known' && hasText(expected) && expected.text === target.text) continue;
    out.push({ absPath: f.absPath, path: f.path, insideCwd: f.insideCwd, target, expected });
  }
  return out;
}

/** What is on disk at a candidate's place (or why it may not be touched). */
export type DiskState =
  | { kind: 'file'; sha256: string; text: string }
  | { kind: 'missing' }
  | { kind: 'refused'; reason: string }
  /** The working directory itself does not exist: nothing under it can be checked or written. */
  | { kind: 'no-cwd'; cwd: string };

export type RestoreDecision =
  | { action: 'restore'; path: string; absPath: string; text: string }
  /** A file the session created on a branch the target does not contain: delete only after confirmation. */
  | { action: 'delete'; path: string; absPath: string; reason: string }
  | { action: 'unchanged'; path: string; absPath: string }
  /** Left alone; `chooseText` is what the user may still choose to write after looking at a diff. */
  | { action: 'skip'; path: string; absPath: string; reason: string; reasonKind?: RestoreReasonKind; chooseText?: string };

const hasText = (c: FileContent): c is Extract<FileContent, { text: string }> => c.state === 'known' || c.state === 'assumed';

export function sha256(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * What to do with one file, and when it is left alone, why: the most
 * fundamental reason first (restoreReasons.ts): the working directory is
 * missing, the file changed on disk, its content is not determined, its path
 * is refused.
 */
export function decideRestore(c: RestoreCandidate, disk: DiskState): RestoreDecision {
  const base = { path: c.path, absPath: c.absPath };
  const { target, expected } = c;
  const choose = hasText(target) ? { chooseText: target.text } : {};
  const skip = (r: RestoreReason, offerChoice: boolean): RestoreDecision => ({ action: 'skip', ...base, reason: r.text, reasonKind: r.kind, ...(offerChoice ? choose : {}) });
  if (disk.kind === 'no-cwd') return skip(restoreReasons.cwdMissing(disk.cwd), false);
  if (c.insideCwd && disk.kind !== 'refused') {
    if (hasText(target) && disk.kind === 'file' && disk.text === target.text) return { action: 'unchanged', ...base };
    if (target.state === 'absent' && disk.kind === 'missing') return { action: 'unchanged', ...base };
    if (hasText(expected) && disk.kind === 'missing') return skip(restoreReasons.missingOnDisk(), true);
    if (hasText(expected) && disk.kind === 'file' && disk.sha256 !== sha256(expected.text)) return skip(restoreReasons.changedOnDisk(), true);
  }
  if (!hasText(expected)) return skip(restoreReasons.currentNotDetermined(expected.reason), true);
  if (target.state === 'unknown') return skip(restoreReasons.targetNotDetermined(target.reason), false);
  if (target.state === 'assumed') return skip(restoreReasons.targetNotVerified(target.reason), true);
  if (!c.insideCwd) return skip(restoreReasons.outsideCwd(), false);
  if (disk.kind === 'refused') return skip(restoreReasons.pathRefused(disk.reason), false);
  return target.state === 'known' ? { action: 'restore', ...base, text: target.text } : { action: 'delete', ...base, reason: target.reason };
}
