/**
 * The text redaction compares (redact.ts): what is left of a text once every
 * way of hiding a key's characters in plain sight is undone, with where each
 * kept character came from, so that a match is replaced in the original.
 *
 * - Escapes are decoded: `\uXXXX`, `\u{X…}`, `\UXXXXXXXX`, `\xNN`, HTML
 *   character references (`&#115;`, `&#x73;`, and the named ones for ASCII
 *   punctuation and spaces); a `0x` before a hex digit is dropped (so
 *   `0x73 0x6b`, `0x736b` read as the hex `736b`), the digit after it
 *   counted from the `0`, so a span that starts there holds the prefix.
 * - Each character is folded by NFKD (full-width and other compatibility
 *   forms, ligatures, accented letters into letter + mark), then marks,
 *   format characters, default-ignorable characters (zero-width, variation
 *   selectors, tags, Hangul fillers), whitespace, punctuation, symbols
 *   (the braille blank) and control characters are dropped, and letters are
 *   lower-cased. What is kept is letters and digits: a separator between a
 *   key's characters (`-`, `.`, `|`, `:`, `%`, spaces, invisible characters)
 *   is gone.
 *
 * One pass over the text, a bounded look-ahead at each escape: linear.
 */

export interface Skeleton {
  /** The kept characters (UTF-16 code units). */
  codes: Uint16Array;
  /** For each kept character, the [start, end) of the original text it came from. */
  start: Int32Array;
  end: Int32Array;
  length: number;
}

const DROPPED = /[\p{M}\p{Cf}\p{Default_Ignorable_Code_Point}\p{White_Space}\p{P}\p{S}\p{Cc}\p{Z}]/gu;

/** ASCII: the kept code (lower case), or 0 when dropped. */
const ASCII = new Uint16Array(128);
for (let c = 0; c < 128; c++) {
  if (c >= 0x30 && c <= 0x39) ASCII[c] = c;
  else if (c >= 0x61 && c <= 0x7a) ASCII[c] = c;
  else if (c >= 0x41 && c <= 0x5a) ASCII[c] = c + 32;
}

const foldCache = new Map<number, string>();

/** What one non-ASCII code point leaves in the skeleton (often nothing). */
function foldNonAscii(cp: number): string {
  let out = foldCache.get(cp);
  if (out !== undefined) return out;
  out = String.fromCodePoint(cp).normalize('NFKD').replace(DROPPED, '').toLowerCase();
  if (foldCache.size > 1 << 16) foldCache.clear();
  foldCache.set(cp, out);
  return out;
}

/** Named HTML character references a provider may use for a key's separators (the letters and digits have none). */
const NAMED: Record<string, number> = {
  amp: 0x26,
  lt: 0x3c,
  gt: 0x3e,
  quot: 0x22,
  apos: 0x27,
  nbsp: 0xa0,
  hyphen: 0x2d,
  dash: 0x2010,
  minus: 0x2212,
  period: 0x2e,
  colon: 0x3a,
  semi: 0x3b,
  comma: 0x2c,
  lowbar: 0x5f,
  verbar: 0x7c,
  vert: 0x7c,
  sol: 0x2f,
  bsol: 0x5c,
  plus: 0x2b,
  equals: 0x3d,
  num: 0x23,
  percnt: 0x25,
  excl: 0x21,
  quest: 0x3f,
  ast: 0x2a,
  lpar: 0x28,
  rpar: 0x29,
  lsqb: 0x5b,
  rsqb: 0x5d,
  lcub: 0x7b,
  rcub: 0x7d,
  tilde: 0x7e,
  grave: 0x60,
  dollar: 0x24,
  commat: 0x40,
  Tab: 0x09,
  NewLine: 0x0a,
  ensp: 0x2002,
  emsp: 0x2003,
  thinsp: 0x2009,
  zwsp: 0x200b,
  zwnj: 0x200c,
  zwj: 0x200d,
  shy: 0xad,
};

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const l = c | 0x20;
  return l >= 0x61 && l <= 0x66 ? l - 0x61 + 10 : -1;
}

