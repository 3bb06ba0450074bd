/**
 * Which lazily parsed entries an index keeps: the most recently used, up to
 * a count and a total of line bytes. An evicted entry is parsed again from
 * its line when asked for (a session file is append-only: its bytes do not
 * change). Keys are record indexes.
 */
export interface EntryCacheLimits {
  /** Most entries kept (default 4096). */
  maxEntries: number;
  /** Most line bytes kept, summed over the entries (default 4 MB). */
  maxBytes: number;
}

export const DEFAULT_ENTRY_CACHE_LIMITS: EntryCacheLimits = { maxEntries: 4096, maxBytes: 4 * 1024 * 1024 };

export class EntryCache {
  private readonly order = new Map<number, number>(); // index -> line bytes, least recently used first
  private bytes = 0;

  constructor(
    private readonly limits: EntryCacheLimits,
    /** Drops the parsed entry of a record that leaves the cache. */
    private readonly evict: (index: number) => void,
  ) {}

  has(index: number): boolean {
    return this.order.has(index);
  }

  /** Takes an entry out without evicting it (it stays parsed: pinned by a load, see SessionIndex.load). */
  remove(index: number): void {
    const size = this.order.get(index);
    if (size === undefined) return;
    this.order.delete(index);
    this.bytes -= size;
  }

  get size(): number {
    return this.order.size;
  }

  /** Marks an entry as just used (adding it when new), then evicts the least recently used over the limits. */
  touch(index: number, lineBytes: number): void {
    const known = this.order.get(index);
    if (known !== undefined) {
      this.order.delete(index);
      this.order.set(index, known);
      return;
    }
    this.order.set(index, lineBytes);
    this.bytes += lineBytes;
    for (const [oldest, size] of this.order) {
      if (this.order.size <= this.limits.maxEntries && this.bytes <= this.limits.maxBytes) break;
      if (oldest === index) break; // the entry just asked for stays, however large
      this.order.delete(oldest);
      this.bytes -= size;
      this.evict(oldest);
    }
  }
}
