import { detachedText } from '../../text/detachedText';

/**
 * The retention check's own text helpers (issue 32 item 8: its facts are read
 * independently of the offline summarizer, so it shares none of that
 * summarizer's helpers). Every function is a hand-written forward scan or a
 * regex without nested or overlapping quantifiers: linear in its input,
 * which comes from session files and tool output.
 */

/** A regex of alternatives (`before(?:a|b|c)after`): long lists stay readable, one alternative a line. */
export function anyOf(parts: readonly string[], flags = '', before = '', after = ''): RegExp {
  return new RegExp(`${before}(?:${parts.join('|')})${after}`, flags);
}

export function isSpaceCode(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x2028 || c === 0x2029 || c === 0xfeff;
}

const isDigitCode = (c: number) => c >= 48 && c <= 57;
const isAsciiLetterCode = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const LETTER = /\p{L}/u;

/** A letter, digit or underscore (what a word or an identifier is made of). */
export function isWordCode(text: string, i: number): boolean {
  if (i < 0 || i >= text.length) return false;
  const c = text.charCodeAt(i);
  if (isDigitCode(c) || isAsciiLetterCode(c) || c === 95) return true;
  return c > 127 && LETTER.test(text[i]);
}

/** Whitespace runs as one space, trimmed. */
export function squash(text: string): string {
  const parts: string[] = [];
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    if (isSpaceCode(text.charCodeAt(i))) {
      if (start >= 0) parts.push(text.slice(start, i));
      start = -1;
    } else if (start < 0) start = i;
  }
  if (start >= 0) parts.push(text.slice(start));
  return parts.join(' ');
}

/** At most `max` characters, cut at a word end with an ellipsis; whitespace squashed; detached from `text`. */
export function clip(text: string, max: number): string {
  const t = squash(text.length > max * 4 + 64 ? text.slice(0, max * 4 + 64) : text);
  if (t.length <= max) return detachedText(t);
  let cut = t.slice(0, Math.max(1, max - 1));
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  const space = cut.lastIndexOf(' ');
  if (space > max * 0.6) cut = cut.slice(0, space);
  let end = cut.length;
  while (end > 0 && ',;:.-'.includes(cut[end - 1])) end--;
  return detachedText(`${cut.slice(0, end)}…`);
}

export { firstLine } from '../../text/lines';

/** A list marker ("- ", "* ", "1. ", "2) ", "> ") at the start of a line, as a length (0 without one). */
export function listMarkerLength(line: string): number {
  let i = 0;
  while (i < line.length && isSpaceCode(line.charCodeAt(i))) i++;
  let j = i;
  while (j < line.length && '-*+•>'.includes(line[j])) j++;
  if (j > i && (j === line.length || isSpaceCode(line.charCodeAt(j)))) {
    while (j < line.length && isSpaceCode(line.charCodeAt(j))) j++;
    return j;
  }
  j = i;
  while (j < line.length && j - i < 4 && isDigitCode(line.charCodeAt(j))) j++;
  if (j > i && (line[j] === '.' || line[j] === ')') && (j + 1 === line.length || isSpaceCode(line.charCodeAt(j + 1)))) {
    j++;
    while (j < line.length && isSpaceCode(line.charCodeAt(j))) j++;
    return j;
  }
  return i;
}

/**
 * The sentences of a prose text: lines split after `.`, `!` or `?` followed by
 * whitespace, fenced code and list markers left out; at most `limit`, read
 * from the first 200 000 characters.
 */
