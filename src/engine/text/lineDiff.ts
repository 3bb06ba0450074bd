/** One line of a change as a reader sees it: kept (context), removed, or added. */
export interface DiffLine {
  kind: 'same' | 'removed' | 'added';
  text: string;
}

/** Context lines kept around a change (the unchanged lines it starts and ends with). */
const CONTEXT_LINES = 3;

/**
 * An edit's old and new text as lines a reader can follow: the lines both share at the start and the end (up to
 * CONTEXT_LINES of each shown), the old middle removed, the new middle added. Linear (no alignment search): an edit
 * replaces one place, so what differs is the middle.
 */
export function editDiffLines(oldText: string, newText: string): DiffLine[] {
  // A final line break ends the last line; it is not an empty line after it.
  const lines = (t: string) => t.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n');
  const a = lines(oldText);
  const b = lines(newText);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  const same = (text: string): DiffLine => ({ kind: 'same', text });
  return [
    ...a.slice(Math.max(0, start - CONTEXT_LINES), start).map(same),
    ...a.slice(start, a.length - end).map((text): DiffLine => ({ kind: 'removed', text })),
    ...b.slice(start, b.length - end).map((text): DiffLine => ({ kind: 'added', text })),
    ...a.slice(a.length - end, Math.min(a.length, a.length - end + CONTEXT_LINES)).map(same),
  ];
}
