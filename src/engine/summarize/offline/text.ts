/**
 * Text helpers of the offline summarizer. Every one runs in linear time on any
 * input (hand-written scans, and only regexes without nested or overlapping
 * quantifiers), since the text comes from session files and tool output.
 */

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x2028 || c === 0x2029 || c === 0xfeff;
}

/** Collapses whitespace runs to one space and trims. */
export function squash(text: string): string {
  let out = '';
  let pendingSpace = false;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    if (isSpace(text.charCodeAt(i))) {
      if (start >= 0) {
        out += (pendingSpace ? ' ' : '') + text.slice(start, i);
        start = -1;
        pendingSpace = true;
      }
    } else if (start < 0) start = i;
  }
  if (start >= 0) out += (pendingSpace ? ' ' : '') + text.slice(start);
  return out;
}

/** Drops trailing characters of `chars` (a scan from the end). */
export function trimEndChars(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && (chars.includes(text[end - 1]) || isSpace(text.charCodeAt(end - 1)))) end--;
  return text.slice(0, end);
}

/** Shortens to `max` characters at a word boundary, marking the cut with an ellipsis. */
export function clip(text: string, max: number): string {
  const t = squash(text.length > max * 4 + 64 ? text.slice(0, max * 4 + 64) : text);
  if (t.length <= max) return t;
  let cut = t.slice(0, Math.max(1, max - 1));
  const code = cut.charCodeAt(cut.length - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut = cut.slice(0, -1);
  const space = cut.lastIndexOf(' ');
  return `${trimEndChars(space > max * 0.6 ? cut.slice(0, space) : cut, ',;:.-')}…`;
}

export { firstLine } from '../../text/lines';

/** Text with fenced code blocks (``` lines) removed: prose only. */
export function withoutCode(text: string): string {
  const out: string[] = [];
  let inFence = false;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    if (line.trimStart().startsWith('```')) inFence = !inFence;
    else if (!inFence) out.push(line);
    start = end + 1;
  }
  return out.join('\n');
}

function stripListMarker(line: string): string {
  let i = 0;
  while (
    i < line.length &&
    (line[i] === '-' || line[i] === '*' || line[i] === '+' || line[i] === '•' || line[i] === '>' || isSpace(line.charCodeAt(i)))
  )
    i++;
  let j = i;
  while (j < line.length && j - i < 4 && line.charCodeAt(j) >= 48 && line.charCodeAt(j) <= 57) j++;
  if (j > i && (line[j] === '.' || line[j] === ')') && isSpace(line.charCodeAt(j + 1))) i = j + 2;
  return line.slice(i);
}

/** Words whose final dot ends no sentence ("Fastener Co. supplies aisle B"). */
const ABBREVIATIONS = new Set([
  'co.',
  'inc.',
  'ltd.',
  'corp.',
  'e.g.',
  'i.e.',
  'etc.',
  'vs.',
  'mr.',
  'mrs.',
  'ms.',
  'dr.',
  'st.',
  'no.',
  'approx.',
]);

/** Whether the dot at `dot` ends an abbreviation or an initial ("H."), looked at over at most 8 characters back. */
function isAbbreviation(line: string, dot: number): boolean {
  let start = dot;
  while (start > 0 && dot - start < 8 && !isSpace(line.charCodeAt(start - 1))) start--;
  const word = line.slice(start, dot + 1).replace(/^[("'`[]+/, '');
  return ABBREVIATIONS.has(word.toLowerCase()) || /^[A-Z]\.$/.test(word);
}

/**
 * Sentences of a prose text: split on line breaks and after `.`, `!`, `?`
 * followed by whitespace; code fences and list markers dropped.
 */
export function sentences(text: string, limit = 200): string[] {
  const out: string[] = [];
  const prose = withoutCode(text.length > 200_000 ? text.slice(0, 200_000) : text);
  for (const rawLine of prose.split('\n')) {
    const line = stripListMarker(rawLine);
    let start = 0;
    for (let i = 0; i < line.length && out.length < limit; i++) {
      const c = line[i];
      if (
        (c === '.' || c === '!' || c === '?') &&
        (i + 1 === line.length || isSpace(line.charCodeAt(i + 1))) &&
        !(c === '.' && isAbbreviation(line, i))
      ) {
        const s = squash(line.slice(start, i + 1));
        if (s.length >= 3) out.push(s);
        start = i + 1;
      }
    }
    const rest = squash(line.slice(start));
    if (rest.length >= 3 && out.length < limit) out.push(rest);
    if (out.length >= limit) break;
  }
  return out;
}

/** A question rather than an instruction. */
export function isQuestion(sentence: string): boolean {
  const s = sentence.trim();
  if (s.endsWith('?')) return true;
  return /^(?:what|why|how|which|who|where|when|is|are|does|do|did|can|could|would|will|should)\b[^.!]*$/i.test(s) && !s.endsWith('.');
}

/** Wraps a value in backticks (backticks inside replaced, so the span cannot break). */
export function code(text: string): string {
  let t = '';
  for (const ch of text) t += ch === '`' ? "'" : ch;
  return `\`${t}\``;
}

export function unique<T>(items: readonly T[], key: (t: T) => string = (t) => String(t)): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const item of items) {
    const k = key(item);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(item);
  }
  return out;
}

/** The last `n` items (the newest matter most). */
export function latest<T>(items: readonly T[], n: number): T[] {
  return n <= 0 ? [] : items.slice(Math.max(0, items.length - n));
}

/** The backticked values of a text (up to 80 characters each). */
export function backticked(text: string): string[] {
  const out: string[] = [];
  let open = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') open = -1;
    else if (c === '`') {
      if (open >= 0 && i - open - 1 >= 1 && i - open - 1 <= 80) {
        const v = text.slice(open + 1, i).trim();
        if (v) out.push(v);
        open = -1;
      } else open = i;
    }
  }
  return out;
}