export function sentencesOf(text: string, limit = 200): string[] {
  const out: string[] = [];
  const prose = text.length > 200_000 ? text.slice(0, 200_000) : text;
  let inFence = false;
  let start = 0;
  while (start <= prose.length && out.length < limit) {
    let end = prose.indexOf('\n', start);
    if (end < 0) end = prose.length;
    const raw = prose.slice(start, end);
    start = end + 1;
    if (raw.trimStart().startsWith('```')) {
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    const line = raw.slice(listMarkerLength(raw));
    let from = 0;
    for (let i = 0; i < line.length && out.length < limit; i++) {
      const c = line[i];
      if ((c === '.' || c === '!' || c === '?') && (i + 1 === line.length || isSpaceCode(line.charCodeAt(i + 1)))) {
        const s = squash(line.slice(from, i + 1));
        if (s.length >= 3) out.push(s);
        from = i + 1;
      }
    }
    const rest = squash(line.slice(from));
    if (rest.length >= 3 && out.length < limit) out.push(rest);
  }
  return out;
}

/** A question rather than a statement or an instruction. */
export function isQuestion(sentence: string): boolean {
  const s = sentence.trim();
  if (s.endsWith('?')) return true;
  return (
    !s.endsWith('.') &&
    /^(?:what|why|how|which|who|where|when|is|are|does|do|did|can|could|would|will|should)\b/i.test(s) &&
    !/[.!]/.test(s)
  );
}

/** A value in backticks (backticks inside replaced, so the span cannot break). */
export function code(text: string): string {
  return `\`${text.split('`').join("'")}\``;
}

/**
 * A tool target as the same file however it was written: relative to `cwd`
 * or absolute under it, with or without `./`.
 */
export function relativePath(target: string, cwd: string | undefined): string {
  let t = target.trim();
  const base = typeof cwd === 'string' && cwd ? `${cwd.replace(/\/+$/, '')}/` : '';
  if (base.length > 1 && t.startsWith(base)) t = t.slice(base.length);
  while (t.startsWith('./')) t = t.slice(2);
  return t;
}

// ---------------------------------------------------------------------------
// Numbers

/** Longest number token read (longer digit runs are ids or data, not stated results). */
const NUMBER_MAX = 32;
/** Longest unit glued to a number that still leaves it a number ("200ms", "12MB", "3x"). */
const UNIT_MAX = 3;

/**
 * Calls `visit` with every number of `text` in canonical form, with where it
 * is (`start`, `end`): a digit run not glued to a word ("x86", "3eb4b5d1"
 * and "16x16" hold none; "200ms" holds 200), with its thousands groups
 * ("1,024" is 1024) and its decimal or version part ("12.50" is 12.5, "1.6.0"
 * stays). Signs and percent marks are not part of it. One forward scan.
 */
export function forEachNumber(text: string, visit: (canonical: string, start: number, end: number) => void): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (!isDigitCode(c)) {
      i++;
      continue;
    }
    if (isWordCode(text, i - 1)) {
      // Inside a word ("x86", "abc123", "v1.6"): skip the rest of it.
      i = wordEnd(text, i);
      continue;
    }
    const start = i;
    while (i < n && isDigitCode(text.charCodeAt(i))) i++;
    let intPart = text.slice(start, i);
    // Thousands groups: a comma or underscore, then exactly three digits, while the first group has at most three.
    if (intPart.length <= 3) {
      while (i + 3 < n + 1 && (text[i] === ',' || text[i] === '_')) {
        let k = i + 1;
        while (k < n && k - i - 1 < 4 && isDigitCode(text.charCodeAt(k))) k++;
        if (k - i - 1 !== 3) break;
        intPart += text.slice(i + 1, k);
        i = k;
      }
    }
    let fraction = '';
    while (i + 1 < n && text[i] === '.' && isDigitCode(text.charCodeAt(i + 1))) {
      const from = i;
      i++;
      while (i < n && isDigitCode(text.charCodeAt(i))) i++;
      fraction += text.slice(from, i);
    }
    const end = i;
    // A short unit glued on ("200ms"); anything longer, or more digits after it, makes it a word.
    let u = i;
    while (u < n && u - i <= UNIT_MAX && isWordCode(text, u) && !isDigitCode(text.charCodeAt(u))) u++;
    if (u > i && (u - i > UNIT_MAX || isWordCode(text, u))) {
      i = wordEnd(text, u);
      continue;
    }
    i = u;
    if (end - start > NUMBER_MAX) continue;
    visit(canonicalNumber(intPart, fraction), start, end);
  }
}

/** The end of the word at `i`, with its dotted parts ("v1.6.0", "gpt-4.1" from the "4"). */
function wordEnd(text: string, i: number): number {
  let k = i;
  for (;;) {
    while (k < text.length && isWordCode(text, k)) k++;
    if (text[k] === '.' && isWordCode(text, k + 1)) k++;
    else return k;
  }
}

function canonicalNumber(intPart: string, fraction: string): string {
  let k = 0;
  while (k < intPart.length - 1 && intPart[k] === '0') k++;
  const whole = intPart.slice(k);
  if (!fraction) return detachedText(whole);
  if (fraction.indexOf('.', 1) > 0) return detachedText(whole + fraction); // a version: 1.6.0
  let end = fraction.length;
  while (end > 1 && fraction[end - 1] === '0') end--;
  return detachedText(end === 1 ? whole : whole + fraction.slice(0, end));
}

