import { ROLE_FIELDS as SHAPE_ROLE_FIELDS, USAGE_FIELDS as SHAPE_USAGE_FIELDS } from './entryShape';
import type { MessageEntry } from './types';

/**
 * A message line as Pi writes its plain messages, read without JSON.parse
 * (`arbor tree` reads every line of a session as it loads it; this is about a
 * third of the cost of JSON.parse and the shape checks):
 *
 *   {"type":"message","id":"…","parentId":null|"…","timestamp":"…","message":{"role":"…",…}}
 *
 * with a user, assistant or tool result message whose fields come from a
 * fixed list per role, each written once, each of the type the shape checks
 * want (entryShape.ts): strings, finite numbers, booleans, content as text or
 * as text blocks ({"type":"text","text":"…"}), an assistant's usage of
 * numbers. The entry given is the one checkEntryText gives for the line: the
 * same fields in the same order with the same values (a string with an
 * escape is read by JSON.parse itself). Any other line, or any character
 * outside that grammar (whitespace between tokens, a key written twice, a
 * number JSON does not allow, a control character), gives undefined and the
 * caller parses the line: a different answer is never possible, only a
 * slower one.
 */

type FieldKind = 'string' | 'number' | 'boolean' | 'content' | 'blocks' | 'usage';
const READ_KINDS: ReadonlySet<string> = new Set<FieldKind>(['string', 'number', 'boolean', 'content', 'blocks', 'usage']);

/** A field a message may have: its key as written (`"name":`), what it holds, whether it is required. */
interface Field {
  name: string;
  key: string;
  kind: FieldKind;
  required: boolean;
}

/** The fields of entryShape.ts's list (kind, `!` when required), or undefined when one holds a kind this reader does not read. */
function fieldList(fields: Readonly<Record<string, string>>, skip: readonly string[] = []): Field[] | undefined {
  const out: Field[] = [];
  for (const [name, spec] of Object.entries(fields)) {
    if (skip.includes(name)) continue;
    const kind = spec.replace('!', '');
    if (!READ_KINDS.has(kind)) return undefined;
    out.push({ name, key: `${JSON.stringify(name)}:`, kind: kind as FieldKind, required: spec.endsWith('!') });
  }
  return out;
}

/** The roles read, with the fields entryShape.ts lets their messages have (at most 30: a bit each). */
const ROLE_FIELDS = new Map<string, readonly Field[]>();
for (const role of ['user', 'assistant', 'toolResult']) {
  const fields = fieldList(SHAPE_ROLE_FIELDS[role]);
  if (fields && fields.length <= 30) ROLE_FIELDS.set(role, fields);
}

/** An assistant's usage: its numbers (entryShape.ts), and `cost`, an object of COST_FIELDS (as Pi writes it). */
const USAGE_FIELDS = fieldList(SHAPE_USAGE_FIELDS, ['cost']) ?? [];
const COST_FIELDS = fieldList({ input: 'number', output: 'number', cacheRead: 'number', cacheWrite: 'number', total: 'number' }) ?? [];
const COST_KEY = '"cost":';

/** The bits of a list's required fields. */
function requiredBits(fields: readonly Field[]): number {
  let bits = 0;
  fields.forEach((f, k) => {
    if (f.required) bits |= 1 << k;
  });
  return bits;
}

const REQUIRED = new Map([...ROLE_FIELDS].map(([role, fields]) => [role, requiredBits(fields)]));

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The reading position and the last value read (a small state object: no tuple per value). */
interface Reader {
  s: string;
  pos: number;
  value: unknown;
}

/** Reads `literal` at the position. */
function expect(r: Reader, literal: string): boolean {
  if (!r.s.startsWith(literal, r.pos)) return false;
  r.pos += literal.length;
  return true;
}

/** Reads the character `code` at the position. */
function expectChar(r: Reader, code: number): boolean {
  if (r.s.charCodeAt(r.pos) !== code) return false;
  r.pos++;
  return true;
}

const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** A JSON string at the position into r.value: sliced when it has no escape, else read by JSON.parse (which refuses a bad escape). */
function readString(r: Reader): boolean {
  const s = r.s;
  const start = r.pos;
  if (s.charCodeAt(start) !== QUOTE) return false;
  let end = s.indexOf('"', start + 1);
  if (end < 0) return false;
  let escaped = false;
  for (let i = start + 1; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20) return false; // JSON.parse refuses a raw control character
    if (c === BACKSLASH) {
      escaped = true;
      i++;
      // The quote found may be escaped: the string ends at the next one.
      if (i === end) {
        end = s.indexOf('"', end + 1);
        if (end < 0) return false;
      }
    }
  }
  r.pos = end + 1;
  if (!escaped) {
    r.value = s.slice(start + 1, end);
    return true;
  }
  try {
    r.value = JSON.parse(s.slice(start, end + 1));
    return true;
  } catch {
    return false;
  }
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** A finite JSON number at the position into r.value (an infinite one: the shape checks refuse it, so the caller parses the line). */
function readNumber(r: Reader): boolean {
  const s = r.s;
  let i = r.pos;
  if (s.charCodeAt(i) === 0x2d) i++;
  if (s.charCodeAt(i) === 0x30) i++;
  else if (isDigit(s.charCodeAt(i))) while (isDigit(s.charCodeAt(i))) i++;
  else return false;
  let fraction = false;
  if (s.charCodeAt(i) === 0x2e) {
    fraction = true;
    i++;
    if (!isDigit(s.charCodeAt(i))) return false;
    while (isDigit(s.charCodeAt(i))) i++;
  }
  const e = s.charCodeAt(i);
  if (e === 0x65 || e === 0x45) {
    fraction = true;
    i++;
    const sign = s.charCodeAt(i);
    if (sign === 0x2b || sign === 0x2d) i++;
    if (!isDigit(s.charCodeAt(i))) return false;
    while (isDigit(s.charCodeAt(i))) i++;
  }
  // An integer of up to 15 digits is exact as read digit by digit; anything else is read by Number (as JSON.parse reads it).
  let n: number;
  if (i - r.pos <= 15 && !fraction) {
    n = 0;
    for (let k = s.charCodeAt(r.pos) === 0x2d ? r.pos + 1 : r.pos; k < i; k++) n = n * 10 + (s.charCodeAt(k) - 0x30);
    if (s.charCodeAt(r.pos) === 0x2d) n = -n;
  } else n = Number(s.slice(r.pos, i));
  if (!Number.isFinite(n)) return false;
  r.value = n;
  r.pos = i;
  return true;
}

