import { normalizeText } from '../../text/normalize';
import { backticked } from './text';

/**
 * What the offline summarizer does with custom instructions (it cannot
 * follow free text): the words of the focus rank the items that mention
 * them first wherever a section must be cut to fit the size bound, and
 * "keep (exact) paths / commands / errors" adds those lists whole (within
 * the bound). Linear in the instructions.
 */

export interface Focus {
  /** Normalized focus words (4+ letters, not instruction vocabulary) and backticked values. */
  terms: string[];
  keepPaths: boolean;
  keepCommands: boolean;
  keepErrors: boolean;
}

const INSTRUCTION_WORDS = new Set(
  (
    'focus keep exact exactly please summary summarize summarise especially mostly mainly make sure that this those these ' +
    ('with what about from into only also just more less them their there here very short brief briefly detail details ' +
      ('detailed important everything anything something include including mention list lists file files path paths ' +
        'command commands error errors message messages change changes changed names name verbatim word words'))
  ).split(' '),
);

export const NO_FOCUS: Focus = { terms: [], keepPaths: false, keepCommands: false, keepErrors: false };

export function focusOf(instructions: string | undefined): Focus {
  if (!instructions?.trim()) return NO_FOCUS;
  const text = instructions.length > 4000 ? instructions.slice(0, 4000) : instructions;
  const norm = normalizeText(text);
  const terms = new Set<string>();
  for (const v of backticked(text)) terms.add(normalizeText(v));
  // Acronyms name things however short ("keep the exact SKU formats").
  for (const m of text.matchAll(/\b[A-Z][A-Z0-9]{1,5}\b/g)) if (m[0].length >= 3) terms.add(m[0].toLowerCase());
  for (const w of norm.split(/[^\p{L}\p{N}_./-]+/u)) {
    const t = w.replace(/^[./-]+|[./-]+$/g, '');
    if (t.length >= 4 && !INSTRUCTION_WORDS.has(t)) terms.add(t);
  }
  const keep = (what: RegExp) => what.test(norm);
  return {
    terms: [...terms].slice(0, 40),
    keepPaths: keep(/\b(?:keep|preserve|list|include|retain)\b[^.;]{0,40}\b(?:paths?|files?|file names?|filenames?)\b/),
    keepCommands: keep(/\b(?:keep|preserve|list|include|retain)\b[^.;]{0,40}\bcommands?\b/),
    keepErrors: keep(/\b(?:keep|preserve|list|include|retain)\b[^.;]{0,40}\b(?:errors?|error messages?|failures?)\b/),
  };
}

/** True when an item mentions a focus term (word-bounded). */
export function mentionsFocus(item: string, focus: Focus): boolean {
  if (!focus.terms.length) return false;
  const words = new Set(
    normalizeText(item)
      .split(/[^\p{L}\p{N}_./-]+/u)
      .flatMap((w) => [w, w.replace(/^[./-]+|[./-]+$/g, '')]),
  );
  const text = normalizeText(item);
  return focus.terms.some((t) =>
    t.includes(' ') ? text.includes(t) : words.has(t) || words.has(`${t}s`) || (t.endsWith('s') && words.has(t.slice(0, -1))),
  );
}

/**
 * At most `n` items: those that mention the focus first (the newest of them),
 * then the newest others, in their original order. Without focus: the newest `n`.
 */
export function pick<T>(items: readonly T[], n: number, focus: Focus, text: (t: T) => string = (t) => String(t)): T[] {
  const mentions = focus.terms.length ? (i: number) => mentionsFocus(text(items[i]), focus) : undefined;
  return pickPositions(items.length, n, mentions).map((i) => items[i]);
}

/**
 * pick's rule over positions 0..count-1 (a list made on demand picks by it
 * too: distinctItems.ts): the chosen ones in ascending order. `mentions` is
 * asked newest first, and only until `n` are found.
 */
export function pickPositions(count: number, n: number, mentions: ((i: number) => boolean) | undefined): number[] {
  if (n <= 0) return [];
  const all = (from: number) => Array.from({ length: count - from }, (_, k) => from + k);
  if (count <= n) return all(0);
  if (!mentions) return all(count - n);
  const chosen = new Uint8Array(count);
  let taken = 0;
  const take = (i: number) => {
    chosen[i] = 1;
    taken++;
  };
  for (let i = count - 1; i >= 0 && taken < n; i--) if (mentions(i)) take(i);
  for (let i = count - 1; i >= 0 && taken < n; i--) if (!chosen[i]) take(i);
  const out: number[] = [];
  for (let i = 0; i < count; i++) if (chosen[i]) out.push(i);
  return out;
}
