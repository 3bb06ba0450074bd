/**
 * Linear-time token counting of any text with a BPE counter whose own cost
 * is quadratic in the length of one pre-token (bpeCount.ts, like
 * gpt-tokenizer, merges a piece by rescanning it: one 200,000-character
 * base64 blob took gpt-tokenizer 40 s).
 *
 * The text is handed to the counter in segments that end where a pre-token
 * boundary is certain (a space after a non-space, a line start that is not
 * '/' or whitespace), so ordinary prose and code are counted exactly as one
 * call would count them. A run of MAX_PIECE characters without such a
 * boundary (a blob, minified code, a long `=====` line, a run of spaces) is
 * counted in MAX_PIECE-character pieces: each cut can add at most one token,
 * so such runs are over-counted by at most 1 token per MAX_PIECE characters.
 *
 * A text longer than MAX_COUNTED_CHARS is not tokenized whole: its first
 * and last MAX_COUNTED_CHARS / 2 characters are, and the rest is estimated
 * at the density (tokens per character) of those two samples. So no text
 * costs more than about MAX_COUNTED_CHARS characters of tokenizer work.
 */

import { isPatternSpace } from './preTokens';

/** Longest run of characters without a certain pre-token boundary that is counted in one piece. */
export const MAX_PIECE = 128;
/** Texts longer than this are counted on a head and tail sample of this many characters in all. */
export const MAX_COUNTED_CHARS = 2 * 1024 * 1024;

export type CountPiece = (text: string) => number;

/** A position not inside a surrogate pair, at or after `i`. */
function pairSafe(text: string, i: number): number {
  if (i <= 0 || i >= text.length) return i;
  const c = text.charCodeAt(i);
  return c >= 0xdc00 && c <= 0xdfff ? i + 1 : i;
}

/** Tokens of text[from, to), in linear time. */
function countRange(text: string, from: number, to: number, count: CountPiece): number {
  if (to - from <= MAX_PIECE) return to > from ? count(text.slice(from, to)) : 0;
  let total = 0;
  let segStart = from;
  let lastBoundary = from;
  let prev = text.charCodeAt(from);
  for (let i = from + 1; i < to; i++) {
    const c = text.charCodeAt(i);
    if ((c === 0x20 && !isPatternSpace(prev)) || ((prev === 0x0a || prev === 0x0d) && !isPatternSpace(c) && c !== 0x2f)) lastBoundary = i;
    else if (i - lastBoundary >= MAX_PIECE) {
      // A long run: what came before it is one segment, the run is cut into pieces.
      if (lastBoundary > segStart) total += count(text.slice(segStart, lastBoundary));
      const cut = pairSafe(text, i);
      total += count(text.slice(lastBoundary, cut));
      segStart = lastBoundary = cut;
      i = cut;
      if (i >= to) break;
      prev = text.charCodeAt(i);
      continue;
    }
    prev = c;
  }
  if (to > segStart) total += count(text.slice(segStart, to));
  return total;
}

/** Tokens of `text` (see the module comment for what is exact and what is estimated), linear in its length. */
export function countTextTokens(text: string, count: CountPiece): number {
  const n = text.length;
  if (n <= MAX_COUNTED_CHARS) return countRange(text, 0, n, count);
  const half = MAX_COUNTED_CHARS / 2;
  const headEnd = pairSafe(text, half);
  const tailStart = pairSafe(text, n - half);
  const sampled = headEnd + (n - tailStart);
  const tokens = countRange(text, 0, headEnd, count) + countRange(text, tailStart, n, count);
  return Math.round((tokens * n) / sampled);
}
