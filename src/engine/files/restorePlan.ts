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
  | { kind: 'refused'; reason: string };

export type RestoreDecision =
  | { action: 'restore'; path: string; absPath: string; text: string }
  /** A file the session created on a branch the target does not contain: delete only after confirmation. */
  | { action: 'delete'; path: string; absPath: string; reason: string }
  | { action: 'unchanged'; path: string; absPath: string }
  /** Left alone; `chooseText` is what the user may still choose to write after looking at a diff. */
  | { action: 'skip'; path: string; absPath: string; reason: string; chooseText?: string };

const hasText = (c: FileContent): c is Extract<FileContent, { text: string }> => c.state === 'known' || c.state === 'assumed';

export function sha256(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}

export function decideRestore(c: RestoreCandidate, disk: DiskState): RestoreDecision {
  const base = { path: c.path, absPath: c.absPath };
  const { target, expected } = c;
  const choose = hasText(target) ? { chooseText: target.text } : {};
  if (!c.insideCwd) return { action: 'skip', ...base, reason: "outside the session's working directory" };
  if (disk.kind === 'refused') return { action: 'skip', ...base, reason: disk.reason };
  if (hasText(target) && disk.kind === 'file' && disk.text === target.text) return { action: 'unchanged', ...base };
  if (target.state === 'absent' && disk.kind === 'missing') return { action: 'unchanged', ...base };
  if (!hasText(expected)) return { action: 'skip', ...base, reason: `its current content is not determined by the session: ${expected.state === 'absent' ? expected.reason : expected.reason}`, ...choose };
  if (disk.kind === 'missing') return { action: 'skip', ...base, reason: 'missing on disk, but the session last left it there', ...choose };
  if (disk.sha256 !== sha256(expected.text)) return { action: 'skip', ...base, reason: 'changed on disk since the session last wrote it', ...choose };
  switch (target.state) {
    case 'known':
      return { action: 'restore', ...base, text: target.text };
    case 'absent':
      return { action: 'delete', ...base, reason: target.reason };
    case 'assumed':
      return { action: 'skip', ...base, reason: `its content at the target is not verified: ${target.reason}`, ...choose };
    default:
      return { action: 'skip', ...base, reason: `its content at the target is not determined by the session: ${target.reason}` };
  }
}
