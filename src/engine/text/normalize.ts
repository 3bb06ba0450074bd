/**
 * Meaning-preserving normalization for the retention check: case, whitespace,
 * quoting and markdown emphasis do not change what a text says, nor does a
 * path written relative to the session's cwd or absolute under it. One
 * forward scan per text (linear). Shared by the offline summarizer and the
 * retention check (text, not facts: each derives its own facts).
 */

const DROPPED = new Set(['`', '"', "'", '\u2018', '\u2019', '\u201c', '\u201d', '*', '_', '\u00ab', '\u00bb']);

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x2028 || c === 0x2029 || c === 0xfeff;
}

/** Lower case, quotes/backticks/emphasis removed, whitespace runs as one space, trimmed. */
export function normalizeText(text: string): string {
  // Runs of kept characters are copied as slices (no per-character concatenation).
  const parts: string[] = [];
  let start = -1;
  let pendingSpace = false;
  const flush = (end: number) => {
    if (start < 0) return;
    if (pendingSpace && parts.length) parts.push(' ');
    pendingSpace = false;
    parts.push(text.slice(start, end));
    start = -1;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (isSpace(ch.charCodeAt(0))) {
      flush(i);
      if (parts.length) pendingSpace = true;
    } else if (DROPPED.has(ch)) {
      // A dropped character joins its neighbours ("don't" -> "dont"); a space before it stays pending.
      flush(i);
    } else if (start < 0) start = i;
  }
  flush(text.length);
  return parts.join('').toLowerCase();
}

/** The session's cwd as it appears in normalized text, with a trailing slash (empty without a usable cwd). */
export function normalizedCwd(cwd: string | undefined): string {
  if (typeof cwd !== 'string') return '';
  const c = normalizeText(cwd).replace(/\/+$/, '');
  return c.length > 1 && c.startsWith('/') ? `${c}/` : '';
}

/**
 * A normalized text with paths made relative: the cwd prefix removed
 * wherever it occurs, and a `./` at the start of a word dropped.
 */
export function relativizePaths(normalized: string, cwdPrefix: string): string {
  const t = cwdPrefix ? normalized.split(cwdPrefix).join('') : normalized;
  if (!t.includes('./')) return t;
  let out = '';
  let from = 0;
  for (let i = t.indexOf('./'); i >= 0; i = t.indexOf('./', i + 1)) {
    const before = i === 0 ? ' ' : t[i - 1];
    if (before === ' ' || before === '(' || before === '[' || before === ',' || before === ':' || before === '=') {
      out += t.slice(from, i);
      from = i + 2;
    }
  }
  return out + t.slice(from);
}

/** What a summary is searched for: the fact's normalized text, cut to `max` characters at a word end, without end punctuation. */
export function probeOf(normalized: string, max = 60): string {
  let t = normalized;
  if (t.length > max) {
    const cut = t.slice(0, max);
    const space = cut.lastIndexOf(' ');
    t = space > max * 0.5 ? cut.slice(0, space) : cut;
  }
  let end = t.length;
  while (end > 0 && '.,;:!?…)'.includes(t[end - 1])) end--;
  let start = 0;
  while (start < end && '(-'.includes(t[start])) start++;
  return t.slice(start, end).trim();
}
