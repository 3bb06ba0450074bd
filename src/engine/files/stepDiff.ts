import type { FileChange, FileContent } from './types';

/**
 * The two texts a diff view shows for one change. When the session knows
 * the file before and after, the whole file; otherwise only what the call
 * carries (a write's content; an edit's old and new texts), with a note.
 */
export interface StepDiff {
  before: string;
  after: string;
  /** Set when the texts are not the whole file (or not verified). */
  note?: string;
  /** A few words for a title when the texts are not simply the whole file before and after. */
  tag?: string;
}

const hasText = (c: FileContent): c is Extract<FileContent, { text: string }> => c.state === 'known' || c.state === 'assumed';

export function stepDiff(change: FileChange): StepDiff {
  const { before, after } = change;
  if (hasText(before) && hasText(after)) {
    return before.state === 'assumed'
      ? { before: before.text, after: after.text, note: `not verified: ${before.reason}`, tag: 'not verified' }
      : { before: before.text, after: after.text };
  }
  if (change.kind === 'write') {
    if (before.state === 'absent') return { before: '', after: change.content ?? '', tag: 'new file' };
    if (hasText(before)) return { before: before.text, after: change.content ?? '' };
    return {
      before: '',
      after: change.content ?? '',
      note: 'the content before this write is not known to the session',
      tag: 'earlier content unknown',
    };
  }
  const edits = change.edits ?? [];
  const sep = '\n⋯\n';
  return {
    before: edits.map((e) => e.oldText).join(sep),
    after: edits.map((e) => e.newText).join(sep),
    note: `only the replaced text: the file's whole content is not known here (${after.state === 'unknown' ? after.reason : 'unknown'})`,
    tag: 'replaced text only',
  };
}