function readBoolean(r: Reader): boolean {
  if (expect(r, 'true')) r.value = true;
  else if (expect(r, 'false')) r.value = false;
  else return false;
  return true;
}

/** `[]` or `[{"type":"text","text":"…"},…]`. */
function readTextBlocks(r: Reader): boolean {
  if (!expectChar(r, OPEN_BRACKET)) return false;
  const blocks: { type: 'text'; text: string }[] = [];
  if (!expectChar(r, CLOSE_BRACKET)) {
    do {
      if (!expect(r, '{"type":"text","text":') || !readString(r) || !expectChar(r, CLOSE_BRACE)) return false;
      blocks.push({ type: 'text', text: r.value as string });
    } while (expectChar(r, COMMA));
    if (!expectChar(r, CLOSE_BRACKET)) return false;
  }
  r.value = blocks;
  return true;
}

/** The field of `fields` whose key is written at the position (its index), or -1. */
function fieldAt(r: Reader, fields: readonly Field[]): number {
  for (let k = 0; k < fields.length; k++) {
    if (r.s.startsWith(fields[k].key, r.pos)) {
      r.pos += fields[k].key.length;
      return k;
    }
  }
  return -1;
}

/** An object of numbers from `fields`, each once; with `cost`, a "cost" key holds such an object of COST_FIELDS. */
function readNumbers(r: Reader, fields: readonly Field[], cost: boolean): boolean {
  if (!expectChar(r, OPEN_BRACE)) return false;
  const out: Record<string, unknown> = {};
  let seen = 0;
  if (!expectChar(r, CLOSE_BRACE)) {
    do {
      if (cost && expect(r, COST_KEY)) {
        if (seen & (1 << 30) || !readNumbers(r, COST_FIELDS, false)) return false;
        seen |= 1 << 30;
        out.cost = r.value;
        continue;
      }
      const k = fieldAt(r, fields);
      if (k < 0 || seen & (1 << k) || !readNumber(r)) return false;
      seen |= 1 << k;
      out[fields[k].name] = r.value;
    } while (expectChar(r, COMMA));
    if (!expectChar(r, CLOSE_BRACE)) return false;
  }
  r.value = out;
  return true;
}

function readField(r: Reader, kind: FieldKind): boolean {
  switch (kind) {
    case 'string':
      return readString(r);
    case 'number':
      return readNumber(r);
    case 'boolean':
      return readBoolean(r);
    case 'content':
      return r.s.charCodeAt(r.pos) === QUOTE ? readString(r) : readTextBlocks(r);
    case 'blocks':
      return readTextBlocks(r);
    case 'usage':
      return readNumbers(r, USAGE_FIELDS, true);
  }
}

/** The entry of a plain message line (see the module comment), or undefined: parse the line. `version` is the file's (2 or later). */
export function parsePlainMessageLine(line: string, version: number): MessageEntry | undefined {
  if (version < 2) return undefined;
  const r: Reader = { s: line, pos: 0, value: undefined };
  if (!expect(r, '{"type":"message","id":') || !readString(r)) return undefined;
  const id = r.value as string;
  if (!id || !expect(r, ',"parentId":')) return undefined;
  let parentId: string | null = null;
  if (!expect(r, 'null')) {
    if (!readString(r)) return undefined;
    parentId = r.value as string;
  }
  if (!expect(r, ',"timestamp":') || !readString(r)) return undefined;
  const timestamp = r.value as string;
  if (!expect(r, ',"message":{"role":') || !readString(r)) return undefined;
  const role = r.value as string;
  const fields = ROLE_FIELDS.get(role);
  if (!fields) return undefined;
  const message: Record<string, unknown> = { role };
  let seen = 0;
  while (expectChar(r, COMMA)) {
    const k = fieldAt(r, fields);
    if (k < 0 || seen & (1 << k) || !readField(r, fields[k].kind)) return undefined;
    seen |= 1 << k;
    message[fields[k].name] = r.value;
  }
  if (!expect(r, '}}') || r.pos !== line.length) return undefined;
  const required = REQUIRED.get(role)!;
  if ((seen & required) !== required) return undefined;
  return { type: 'message', id, parentId, timestamp, message } as unknown as MessageEntry;
}
