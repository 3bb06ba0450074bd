import { findOccurrences } from './textSearch';
import type { TextReplacement } from './types';

/**
 * Replays one successful edit call the way Pi's edit tool applies it, with
 * exact matching only: a leading BOM is kept aside, the line ending is the
 * one of the first line break, text is compared with LF line ends (a lone
 * CR is a line end too, as in Pi: it comes out as the file's ending), every
 * oldText must occur exactly once in the original content (every occurrence
 * is replaced for a `replaceAll` one, Claude Code's `replace_all`), the matches must
 * not overlap, they are all replaced at once, and the result must differ.
 * Pi also falls back to a fuzzy match (quotes, dashes, trailing spaces); an
 * edit that only matched that way does not replay here, and the content is
 * then reported unknown instead of guessed.
 */
export type ReplayResult = { ok: true; text: string } | { ok: false; reason: string };

/** Pi's normalizeToLF: CRLF, then any lone CR, become LF (in the content, oldText and newText alike). */
const toLf = (s: string): string => s.replace(/\r\n?/g, '\n');

export function replayEdits(content: string, edits: readonly TextReplacement[]): ReplayResult {
  const bom = content.startsWith('\uFEFF') ? '\uFEFF' : '';
  const body = bom ? content.slice(1) : content;
  const firstLf = body.indexOf('\n');
  const crlf = firstLf > 0 && body.charCodeAt(firstLf - 1) === 13;
  const base = toLf(body);
  const matches: { at: number; length: number; newText: string; i: number }[] = [];
  for (let i = 0; i < edits.length; i++) {
    const oldText = toLf(edits[i].oldText);
    if (!oldText) return { ok: false, reason: `edits[${i}] has an empty oldText` };
    if (edits[i].replaceAll === true) {
      let at = base.indexOf(oldText);
      if (at < 0) return { ok: false, reason: `edits[${i}].oldText does not occur exactly in the known content` };
      for (; at >= 0; at = base.indexOf(oldText, at + oldText.length))
        matches.push({ at, length: oldText.length, newText: toLf(edits[i].newText), i });
      continue;
    }
    const found = findOccurrences(base, oldText);
    if (found.count === 0) return { ok: false, reason: `edits[${i}].oldText does not occur exactly in the known content` };
    if (found.count > 1) return { ok: false, reason: `edits[${i}].oldText occurs more than once in the known content` };
    matches.push({ at: found.first, length: oldText.length, newText: toLf(edits[i].newText), i });
  }
  matches.sort((a, b) => a.at - b.at);
  for (let k = 1; k < matches.length; k++) {
    if (matches[k - 1].at + matches[k - 1].length > matches[k].at)
      return { ok: false, reason: `edits[${matches[k - 1].i}] and edits[${matches[k].i}] overlap` };
  }
  const parts: string[] = [];
  let pos = 0;
  for (const m of matches) {
    parts.push(base.slice(pos, m.at), m.newText);
    pos = m.at + m.length;
  }
  parts.push(base.slice(pos));
  const next = parts.join('');
  if (next === base) return { ok: false, reason: 'the edit changes nothing in the known content' };
  return { ok: true, text: bom + (crlf ? next.split('\n').join('\r\n') : next) };
}

/** The replacements of an edit call's arguments: `edits: [{oldText, newText}]`, or the older single `oldText`/`newText`. */
export function editReplacements(args: Record<string, unknown>): TextReplacement[] | undefined {
  const valid = (e: unknown): e is TextReplacement =>
    !!e &&
    typeof e === 'object' &&
    typeof (e as TextReplacement).oldText === 'string' &&
    typeof (e as TextReplacement).newText === 'string';
  if (Array.isArray(args.edits))
    return args.edits.every(valid) && args.edits.length > 0
      ? args.edits.map((e) => ({ oldText: e.oldText, newText: e.newText, ...(e.replaceAll === true ? { replaceAll: true } : {}) }))
      : undefined;
  if (valid(args)) return [{ oldText: args.oldText, newText: args.newText }];
  return undefined;
}
