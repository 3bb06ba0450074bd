/**
 * The lines of `JSON.stringify(value, null, 2)`, made a value at a time: the
 * top levels (the command's result object and the lists in it) are walked
 * here, each deeper value is one JSON.stringify. A 1 GB compaction's
 * `summarizedEntryIds` (5e5 ids) is then never one string in memory, and the
 * CLI writes the lines a chunk at a time (output.ts printJson).
 *
 * Same text as JSON.stringify, byte for byte (a property test checks it):
 * toJSON is called with its key, properties whose value is undefined, a
 * function or a symbol are left out, and in a list they are null.
 */

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

/** What JSON.stringify leaves out of an object (and writes as null in a list). */
const isSkipped = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol';

/** The value JSON.stringify serializes for `v` under `key` (after its toJSON); a lazy list stays one. */
function jsonValue(v: unknown, key: string): unknown {
  if (v instanceof LazyJsonList) return v;
  if (v !== null && (typeof v === 'object' || typeof v === 'bigint')) {
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return (toJSON as (k: string) => unknown).call(v, key);
  }
  return v;
}

/** A list as its length and items (an array or a lazy list), else undefined. */
function listOf(v: unknown): { length: number; at: (i: number) => unknown } | undefined {
  if (v instanceof LazyJsonList) return v as LazyJsonList<unknown>;
  if (Array.isArray(v)) return { length: v.length, at: (i) => (v as unknown[])[i] };
  return undefined;
}

/** An object walked here as its fields (boxed primitives and the like are stringified as they are). */
function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !(v instanceof Number || v instanceof String || v instanceof Boolean);
}

/**
 * Yields the lines of `value` (after toJSON), the first one starting with
 * `head`, the last one ending with `tail`, the lines inside indented by `pad`.
 */
function* valueLines(value: unknown, head: string, tail: string, pad: string, level: number, open: Set<object>): Generator<string> {
  const list = level < WALKED_LEVELS ? listOf(value) : undefined;
  if (!list && (level >= WALKED_LEVELS || !isRecord(value))) {
    const lines = ((JSON.stringify(value, null, 2) as string | undefined) ?? 'null').split('\n');
    const last = lines.length - 1;
    for (let k = 0; k <= last; k++) yield (k === 0 ? head : pad) + lines[k] + (k === last ? tail : '');
    return;
  }
  const node = value as object;
  // JSON.stringify's own error for a cycle (the same TypeError kind).
  if (open.has(node)) throw new TypeError('Converting circular structure to JSON');
  open.add(node);
  const inner = pad + INDENT;
  if (list) {
    if (list.length === 0) yield `${head}[]${tail}`;
    else {
      yield `${head}[`;
      for (let i = 0; i < list.length; i++) {
        const v = jsonValue(list.at(i), String(i));
        yield* valueLines(isSkipped(v) ? null : v, inner, i < list.length - 1 ? ',' : '', inner, level + 1, open);
      }
      yield `${pad}]${tail}`;
    }
  } else {
    const record = node as Record<string, unknown>;
    const fields: [string, unknown][] = [];
    for (const key of Object.keys(record)) {
      const v = jsonValue(record[key], key);
      if (!isSkipped(v)) fields.push([key, v]);
    }
    if (fields.length === 0) yield `${head}{}${tail}`;
    else {
      yield `${head}{`;
      for (let k = 0; k < fields.length; k++) {
        const [key, v] = fields[k];
        yield* valueLines(v, `${inner}${JSON.stringify(key)}: `, k < fields.length - 1 ? ',' : '', inner, level + 1, open);
      }
      yield `${pad}}${tail}`;
    }
  }
  open.delete(node);
}

/** The lines of JSON.stringify(value, null, 2) (`null` where JSON.stringify gives no text). */
export function jsonLines(value: unknown): Generator<string> {
  return valueLines(jsonValue(value, ''), '', '', '', 0, new Set());
}
