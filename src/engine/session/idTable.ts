import { IdColumn, packedId } from './idColumn';

/**
 * Entry ids to entry indexes, as a Map<string, number> would hold them
 * (set overwrites, size counts distinct ids), in an open-addressing table of
 * typed arrays: on a 1e6-entry session a Map took about 1 s to fill (its
 * growth rehashes entry objects and chases pointers), this about a quarter
 * of that. Ids are hashed by their characters (FNV-1a from a random
 * basis) and keys compared whole; the table doubles when half full. Ids
 * made to collide (a hostile file) cannot make it slow: once a probe runs
 * past MAX_PROBE slots the table moves its ids to a Map, whose hash V8
 * seeds per process.
 */
const MAX_PROBE = 64;

export class IdTable {
  /** The ids in the order they were first set (Pi's ids packed: idColumn.ts). */
  private keys = new IdColumn(16);
  private values: Int32Array;
  private hashes: Int32Array;
  /** Slot -> 1 + the key's position in `keys`, 0 when empty. */
  private slots: Int32Array;
  private mask: number;
  private readonly basis = (Math.random() * 0x100000000) | 0;
  private readonly hash: (id: string, basis: number) => number = hashOf;
  /** Where the ids are once probes got long (see the class comment). */
  private map: Map<string, number> | undefined;

  /** `hash` replaces the ids' hash (tests make ids collide with it). */
  constructor(options: { capacity?: number; hash?: (id: string, basis: number) => number } = {}) {
    const capacity = options.capacity ?? 16;
    if (options.hash) this.hash = options.hash;
    let size = 16;
    while (size < capacity * 2) size *= 2;
    this.slots = new Int32Array(size);
    this.mask = size - 1;
    this.values = new Int32Array(Math.max(8, capacity));
    this.hashes = new Int32Array(Math.max(8, capacity));
  }

  get size(): number {
    return this.map ? this.map.size : this.keys.length;
  }

  get(id: string): number | undefined {
    if (this.map) return this.map.get(id);
    const k = this.find(id, this.hash(id, this.basis), packedId(id));
    return k < 0 ? undefined : this.values[k];
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  set(id: string, value: number): void {
    if (this.map) {
      this.map.set(id, value);
      return;
    }
    const h = this.hash(id, this.basis);
    const found = this.find(id, h, packedId(id));
    if (found >= 0) {
      this.values[found] = value;
      return;
    }
    const k = this.keys.length;
    if (k >= this.values.length) this.growArrays();
    if ((k + 1) * 2 > this.slots.length && !this.rehash(this.slots.length * 2)) {
      this.map!.set(id, value);
      return;
    }
    this.keys.push(id);
    this.values[k] = value;
    this.hashes[k] = h;
    if (!this.place(h, k)) this.toMap();
  }

  /** The key's position in `keys`, or -1 (a key is never placed more than MAX_PROBE slots past its own). */
  private find(id: string, h: number, packed: number): number {
    const { slots, mask, keys } = this;
    for (let s = h & mask, probe = 0; probe <= MAX_PROBE; s = (s + 1) & mask, probe++) {
      const at = slots[s];
      if (at === 0) return -1;
      if (this.hashes[at - 1] === h && keys.is(at - 1, id, packed)) return at - 1;
    }
    return -1;
  }

  /** Puts key k in its slot; false when the probe ran past MAX_PROBE (the ids then move to a Map). */
  private place(h: number, k: number): boolean {
    const { slots, mask } = this;
    let s = h & mask;
    for (let probe = 0; slots[s] !== 0; probe++) {
      if (probe >= MAX_PROBE) return false;
      s = (s + 1) & mask;
    }
    slots[s] = k + 1;
    return true;
  }

  /** A table of `size` slots; false when the ids moved to a Map instead. */
  private rehash(size: number): boolean {
    this.slots = new Int32Array(size);
    this.mask = size - 1;
    for (let k = 0; k < this.keys.length; k++) {
      if (!this.place(this.hashes[k], k)) {
        this.toMap();
        return false;
      }
    }
    return true;
  }

  private toMap(): void {
    const map = new Map<string, number>();
    for (let k = 0; k < this.keys.length; k++) map.set(this.keys.get(k)!, this.values[k]);
    this.map = map;
    this.keys = new IdColumn(8);
    this.slots = new Int32Array(0);
    this.values = new Int32Array(0);
    this.hashes = new Int32Array(0);
  }

  private growArrays(): void {
    const values = new Int32Array(this.values.length * 2);
    values.set(this.values);
    this.values = values;
    const hashes = new Int32Array(this.hashes.length * 2);
    hashes.set(this.hashes);
    this.hashes = hashes;
  }
}

/** FNV-1a over the UTF-16 code units, from `basis`. */
function hashOf(id: string, basis: number): number {
  let h = basis;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h | 0;
}