/** The value of `text[from, from + n)` read as hex digits, or -1. */
function hexAt(text: string, from: number, n: number): number {
  if (from + n > text.length) return -1;
  let v = 0;
  for (let k = 0; k < n; k++) {
    const d = hexValue(text.charCodeAt(from + k));
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/** The index of `code` in text[from, from + within), or -1 (a bounded look-ahead: never a scan to the end). */
function charWithin(text: string, code: number, from: number, within: number): number {
  const to = Math.min(text.length, from + within);
  for (let j = from; j < to; j++) if (text.charCodeAt(j) === code) return j;
  return -1;
}

/** An escape starting at `i`: the code point it stands for and where it ends, or undefined. */
function escapeAt(text: string, i: number): { cp: number; end: number } | undefined {
  const c = text.charCodeAt(i);
  if (c === 0x5c /* \ */) {
    const k = text.charCodeAt(i + 1);
    if (k === 0x78 /* x */) {
      const v = hexAt(text, i + 2, 2);
      return v < 0 ? undefined : { cp: v, end: i + 4 };
    }
    if (k === 0x75 /* u */) {
      if (text.charCodeAt(i + 2) === 0x7b /* { */) {
        const close = charWithin(text, 0x7d /* } */, i + 3, 7);
        if (close < 0 || close === i + 3) return undefined;
        const v = hexAt(text, i + 3, close - i - 3);
        return v < 0 || v > 0x10ffff ? undefined : { cp: v, end: close + 1 };
      }
      const v = hexAt(text, i + 2, 4);
      return v < 0 ? undefined : { cp: v, end: i + 6 };
    }
    if (k === 0x55 /* U */) {
      const v = hexAt(text, i + 2, 8);
      return v < 0 || v > 0x10ffff ? undefined : { cp: v, end: i + 10 };
    }
    return undefined;
  }
  if (c === 0x26 /* & */) {
    if (text.charCodeAt(i + 1) === 0x23 /* # */) {
      const isHex = (text.charCodeAt(i + 2) | 0x20) === 0x78;
      let j = i + (isHex ? 3 : 2);
      let v = 0;
      const from = j;
      for (; j < text.length && j - from < 8; j++) {
        const d = isHex ? hexValue(text.charCodeAt(j)) : text.charCodeAt(j) - 0x30;
        if (d < 0 || d > (isHex ? 15 : 9)) break;
        v = v * (isHex ? 16 : 10) + d;
      }
      if (j === from || v > 0x10ffff) return undefined;
      return { cp: v, end: text.charCodeAt(j) === 0x3b ? j + 1 : j };
    }
    const semi = charWithin(text, 0x3b /* ; */, i + 2, 9);
    if (semi < 0) return undefined;
    const cp = NAMED[text.slice(i + 1, semi)];
    return cp === undefined ? undefined : { cp, end: semi + 1 };
  }
  return undefined;
}

/** The skeleton of `text` (see the file's comment). */
export function skeletonOf(text: string): Skeleton {
  let cap = Math.max(16, text.length);
  let codes = new Uint16Array(cap);
  let start = new Int32Array(cap);
  let end = new Int32Array(cap);
  let n = 0;
  const push = (code: number, a: number, b: number) => {
    if (n === cap) {
      cap *= 2;
      const c2 = new Uint16Array(cap);
      c2.set(codes);
      codes = c2;
      const s2 = new Int32Array(cap);
      s2.set(start);
      start = s2;
      const e2 = new Int32Array(cap);
      e2.set(end);
      end = e2;
    }
    codes[n] = code;
    start[n] = a;
    end[n++] = b;
  };
  const pushPoint = (cp: number, a: number, b: number) => {
    if (cp < 128) {
      const k = ASCII[cp];
      if (k) push(k, a, b);
      return;
    }
    const folded = foldNonAscii(cp);
    for (let k = 0; k < folded.length; k++) push(folded.charCodeAt(k), a, b);
  };
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i);
    if (c === 0x5c || c === 0x26) {
      const esc = escapeAt(text, i);
      if (esc) {
        pushPoint(esc.cp, i, esc.end);
        i = esc.end;
        continue;
      }
    } else if (c === 0x30 && (text.charCodeAt(i + 1) | 0x20) === 0x78 && hexValue(text.charCodeAt(i + 2)) >= 0) {
      // A 0x prefix: dropped, its digit kept as coming from the prefix's start, so a span starting there covers `0x`.
      push(ASCII[text.charCodeAt(i + 2)], i, i + 3);
      i += 3;
      continue;
    }
    if (c < 128) {
      const k = ASCII[c];
      if (k) push(k, i, i + 1);
      i++;
      continue;
    }
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    pushPoint(cp, i, i + width);
    i += width;
  }
  return { codes, start, end, length: n };
}
