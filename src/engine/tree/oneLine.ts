/**
 * One-line shortening of any text shown in a single row (tree rows, pickers,
 * CLI lines): whitespace runs become one space, Markdown bold markers
 * (`**x**`, `__x__`, closed on the same line) are dropped, and text over
 * `max` characters ends with "…".
 *
 * One pass that stops once it has `max + 1` characters of output: a row of a
 * 50 MB tool result reads its start, and a million rows cost no regex
 * passes. Linear in the characters it reads: a bold marker's closing search
 * runs to the next marker of its kind (which may be far: an unclosed `**`
 * before 50 MB of text reads them once, as the regex did).
 */
import { isWhitespace } from '../text/whitespace';

export const ONE_LINE_MAX = 140;

/** The characters `.` does not match: a bold span never crosses them. */
function isLineBreak(c: number): boolean {
  return c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
}

/**
 * Where the bold span opened by the two-character `marker` at `at` closes
 * (the index of its closing marker), or -1: the first marker at least one
 * character later, with no line break before it, as `\*\*(.+?)\*\*` finds
 * it. The scans run to the next marker, so they cover the text once.
 */
function closingMarker(text: string, at: number, marker: string): number {
  const close = text.indexOf(marker, at + 3);
  if (close < 0) return -1;
  for (let k = at + 2; k < close; k++) if (isLineBreak(text.charCodeAt(k))) return -1;
  return close;
}

/**
 * How far text[0, limit) reads as oneLine keeps it: no whitespace but single
 * spaces between other characters, no `**` or `__`. Most previews are such
 * text (prose, a command line) and are then the text itself or a slice of
 * it, with no string built word by word (half the cost of a million-row tree's
 * previews).
 */
function keptAsIs(text: string, limit: number): number {
  const end = Math.min(text.length, limit);
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20) {
      if (i === 0 || i + 1 >= text.length || isWhitespace(text.charCodeAt(i + 1))) return i;
    } else if (isWhitespace(c) || ((c === 42 || c === 95) && text.charCodeAt(i + 1) === c)) return i;
  }
  return end;
}

export function oneLine(text: string, max = ONE_LINE_MAX): string {
  const limit = Math.max(0, max) + 1; // characters enough to know whether the text is longer than max
  const n = text.length;
  const asIs = keptAsIs(text, limit);
  // Read to the end or to the limit with nothing to change: the text, or its start cut as below.
  if (asIs === limit || asIs === n) return asIs > max ? `${text.slice(0, Math.max(0, max - 1))}…` : text;
  // Locals only (no closure over them): this runs for every row of a million-entry tree.
  let out = '';
  let outLen = 0; // characters in out, and in the run not yet added to it
  let runStart = -1; // where the run of kept characters not yet in out starts
  let pendingSpace = false;
  let spanEnd = -1; // the closing marker of the bold span being read (its text is kept as is)
  let i = 0;
  while (i < n && outLen < limit) {
    const c = text.charCodeAt(i);
    let skip = 0;
    if (i === spanEnd) {
      skip = 2;
      spanEnd = -1;
    } else if (isWhitespace(c)) {
      skip = 1;
      pendingSpace = outLen > 0; // leading whitespace is dropped, trailing never written
    } else if (spanEnd < 0 && (c === 42 || c === 95) && text.charCodeAt(i + 1) === c) {
      const close = closingMarker(text, i, c === 42 ? '**' : '__');
      if (close >= 0) {
        skip = 2;
        spanEnd = close;
      }
    }
    if (skip) {
      if (runStart >= 0) out += text.slice(runStart, i);
      runStart = -1;
      i += skip;
      continue;
    }
    if (pendingSpace) {
      out += ' ';
      outLen++;
      pendingSpace = false;
      if (outLen >= limit) break;
    }
    if (runStart < 0) runStart = i;
    i++;
    outLen++;
  }
  if (runStart >= 0) out += text.slice(runStart, i);
  return outLen > max ? `${out.slice(0, Math.max(0, max - 1))}…` : out;
}
