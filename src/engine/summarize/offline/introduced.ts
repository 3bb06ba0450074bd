import { clip } from './text';
import { detachedText } from '../../text/detachedText';

/**
 * The identifiers a change introduces, read from a write's content or an
 * edit's new text: error message strings (`throw new RangeError("…")`), test
 * names (`test("…")`, `it("…")`, `describe("…")`), versions in a changelog or
 * manifest heading. A continuation needs them verbatim (the next test or grep
 * names them). What the old text already held is not introduced. Bounded:
 * the first texts of a change are read, a few values kept, each short.
 */

/** Longest new text read for identifiers. */
const READ_CHARS = 20_000;
/** At most this many identifiers per change. */
const PER_CHANGE = 6;
const VALUE_CHARS = 100;

/** `throw new XError("message")`, `new Error('message')`. */
const ERROR_STRING = /\bnew ([A-Z][A-Za-z]{0,40}Error)\(\s*(["'`])([^"'`\n]{1,160})\2/g;
/** `test("name"`, `it('name'`, `describe("name"`. */
const TEST_NAME = /\b(test|it|describe)\(\s*(["'`])([^"'`\n]{1,120})\2/g;
/** A version heading or field as written: `## 0.2.0`, `"version": "1.4.0"`. */
const VERSION = /^#{1,4} \[?v?\d{1,4}\.\d{1,4}\.\d{1,4}[\w.-]{0,20}\]?|"version"\s*:\s*"\d{1,4}\.\d{1,4}\.\d{1,4}[\w.-]{0,20}"/gm;

function valuesIn(text: string): string[] {
  const t = text.length > READ_CHARS ? text.slice(0, READ_CHARS) : text;
  const out: string[] = [];
  for (const m of t.matchAll(ERROR_STRING)) out.push(`${m[1]}("${m[3]}")`);
  for (const m of t.matchAll(TEST_NAME)) out.push(`${m[1]}("${m[3]}")`);
  for (const m of t.matchAll(VERSION)) out.push(m[0]);
  return out;
}

/** A one-line replacement as `"old" → "new"` (a TODO answered, a message reworded), or null. */
export function smallReplacement(oldText: string, newText: string): string | null {
  const o = oldText.trim();
  const n = newText.trim();
  if (!o || !n || o.includes('\n') || n.includes('\n') || o.length > 100 || n.length > 140) return null;
  return detachedText(`"${o}" → "${n}"`);
}

/** The identifiers `newText` introduces that `oldText` did not hold. */
export function introducedBy(newText: string, oldText = ''): string[] {
  if (!newText) return [];
  const before = new Set(valuesIn(oldText));
  const out: string[] = [];
  for (const v of valuesIn(newText)) {
    if (before.has(v) || out.includes(v)) continue;
    out.push(detachedText(clip(v, VALUE_CHARS)));
    if (out.length >= PER_CHANGE) break;
  }
  return out;
}

/** An edit call's `{oldText, newText}` pairs (Pi's `edits` list, or one pair in the arguments). */
export function editPairs(args: Record<string, unknown>): unknown[] {
  return Array.isArray(args.edits) ? args.edits.slice(0, 50) : [args];
}

/** The texts an edit call's arguments add and remove (Pi's `edits: [{oldText, newText}]`, or one `oldText`/`newText` pair). */
export function editTexts(args: Record<string, unknown> | undefined): { oldText: string; newText: string } {
  if (!args || typeof args !== 'object') return { oldText: '', newText: '' };
  const pairs = editPairs(args);
  let oldText = '';
  let newText = '';
  for (const p of pairs) {
    if (!p || typeof p !== 'object') continue;
    const o = (p as Record<string, unknown>).oldText ?? (p as Record<string, unknown>).old_string;
    const n = (p as Record<string, unknown>).newText ?? (p as Record<string, unknown>).new_string;
    if (typeof o === 'string' && oldText.length < READ_CHARS) oldText += `${o.slice(0, READ_CHARS)}\n`;
    if (typeof n === 'string' && newText.length < READ_CHARS) newText += `${n.slice(0, READ_CHARS)}\n`;
  }
  return { oldText, newText };
}
