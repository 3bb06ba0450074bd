import { contentVerdict } from './contentVerdict';
import type { FileContent } from './types';
/**
 * The one vocabulary of why restoring a file leaves it alone, for the CLI and
 * the extension alike. When several reasons hold, the most fundamental one is
 * given: the working directory is missing, then the file changed on disk,
 * then its content is not determined by the session, then its path is refused.
 */
export type RestoreReasonKind =
  | 'cwd-missing'
  | 'changed-on-disk'
  | 'missing-on-disk'
  | 'not-determined'
  | 'not-verified'
  | 'path-refused'
  | 'unsaved'
  | 'created-on-branch';

export interface RestoreReason {
  kind: RestoreReasonKind;
  /** What the user reads: the same words in the CLI, the quick pick, the notification and the log. */
  text: string;
}

/** Lower is more fundamental (given first when several hold). */
export const RESTORE_REASON_RANK: Readonly<Record<RestoreReasonKind, number>> = {
  'cwd-missing': 0,
  'changed-on-disk': 1,
  'missing-on-disk': 1,
  unsaved: 1,
  'not-determined': 2,
  'not-verified': 2,
  'path-refused': 3,
  'created-on-branch': 4,
};

export const restoreReasons = {
  cwdMissing: (cwd: string): RestoreReason => ({ kind: 'cwd-missing', text: `the working directory ${cwd} does not exist` }),
  changedOnDisk: (): RestoreReason => ({ kind: 'changed-on-disk', text: 'changed on disk since the session last wrote it' }),
  missingOnDisk: (): RestoreReason => ({ kind: 'missing-on-disk', text: 'missing on disk, but the session last left it there' }),
  unsaved: (): RestoreReason => ({ kind: 'unsaved', text: 'has unsaved changes in the editor' }),
  /** The session does not determine the file's current content (so what is on disk cannot be checked). */
  currentNotDetermined: (why: string): RestoreReason => ({
    kind: 'not-determined',
    text: `its current content is not determined by the session: ${why}`,
  }),
  targetNotDetermined: (why: string): RestoreReason => ({
    kind: 'not-determined',
    text: `its content at the target is not determined by the session: ${why}`,
  }),
  /** In the words of the one "verified" rule (contentVerdict.ts), which Show File Changes shows for the same file. */
  targetNotVerified: (target: FileContent): RestoreReason => ({
    kind: 'not-verified',
    text: `its content at the target is ${contentVerdict(target).words}`,
  }),
  pathRefused: (why: string): RestoreReason => ({ kind: 'path-refused', text: `path refused: ${why}` }),
  outsideCwd: (): RestoreReason => ({ kind: 'path-refused', text: "path refused: outside the session's working directory" }),
  /** `how`: what deleting it takes (the CLI's flag, the extension's confirmation). */
  createdOnBranch: (why: string, how: string): RestoreReason => ({
    kind: 'created-on-branch',
    text: `created by the session on a branch the target does not contain (${why}); ${how}`,
  }),
};

/** The most fundamental of some reasons (the first of the lowest rank). */
export function mostFundamental(reasons: readonly RestoreReason[]): RestoreReason | undefined {
  let best: RestoreReason | undefined;
  for (const r of reasons) if (!best || RESTORE_REASON_RANK[r.kind] < RESTORE_REASON_RANK[best.kind]) best = r;
  return best;
}
