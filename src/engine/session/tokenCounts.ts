/**
 * Token counts by entry index, for one index and estimator: a small map while
 * few entries are counted (the rows on screen, a plan's keep-recent window),
 * a dense array once many are (`arbor tree` counts a 1e6-entry session: a
 * Map of 1e6 numbers costs tens of MB, the array 8 bytes an entry).
 */
const DENSE_FROM = 4096;

export class TokenCounts {
  private sparse: Map<number, number> | undefined = new Map();
  private dense: Float64Array | undefined;
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(i: number): number | undefined {
    if (this.sparse) return this.sparse.get(i);
    const v = i < this.dense!.length ? this.dense![i] : NaN;
    return Number.isNaN(v) ? undefined : v;
  }

  has(i: number): boolean {
    return this.get(i) !== undefined;
  }

  set(i: number, tokens: number): void {
    if (this.sparse) {
      if (!this.sparse.has(i)) this.count++;
      this.sparse.set(i, tokens);
      if (this.count >= DENSE_FROM) this.toDense();
      return;
    }
    if (i >= this.dense!.length) this.grow(i + 1);
    if (Number.isNaN(this.dense![i])) this.count++;
    this.dense![i] = tokens;
  }

  *keys(): Generator<number> {
    for (const [i] of this) yield i;
  }

  *[Symbol.iterator](): Generator<[number, number]> {
    if (this.sparse) {
      yield* this.sparse;
      return;
    }
    const d = this.dense!;
    for (let i = 0; i < d.length; i++) if (!Number.isNaN(d[i])) yield [i, d[i]];
  }

  private toDense(): void {
    let max = 0;
    for (const i of this.sparse!.keys()) if (i > max) max = i;
    this.dense = new Float64Array(max + 1).fill(NaN);
    for (const [i, v] of this.sparse!) this.dense[i] = v;
    this.sparse = undefined;
  }

  private grow(min: number): void {
    const bigger = new Float64Array(Math.max(min, this.dense!.length * 2)).fill(NaN);
    bigger.set(this.dense!);
    this.dense = bigger;
  }
}
