import type { FileChange, FileContent, FileHistory } from './types';

/**
 * Whether the session verifies a file's content at one point, in the words every view uses: the one "verified"
 * rule of Show File Changes (its picker) and Restore Files (its picker and the restore plan's reasons), so the
 * same file at the same entry gets the same answer in both.
 */
export interface ContentVerdict {
  verified: boolean;
  /** "verified", "not verified: <why>", "not determined: <why>", or "verified: no file". */
  words: string;
}

export function contentVerdict(content: FileContent): ContentVerdict {
  switch (content.state) {
    case 'known':
      return { verified: true, words: 'verified' };
    case 'absent':
      return { verified: true, words: 'verified: no file' };
    case 'assumed':
      return { verified: false, words: `not verified: ${content.reason}` };
    case 'unknown':
      return { verified: false, words: `not determined: ${content.reason}` };
  }
}

/**
 * The verdict of one change of `file` as Show File Changes lists it: the file's last change in the scope is judged
 * by the file's content at the scope's end (`file.final`: what Restore Files to that entry would write), an earlier
 * change by its own result.
 */
export function changeVerdict(file: FileHistory, change: FileChange): ContentVerdict {
  return contentVerdict(change === file.changes[file.changes.length - 1] ? file.final : change.after);
}
