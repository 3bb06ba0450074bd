/**
 * o200k_base pre-tokens: where the encoding's split pattern ends the
 * pre-token that starts at a position. The pattern itself decides; for
 * ASCII text (most of a session) a hand-written matcher gives the same ends
 * several times faster, and hands any position whose pre-token depends on a
 * non-ASCII character back to the pattern.
 */
import { isWhitespace } from '../text/whitespace';

/**
 * Whitespace as the reference tokenizer's pattern has it: Unicode's
 * White_Space (Rust's `\s`), which is not JavaScript's `\s` (that one has
 * U+FEFF and lacks U+0085).
 */
const SPACE_CHARS = String.raw`\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000`;
/** Whether a character code is whitespace to the pattern (SPACE_CHARS): JavaScript's whitespace without U+FEFF, with U+0085. */
export function isPatternSpace(c: number): boolean {
  return c === 0x85 || (c !== 0xfeff && isWhitespace(c));
}

/**
 * Letters, marks and numbers that Unicode 17.0 added: the reference's
 * pattern (Rust's regex, Unicode 16 tables) reads them as unassigned, while
 * a JavaScript engine with Unicode 17 (Node 20.19's ICU 78) reads them as
 * letters, marks or numbers: they are taken out of those classes. (Found by
 * comparing counts with the reference on every code point; the unit tests
 * do it again, o200kCount.test.ts.)
 */
const NEWER_THAN_REFERENCE = `[${[
  String.raw`\u{88f}\u{c5c}\u{cdc}\u{1acf}-\u{1add}\u{1ae0}-\u{1aeb}\u{a7ce}-\u{a7cf}\u{a7d2}\u{a7d4}\u{a7f1}`,
  String.raw`\u{10940}-\u{10959}\u{10ec5}-\u{10ec7}\u{10efa}-\u{10efb}\u{11b60}-\u{11b67}\u{11db0}-\u{11ddb}`,
  String.raw`\u{11de0}-\u{11de9}\u{16ea0}-\u{16eb8}\u{16ebb}-\u{16ed3}\u{16ff2}-\u{16ff6}\u{187f8}-\u{187ff}`,
  String.raw`\u{18d09}-\u{18d1e}\u{18d80}-\u{18df2}\u{1e6c0}-\u{1e6de}\u{1e6e0}-\u{1e6f5}\u{1e6fe}-\u{1e6ff}`,
  String.raw`\u{2b73a}-\u{2b73f}\u{2cea2}-\u{2cead}\u{323b0}-\u{33479}`,
].join('')}]`;
/** A Unicode class as the reference has it (unicodeSets syntax). */
const asReference = (classes: string) => `[[${classes}]--${NEWER_THAN_REFERENCE}]`;

/**
 * The o200k_base pre-token pattern (tiktoken's pat_str), in JavaScript
 * syntax (the `v` flag, for class subtraction): its `\s` spelled out
 * (SPACE_CHARS), its Unicode classes as the reference has them
 * (NEWER_THAN_REFERENCE), and its case-insensitive contractions
 * `(?i:'s|...)` as the reference matches them (Unicode simple case folding:
 * `'ſ` is a contraction too).
 */
const SPACE_CLASS = `[${SPACE_CHARS}]`;
const LETTER_OR_NUMBER = asReference(String.raw`\p{L}\p{N}`);
const NUMBER = asReference(String.raw`\p{N}`);
const CONTRACTION = String.raw`(?:'(?:[sSſ]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?`;
const UPPERISH = asReference(String.raw`\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}`);
const LOWERISH = asReference(String.raw`\p{Ll}\p{Lm}\p{Lo}\p{M}`);
export const O200K_PRE_TOKEN = new RegExp(
  [
    /* 1 */ String.raw`[^\r\n${LETTER_OR_NUMBER}]?${UPPERISH}*${LOWERISH}+${CONTRACTION}`,
    /* 2 */ String.raw`[^\r\n${LETTER_OR_NUMBER}]?${UPPERISH}+${LOWERISH}*${CONTRACTION}`,
    /* 3 */ String.raw`${NUMBER}{1,3}`,
    /* 4 */ String.raw` ?[^${SPACE_CHARS}${LETTER_OR_NUMBER}]+[\r\n\/]*`,
    /* 5 */ String.raw`${SPACE_CLASS}*[\r\n]+`,
    /* 6 */ String.raw`${SPACE_CLASS}+(?![^${SPACE_CHARS}])`,
    /* 7 */ String.raw`${SPACE_CLASS}+`,
  ].join('|'),
  'vy',
);

