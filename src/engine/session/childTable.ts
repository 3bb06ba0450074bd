/**
 * The children of every entry, compact: one offsets array and one children
 * array (8 bytes an entry, where an array per entry cost about 180 bytes on a
 * 1e6-entry session), built in one pass over the parents. Entries appended
 * after the table was built keep their few children in a small map, so a
 * watched session that grows is not rebuilt on every append.
 */
const NONE: readonly number[] = Object.freeze([]);

export class ChildTable {
  /** Children of entry i are kids[first[i], first[i + 1]), in file order. */
  private readonly first: Int32Array;
  private readonly kids: Int32Array;
  /** Children added after the build (their indexes are all later than the built ones: file order holds). */
  private readonly added = new Map<number, number[]>();

  constructor(parents: Int32Array) {
    const n = parents.length;
    const first = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) if (parents[i] >= 0) first[parents[i] + 1]++;
    for (let i = 0; i < n; i++) first[i + 1] += first[i];
    const fill = first.slice(0, n);
    const kids = new Int32Array(first[n]);
    for (let i = 0; i < n; i++) {
      const p = parents[i];
      if (p >= 0) kids[fill[p]++] = i;
    }
    this.first = first;
    this.kids = kids;
  }

  /** Records that `child` (an entry appended after the build) has parent `parent`. */
  add(parent: number, child: number): void {
    const list = this.added.get(parent);
    if (list) list.push(child);
    else this.added.set(parent, [child]);
  }

  count(i: number): number {
    const built = i + 1 < this.first.length ? this.first[i + 1] - this.first[i] : 0;
    return built + (this.added.get(i)?.length ?? 0);
  }

  /** The k-th child of i in file order (k < count(i)). */
  at(i: number, k: number): number {
    const built = i + 1 < this.first.length ? this.first[i + 1] - this.first[i] : 0;
    return k < built ? this.kids[this.first[i] + k] : this.added.get(i)![k - built];
  }

  /** The children of i in file order, as a new array (a shared empty one when there are none). */
  list(i: number): readonly number[] {
    const n = this.count(i);
    if (n === 0) return NONE;
    const out = new Array<number>(n);
    for (let k = 0; k < n; k++) out[k] = this.at(i, k);
    return out;
  }
}