/** The canonical numbers of a text, in order (see forEachNumber). */
export function numbersOf(text: string): string[] {
  const out: string[] = [];
  forEachNumber(text, (n) => out.push(n));
  return out;
}

const SET_LIMIT = 65_536;
const BLOOM_BITS = 1 << 23;

function hash32(s: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  return h >>> 0;
}

/**
 * The numbers a span holds, in bounded memory: a set up to 65 536 of them,
 * then a Bloom filter of 1 MB (a typed array, outside the JS heap). A false
 * "holds it" only means a number the span lacks is not reported, never the
 * reverse.
 */
export class NumberSet {
  private set: Set<string> | null = new Set();
  private bits: Uint32Array | null = null;

  add(n: string): void {
    if (this.set) {
      this.set.add(n);
      if (this.set.size > SET_LIMIT) {
        this.bits = new Uint32Array(BLOOM_BITS >>> 5);
        for (const v of this.set) this.bloomAdd(v);
        this.set = null;
      }
    } else this.bloomAdd(n);
  }

  /** The numbers of a text; a decimal's whole part too ("12.3" holds the "12" a summary may round it to). */
  addAll(text: string): void {
    forEachNumber(text, (n) => {
      this.add(n);
      const dot = n.indexOf('.');
      if (dot > 0 && n.indexOf('.', dot + 1) < 0) this.add(n.slice(0, dot));
    });
  }

  has(n: string): boolean {
    if (this.set) return this.set.has(n);
    const bits = this.bits!;
    const a = hash32(n, 0x811c9dc5);
    const b = hash32(n, 0x9747b28c) | 1;
    for (let k = 0; k < 3; k++) {
      const bit = (a + Math.imul(k, b)) & (BLOOM_BITS - 1);
      if (!(bits[bit >>> 5] & (1 << (bit & 31)))) return false;
    }
    return true;
  }

  private bloomAdd(n: string): void {
    const bits = this.bits!;
    const a = hash32(n, 0x811c9dc5);
    const b = hash32(n, 0x9747b28c) | 1;
    for (let k = 0; k < 3; k++) {
      const bit = (a + Math.imul(k, b)) & (BLOOM_BITS - 1);
      bits[bit >>> 5] |= 1 << (bit & 31);
    }
  }
}

// ---------------------------------------------------------------------------
// Key words

const STOP_WORDS = new Set(
  (
    'the and for with that this these those are was were has have had not but you your yours can will all any from into its ' +
    'which what when where who whom how than then there here them they their theirs our ours out use used using also just only ' +
    'now yes let got get gets did does done been being more most some such each very about after before over under again ' +
    "because since would could should shall may might must one two three its it’s it's i’ll i'll i’ve i've i’m i'm let’s let's " +
    'sure okay thanks thank please well like also both either neither nor onto upon off too via per own same other another ' +
    'much many few lot lots into onto out way ways thing things make made see seen say said tell told give gave new old'
  ).split(' '),
);

/**
 * The words that carry a text's meaning, lower case, in order, unique: runs
 * of letters, digits and underscores of three characters or more that are
 * not common words or bare numbers; at most `max`.
 */
export function keyWordsOf(text: string, max = 12): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const t = text.length > 4000 ? text.slice(0, 4000) : text;
  let i = 0;
  while (i < t.length && out.length < max) {
    if (!isWordCode(t, i)) {
      i++;
      continue;
    }
    const start = i;
    let digits = true;
    while (i < t.length && isWordCode(t, i)) {
      if (!isDigitCode(t.charCodeAt(i))) digits = false;
      i++;
    }
    if (i - start < 3 || digits) continue;
    const w = t.slice(start, i).toLowerCase();
    if (STOP_WORDS.has(w) || seen.has(w)) continue;
    seen.add(w);
    out.push(w);
  }
  return out;
}

/** Every word (letters, digits, underscores) of a text, lower case, as a set. */
export function wordSet(text: string): Set<string> {
  const out = new Set<string>();
  let i = 0;
  while (i < text.length) {
    if (!isWordCode(text, i)) {
      i++;
      continue;
    }
    const start = i;
    while (i < text.length && isWordCode(text, i)) i++;
    if (i - start <= 64) out.add(text.slice(start, i).toLowerCase());
  }
  return out;
}
