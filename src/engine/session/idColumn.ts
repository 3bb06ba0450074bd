/**
 * A column of entry ids (or null), as an index holds them by the hundred
 * thousand (issue 20 item 5): an id of Pi's form, 8 lowercase hex digits, is
 * kept as its 32-bit number (5 bytes outside the JS heap instead of a
 * pointer and a 24-byte string in it); any other id (another agent's UUID,
 * a hand-written "root") is kept as its string. `get` gives back exactly the
 * id that was put, as a new string for a packed one: compare ids by value.
 */
const NULL = 0;
const PACKED = 1;
const TEXT = 2;

/** The number of an id of Pi's form (8 lowercase hex digits), else -1. */
export function packedId(id: string): number {
  if (id.length !== 8) return -1;
  let n = 0;
  for (let i = 0; i < 8; i++) {
    const c = id.charCodeAt(i);
    let d: number;
    if (c >= 48 && c <= 57) d = c - 48;
    else if (c >= 97 && c <= 102) d = c - 87;
    else return -1;
    n = n * 16 + d;
  }
  return n;
}

/** Each byte as two lowercase hex digits. */
const BYTE_HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** The id whose number `n` is (packedId's inverse); made on every read of a packed id, so four lookups, not eight. */
export function idOfPacked(n: number): string {
  return BYTE_HEX[n >>> 24] + BYTE_HEX[(n >>> 16) & 255] + BYTE_HEX[(n >>> 8) & 255] + BYTE_HEX[n & 255];
}

export class IdColumn {
  private count = 0;
  private numbers: Uint32Array;
  private kinds: Uint8Array;
  /** Ids not of Pi's form, by position (created when the first one comes). */
  private texts: (string | undefined)[] | undefined;

  constructor(capacity = 1024) {
    this.numbers = new Uint32Array(Math.max(8, capacity));
    this.kinds = new Uint8Array(Math.max(8, capacity));
  }

  get length(): number {
    return this.count;
  }

  push(id: string | null): void {
    if (this.count === this.numbers.length) this.grow();
    this.set(this.count++, id);
  }

  /** The id at `i` (null when null was put; undefined past the end). */
  get(i: number): string | null {
    const kind = this.kinds[i];
    if (kind === PACKED) return idOfPacked(this.numbers[i]);
    if (kind === TEXT) return this.texts![i]!;
    return null;
  }

  set(i: number, id: string | null): void {
    if (id === null) {
      this.kinds[i] = NULL;
      if (this.texts) this.texts[i] = undefined;
      return;
    }
    const n = packedId(id);
    if (n >= 0) {
      this.kinds[i] = PACKED;
      this.numbers[i] = n;
      if (this.texts) this.texts[i] = undefined;
    } else {
      this.kinds[i] = TEXT;
      (this.texts ??= [])[i] = id;
    }
  }

  /** Whether the id at `i` is `id`, whose packedId is `packed` (computed once by a caller comparing many). */
  is(i: number, id: string, packed: number): boolean {
    const kind = this.kinds[i];
    if (kind === PACKED) return packed >= 0 && this.numbers[i] === packed;
    return kind === TEXT && this.texts![i] === id;
  }

  private grow(): void {
    const numbers = new Uint32Array(this.numbers.length * 2);
    numbers.set(this.numbers);
    this.numbers = numbers;
    const kinds = new Uint8Array(this.kinds.length * 2);
    kinds.set(this.kinds);
    this.kinds = kinds;
  }
}
