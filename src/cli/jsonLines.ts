/**
 * The lines of `JSON.stringify(value, null, 2)`, made a value at a time: the
 * top levels (the command's result object and the lists in it) are walked
 * here, each deeper value is one JSON.stringify. A 1 GB compaction's
 * `summarizedEntryIds` (5e5 ids) is then never one string in memory, and the
 * CLI writes the lines a chunk at a time (output.ts printJson).
 *
 * Same text as JSON.stringify, byte for byte (a property test checks it):
 * toJSON is called once, with its key; properties whose value is undefined, a
 * function or a symbol are left out, and in a list they are null; boxed
 * primitives and everything below the walked levels are serialized by
 * JSON.stringify itself. Unlike JSON.stringify, a value is read as it is
 * written (a getter runs then, and an error such as a BigInt's comes after
 * the lines before it): the commands print plain data made for the output.
 */
import { types } from 'node:util';

/** Levels walked here; below them a value is stringified whole (a hostile entry nested 1e5 deep stays JSON.stringify's). */
const WALKED_LEVELS = 2;

const INDENT = '  ';

/**
 * A list whose items are made as they are written (5e5 entry ids are not held
 * as 5e5 strings). JSON.stringify sees the array its toJSON makes.
 */
export class LazyJsonList<T> {
  constructor(
    readonly length: number,
    readonly at: (i: number) => T,
  ) {}

  toJSON(): T[] {
    return Array.from({ length: this.length }, (_, i) => this.at(i));
  }
}

/** A list as its length and items (an array or a lazy list), else undefined. */
function listOf(v: unknown): { length: number; at: (i: number) => unknown } | undefined {
  if (v instanceof LazyJsonList) return v as LazyJsonList<unknown>;
  if (Array.isArray(v)) return { length: v.length, at: (i) => (v as unknown[])[i] };
  return undefined;
}

/** An object JSON.stringify writes as its fields (not a list, not a boxed primitive). */
function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !types.isBoxedPrimitive(v);
}

/** Whether JSON.stringify would call `v.toJSON`. */
function hasToJSON(v: unknown): v is { toJSON: (key: string) => unknown } {
  return v !== null && (typeof v === 'object' || typeof v === 'bigint') && typeof (v as { toJSON?: unknown }).toJSON === 'function';
}

/** The lines of `value` written as property `key` by JSON.stringify (its own toJSON and rules), or undefined when left out. */
function memberText(key: string, value: unknown, resolved: boolean): string[] | undefined {
  // As the only member of an object: JSON.stringify applies toJSON with the key (unless `resolved`: the value is
  // toJSON's result, which JSON.stringify does not convert again, so it is handed over by a replacer).
  const slot = {};
  const text = resolved
    ? JSON.stringify({ [key]: slot }, (_, v: unknown) => (v === slot ? value : v), 2)
    : JSON.stringify({ [key]: value }, null, 2);
  if (text === '{}') return undefined;
  const prefix = `${INDENT}${JSON.stringify(key)}: `;
  // `{`, the member (its first line after the prefix, the rest indented one level), `}`.
  return text
    .split('\n')
    .slice(1, -1)
    .map((line, k) => (k === 0 ? line.slice(prefix.length) : line.slice(INDENT.length)));
}

/** How a value is written: its lines, walked here (a list or an object), or left out. */
type Written = { lines: string[] } | { node: object } | undefined;

/** How the value of `key` is written at `level` (toJSON applied once, with the key). */
function written(key: string, raw: unknown, level: number): Written {
  // A string, number, boolean or null (5e5 entry ids): its text, no holder needed.
  if (raw === null || typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean')
    return { lines: [JSON.stringify(raw)] };
  if (level >= WALKED_LEVELS) {
    const lines = memberText(key, raw, false);
    return lines && { lines };
  }
  if (raw instanceof LazyJsonList) return { node: raw };
  const resolved = hasToJSON(raw);
  const value = resolved ? raw.toJSON(key) : raw;
  if (listOf(value) || isRecord(value)) return { node: value as object };
  const lines = memberText(key, value, resolved);
  return lines && { lines };
}

/**
 * Yields the lines of a value as `written` says, the first line starting
 * with `head`, the last one ending with `tail`, the lines inside indented by
 * `pad` (a value left out is a list's `null`).
 */
function* valueLines(w: Written, at: { head: string; tail: string; pad: string; level: number }, open: Set<object>): Generator<string> {
  const { head, tail, pad, level } = at;
  if (w === undefined) {
    yield `${head}null${tail}`;
    return;
  }
  if ('lines' in w) {
    const last = w.lines.length - 1;
    for (let k = 0; k <= last; k++) yield (k === 0 ? head : pad) + w.lines[k] + (k === last ? tail : '');
    return;
  }
  const { node } = w;
  // JSON.stringify's own error for a cycle (the same TypeError kind).
  if (open.has(node)) throw new TypeError('Converting circular structure to JSON');
  open.add(node);
  const inner = pad + INDENT;
  const list = listOf(node);
  if (list) {
    if (list.length === 0) yield `${head}[]${tail}`;
    else {
      yield `${head}[`;
      for (let i = 0; i < list.length; i++) {
        const item = { head: inner, tail: i < list.length - 1 ? ',' : '', pad: inner, level: level + 1 };
        yield* valueLines(written(String(i), list.at(i), level + 1), item, open);
      }
      yield `${pad}]${tail}`;
    }
  } else {
    // Which fields are written is known before the first (a field left out moves the last comma).
    const record = node as Record<string, unknown>;
    const fields: [string, NonNullable<Written>][] = [];
    for (const k of Object.keys(record)) {
      const w = written(k, record[k], level + 1);
      if (w) fields.push([k, w]);
    }
    if (fields.length === 0) yield `${head}{}${tail}`;
    else {
      yield `${head}{`;
      for (let f = 0; f < fields.length; f++) {
        const [k, w] = fields[f];
        const field = { head: `${inner}${JSON.stringify(k)}: `, tail: f < fields.length - 1 ? ',' : '', pad: inner, level: level + 1 };
        yield* valueLines(w, field, open);
      }
      yield `${pad}}${tail}`;
    }
  }
  open.delete(node);
}

/** The lines of JSON.stringify(value, null, 2) (`null` where JSON.stringify gives no text). */
export function jsonLines(value: unknown): Generator<string> {
  return valueLines(written('', value, 0), { head: '', tail: '', pad: '', level: 0 }, new Set());
}