// ASCII character classes, as the pattern sees them (its whitespace: tab, LF, VT, FF, CR, space).
const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;
const NEWLINE = 4; // \r \n
const SPACE = 5; // ' '
const BLANK = 6; // \t \v \f
const OTHER = 7; // punctuation, symbols, control characters
/** Not ASCII, or past the end. */
const NON_ASCII = 8;
const END = 9;

const ASCII_CLASS = new Uint8Array(128).map((_, c) => {
  if (c >= 0x61 && c <= 0x7a) return LOWER;
  if (c >= 0x41 && c <= 0x5a) return UPPER;
  if (c >= 0x30 && c <= 0x39) return DIGIT;
  if (c === 0x0a || c === 0x0d) return NEWLINE;
  if (c === 0x20) return SPACE;
  if (c === 0x09 || c === 0x0b || c === 0x0c) return BLANK;
  return OTHER;
});

function classAt(text: string, i: number): number {
  if (i >= text.length) return END;
  const c = text.charCodeAt(i);
  return c < 0x80 ? ASCII_CLASS[c] : NON_ASCII;
}

/** End of the pre-token that starts at `i` (< text.length). */
export function preTokenEnd(text: string, i: number): number {
  const end = asciiPreTokenEnd(text, i);
  if (end >= 0) return end;
  const re = O200K_PRE_TOKEN;
  re.lastIndex = i;
  // The pattern matches at every position: each kind of character starts one of its alternatives.
  if (!re.test(text)) throw new Error(`no o200k pre-token at ${i}`);
  return re.lastIndex;
}

/** The pattern's letters alternatives (1, then 2) from `j`, the letter after an optional prefix; -1 where a non-ASCII character decides. */
function lettersEnd(text: string, j: number): number {
  let p = j;
  let k: number;
  while ((k = classAt(text, p)) === UPPER) p++;
  let q = p;
  while (k === LOWER) k = classAt(text, ++q);
  if (k === NON_ASCII) return -1;
  // Alternative 1 when lower-case letters follow the capitals, else 2 (capitals only).
  if (text.charCodeAt(q) !== 0x27) return q;
  const a = text.charCodeAt(q + 1) | 0x20;
  if (a === 0x73 || a === 0x64 || a === 0x6d || a === 0x74 || text.charCodeAt(q + 1) === 0x17f) return q + 2; // 's 'd 'm 't, and 'ſ (s case-folded)
  const b = text.charCodeAt(q + 2) | 0x20;
  if ((a === 0x6c && b === 0x6c) || (a === 0x76 && b === 0x65) || (a === 0x72 && b === 0x65)) return q + 3; // 'll 've 're
  return q;
}

/** The pattern's match at `i` for ASCII text, or -1 where a non-ASCII character decides (the pattern is used there). */
function asciiPreTokenEnd(text: string, i: number): number {
  const k = classAt(text, i);
  if (k === LOWER || k === UPPER) return lettersEnd(text, i);
  if (k === DIGIT) {
    let p = i + 1;
    while (p < i + 3 && classAt(text, p) === DIGIT) p++;
    return p < i + 3 && classAt(text, p) === NON_ASCII ? -1 : p;
  }
  if (k === NON_ASCII) return -1;
  const next = classAt(text, i + 1);
  if (next === NON_ASCII) return -1;
  // A prefix (anything but a newline, letter or digit) glued to letters.
  if (k !== NEWLINE && (next === LOWER || next === UPPER)) return lettersEnd(text, i + 1);
  if (k === OTHER || (k === SPACE && next === OTHER)) {
    // Alternative 4: an optional space, symbols, then newlines and slashes.
    let p = i + 1;
    let c: number;
    while ((c = classAt(text, p)) === OTHER) p++;
    if (c === NON_ASCII) return -1;
    while (p < text.length && ((c = text.charCodeAt(p)) === 0x0a || c === 0x0d || c === 0x2f)) p++;
    return p;
  }
  // Whitespace: up to its last newline (5), else all but its last character when more follows (6), else all of it (6, 7).
  let p = i;
  let lastNewline = -1;
  let c: number;
  for (; (c = classAt(text, p)) === SPACE || c === BLANK || c === NEWLINE; p++) if (c === NEWLINE) lastNewline = p;
  if (c === NON_ASCII) return -1;
  if (lastNewline >= 0) return lastNewline + 1;
  return c === END || p - i === 1 ? p : p - 1;
}
