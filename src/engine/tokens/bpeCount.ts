/**
 * Counts o200k_base tokens exactly as OpenAI's reference tokenizer
 * (tiktoken's `encode_ordinary`) does: special-token text such as
 * `<|endoftext|>` is ordinary text. The text is split into pre-tokens by the
 * encoding's pattern (preTokens.ts), a pre-token that is itself a token
 * counts 1, any other is UTF-8 encoded and merged pair by pair, lowest rank
 * (leftmost on a tie) first, and counts as many tokens as parts remain. A
 * lone surrogate is encoded as U+FFFD, as tiktoken receives it.
 *
 * A pre-token other than one ASCII character is looked up in a cache of counts
 * (a string of it is made for that); one not counted yet is encoded into a
 * scratch buffer whose byte ranges are looked up in the table.
 * The merge is quadratic in the pre-token's length; callers hand it text whose
 * pre-tokens are short (countText.ts).
 */
import { NOT_ASCII, type RankTable } from './o200kTable';
import { preTokenEnd } from './preTokens';
import { detachedText } from '../text/detachedText';

const NONE = 0x7fffffff;
/** Pre-tokens of up to this many characters are counted once and their count kept (a long repeated run costs one merge). */
const CACHE_MAX_CHARS = 256;
/** Counts kept; the cache is emptied when it holds this many. */
const CACHE_SIZE = 32768;

export class BpeCounter {
  private bytes = new Uint8Array(512);
  // While merging, by the byte position where a part starts: the next part's start (or the
  // length), the previous part's start (or -1), and the rank of the merge with the next part.
  private next = new Int32Array(512);
  private prev = new Int32Array(512);
  private ranks = new Int32Array(512);
  private readonly cache = new Map<string, number>();

  constructor(private readonly table: RankTable) {}

  /** Tokens of `text`. */
  count(text: string): number {
    let tokens = 0;
    for (let i = 0; i < text.length;) {
      const end = preTokenEnd(text, i);
      tokens += end - i === 1 && text.charCodeAt(i) < 0x80 ? 1 : this.countPreToken(text, i, end);
      i = end;
    }
    return tokens;
  }

  /**
   * Tokens of the pre-token text[from, to), kept for a pre-token of up to
   * CACHE_MAX_CHARS: most pre-tokens of a session recur (words, paths,
   * indentation), and a Map lookup of the pre-token costs less than finding
   * it in the rank table (a hash of its characters, then a bucket's records).
   */
  private countPreToken(text: string, from: number, to: number): number {
    if (to - from > CACHE_MAX_CHARS) return this.countUncached(text, from, to);
    const key = text.slice(from, to);
    let parts = this.cache.get(key);
    if (parts === undefined) {
      parts = this.countUncached(text, from, to);
      if (this.cache.size >= CACHE_SIZE) this.cache.clear();
      // Kept detached: a slice would keep the whole text it was cut from (a tool result of megabytes) alive.
      this.cache.set(detachedText(key), parts);
    }
    return parts;
  }

  /** 1 when the pre-token is a token (most words are: one lookup), else the parts left after merging. */
  private countUncached(text: string, from: number, to: number): number {
    // An ASCII pre-token is looked up from the text itself (no UTF-8 copy unless it must be merged).
    const ascii = this.table.rankOfAscii(text, from, to);
    if (ascii >= 0) return 1;
    const n = this.encode(text, from, to);
    if (ascii === NOT_ASCII && this.table.rank(this.bytes, 0, n) >= 0) return 1;
    return this.merge(n);
  }

  /** UTF-8 of text[from, to) into the scratch bytes (a lone surrogate as U+FFFD): their length. */
  private encode(text: string, from: number, to: number): number {
    if (this.bytes.length < (to - from) * 3) this.grow((to - from) * 3);
    const b = this.bytes;
    let n = 0;
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x80) b[n++] = c;
      else if (c < 0x800) {
        b[n++] = 0xc0 | (c >> 6);
        b[n++] = 0x80 | (c & 0x3f);
      } else if (c >= 0xd800 && c < 0xe000) {
        const d = c < 0xdc00 && i + 1 < to ? text.charCodeAt(i + 1) : 0;
        if (d >= 0xdc00 && d < 0xe000) {
          const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          b[n++] = 0xf0 | (cp >> 18);
          b[n++] = 0x80 | ((cp >> 12) & 0x3f);
          b[n++] = 0x80 | ((cp >> 6) & 0x3f);
          b[n++] = 0x80 | (cp & 0x3f);
          i++;
        } else {
          b[n++] = 0xef;
          b[n++] = 0xbf;
          b[n++] = 0xbd;
        }
      } else {
        b[n++] = 0xe0 | (c >> 12);
        b[n++] = 0x80 | ((c >> 6) & 0x3f);
        b[n++] = 0x80 | (c & 0x3f);
      }
    }
    return n;
  }

  /** Rank of bytes[start, end), or NONE. */
  private rankOf(start: number, end: number): number {
    const r = this.table.rank(this.bytes, start, end);
    return r < 0 ? NONE : r;
  }

  /** Parts left after merging bytes[0, n): the lowest-ranked adjacent pair first, the leftmost of equal ones. */
  private merge(n: number): number {
    const { next, prev, ranks } = this;
    for (let p = 0; p < n; p++) {
      next[p] = p + 1;
      prev[p] = p - 1;
      ranks[p] = p + 2 <= n ? this.rankOf(p, p + 2) : NONE;
    }
    let parts = n;
    while (parts > 1) {
      let best = NONE;
      let at = -1;
      for (let p = 0; p < n; p = next[p]) {
        if (ranks[p] < best) {
          best = ranks[p];
          at = p;
        }
      }
      if (at < 0) break;
      // The part at `at` absorbs the next one.
      const after = next[next[at]];
      next[at] = after;
      if (after < n) prev[after] = at;
      parts--;
      ranks[at] = after < n ? this.rankOf(at, next[after]) : NONE;
      if (prev[at] >= 0) ranks[prev[at]] = this.rankOf(prev[at], after);
    }
    return parts;
  }

  private grow(min: number): void {
    let size = this.bytes.length;
    while (size < min) size *= 2;
    this.bytes = new Uint8Array(size);
    this.next = new Int32Array(size);
    this.prev = new Int32Array(size);
    this.ranks = new Int32Array(size);
  }
}
