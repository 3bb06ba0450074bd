// Over 400 lines: the index is one data structure whose arrays every method shares; repairs are in treeRepair.ts, line
// reading in lineBlocks.ts and lineReader.ts.
import { isPlaceholderEntry, parseEntryLine } from './parseLine';
import { decideFileOpHintInMemory, resolveFileOpHints } from './fileOpHints';
import { readLinesOnDisk } from './lineBlocks';
import type { LineReadOptions } from './lineFile';
import { EntryNotLoadedError } from './entryNotLoaded';
import { StaleSessionError } from './writeErrors';
import { DEFAULT_ENTRY_CACHE_LIMITS, EntryCache, type EntryCacheLimits } from './entryCache';
import type { Diagnostic } from './diagnostics';
import { MAX_PARSED_ENTRY_BYTES } from './entryLimits';
import type { EntryRecord } from './entryRecord';
import { ChildTable } from './childTable';
import { IdTable } from './idTable';
import { RecordTable } from './recordTable';
import type { TokenCounts } from './tokenCounts';
import { breakCycles, reportDuplicates } from './treeRepair';
import type { SessionEntry, SessionHeader } from './types';
import { isEntryOfType, type EntryOfType } from './entryKinds';
import type { AgentKind } from './agents/agentKind';

/** What SessionIndex.load returns: the loaded entries stay in memory until it is released. */
export interface EntryLease {
  /** Unpins the entries: they join the bounded cache (or, loaded with keep: false, are dropped). A second call does nothing. */
  release(): void;
}

export interface LoadEntriesOptions extends LineReadOptions {
  /**
   * false: at release, entries this load read are dropped instead of joining
   * the bounded cache (a pass over every entry, like `arbor tree`, saves the
   * cache's upkeep and keeps memory to one batch).
   */
  keep?: boolean;
  /**
   * true: a line whose bytes are gone (the file shrank) or that holds another
   * entry than the one indexed there (the file was rewritten) throws
   * StaleSessionError naming the file and line, instead of giving the entry's
   * placeholder (a walk over a span must not summarize a file that changed under it).
   */
  strict?: boolean;
}

interface Pin {
  count: number;
  /** Parsed on demand (by a load, or held in the cache when pinned): released into the cache, or dropped. */
  lazy: boolean;
  keep: boolean;
}

export interface SessionIndexInit {
  file: string;
  header: SessionHeader;
  /** Version as written in the header (1 when absent). */
  version: number;
  /** The records in file order (a streamed load fills a table as it reads). */
  records: EntryRecord[] | RecordTable;
  diagnostics: Diagnostic[];
  /** Bytes read up to the end of the last complete line. A cut-off last line lies past it. */
  committedSize: number;
  /** Lines up to committedSize (the next line read has number lineCount + 1). */
  lineCount: number;
  /** Byte length of the file that was read. */
  size: number;
  /** Whether the last byte read is a line break (an append must add one first if not). */
  endsWithNewline: boolean;
  /** Only the end of the file was read (see tailPreview.ts): entries whose parent lies before it are roots. */
  partial?: boolean;
  /** How many entries parsed on demand stay parsed (see entryCache.ts). */
  entryCache?: EntryCacheLimits;
  /** Which agent wrote the file (default 'pi'); another agent's session is read-only (engine/session/agents/). */
  agent?: AgentKind;
  /** The leaf when it is not the last entry in file order (another agent's session: its newest main-chain message). */
  leaf?: number;
}

/** Undecided file-operation hints decided per read pass (decideFileOpHints). */
const HINT_BATCH = 4096;

/**
 * The tree of one session file: entries in file order, lookups by id, parents,
 * children, paths, labels and branch points. Indexes are integers into the
 * file order; ids are what users and other tools see.
 */
export class SessionIndex {
  readonly file: string;
  readonly header: SessionHeader;
  readonly version: number;
  readonly diagnostics: Diagnostic[];
  committedSize: number;
  lineCount: number;
  size: number;
  endsWithNewline: boolean;
  /** Only the end of the file was read (a preview while the whole file is indexed). Never write with it. */
  readonly partial: boolean;
  /** Which agent wrote the file: only Pi's sessions are ever written (engine/session/agents/readOnly.ts). */
  readonly agent: AgentKind;
  private readonly leafOverride: number | undefined;
  /**
   * performance.now() when the current incomplete last line was first seen
   * as it is (it did not change since); undefined without one. How long a
   * torn line has stayed unchanged tells a dead writer from a live one.
   */
  incompleteSince: number | undefined;
  private readonly records: RecordTable;
  private readonly byId = new IdTable();
  private parents: Int32Array;
  private childTable: ChildTable | undefined;
  private labelMap: Map<string, string> | undefined;
  /** Entries parsed on demand, bounded: the least recently used are dropped and parsed (or loaded) again when needed. */
  private readonly parsed: EntryCache;
  /** Entries held by unreleased loads (see load): never evicted nor forgotten while pinned. Made anew when it empties (see unpin). */
  private pins = new Map<number, Pin>();
  /** Tokens of each counted entry's own messages, by estimator name, then entry index (context/entryTokens.ts). */
  readonly tokenCounts = new Map<string, TokenCounts>();

  constructor(init: SessionIndexInit) {
    this.file = init.file;
    this.header = init.header;
    this.version = init.version;
    this.records = init.records instanceof RecordTable ? init.records : RecordTable.of(init.records);
    this.diagnostics = init.diagnostics;
    this.committedSize = init.committedSize;
    this.lineCount = init.lineCount;
    this.size = init.size;
    this.endsWithNewline = init.endsWithNewline;
    this.partial = init.partial ?? false;
    this.agent = init.agent ?? 'pi';
    this.leafOverride = init.leaf;
    this.incompleteSince = this.hasIncompleteLine ? performance.now() : undefined;
    this.parents = new Int32Array(0);
    this.parsed = new EntryCache(init.entryCache ?? DEFAULT_ENTRY_CACHE_LIMITS, (i) => this.records.setEntry(i, undefined));
    this.indexRecords(0);
  }

  /** Bytes after the last line break that are not a complete entry (a writer mid-line, or one that died in it). */
  get hasIncompleteLine(): boolean {
    return this.committedSize < this.size;
  }

  get entryCount(): number {
    return this.records.length;
  }

  /** Index of the leaf (the last entry in the file), or -1 for a header-only session. */
  get leafIndex(): number {
    return this.leafOverride ?? this.records.length - 1;
  }

  get leafId(): string | null {
    const leaf = this.leafIndex;
    return leaf >= 0 ? this.records.id(leaf) : null;
  }

  /** The record of an entry (a view of the index's columns: its `entry` and `mayHoldFileOps` write through). */
  record(index: number): EntryRecord {
    return this.records.view(index);
  }

  indexOf(id: string): number {
    return this.byId.get(id) ?? -1;
  }

  /**
   * The entry whose line starts at byte `offset` of the file (and has id
   * `id`), or -1. Records are in file order, so their offsets increase.
   */
  indexAtOffset(offset: number, id: string): number {
    let lo = 0;
    let hi = this.records.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const start = this.records.start(mid);
      if (start === offset) return this.records.id(mid) === id ? mid : -1;
      if (start < offset) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** Ids in use, for generating new unique ids. */
  hasId = (id: string): boolean => this.byId.has(id);

  /**
   * The parsed entry at `index`, from memory only: an entry the loader did
   * not parse is parsed from its bytes when they are in memory (a small file,
   * read whole) and kept in a bounded cache. An entry whose line is on disk (a
   * streamed session's message, or one evicted since) must have been loaded
   * (see load): asking for it otherwise throws EntryNotLoadedError, a
   * programming error in the caller. Never reads the file.
   */
  entry(index: number): SessionEntry {
    const t = this.records;
    let e = t.entry(index);
    if (e === undefined) {
      e = this.parseRecord(index);
      t.setEntry(index, e);
      this.keepParsed(index);
    } else if (this.parsed.has(index)) {
      this.parsed.touch(index, t.end(index) - t.start(index));
    }
    return e;
  }

  /**
   * The entry at `index` for one use: a parsed entry is returned as it is,
   * any other is parsed and not kept. A pass over a whole span reads this
   * way: entries held in a cache while the pass moves on outlive V8's young
   * generation and are promoted, and a 1 GB pass then grows the old heap by
   * gigabytes of garbage (measured: 0.9 GB peak RSS instead of 0.3 GB).
   */
  transientEntry(index: number): SessionEntry {
    const t = this.records;
    if (t.entry(index) !== undefined) return this.entry(index);
    const entry = this.parseRecord(index);
    // What may not leave memory stays (a placeholder: its problem is reported once).
    if (!this.mayDrop(index, entry)) t.setEntry(index, entry);
    return entry;
  }

  private parseRecord(index: number): SessionEntry {
    const t = this.records;
    const start = t.start(index);
    const end = t.end(index);
    // A line too long to parse is never read (parseEntryLine gives its placeholder); a line on disk must have been loaded.
    if (!t.chunk(index) && end - start <= MAX_PARSED_ENTRY_BYTES) throw new EntryNotLoadedError(this.file, t.line(index), t.id(index));
    return parseEntryLine(t.view(index), this.file, this.version, this.diagnostics);
  }

  /** Whether entry(index) answers without a load (the entry is parsed, or its bytes are in memory). */
  isLoaded(index: number): boolean {
    const t = this.records;
    return t.entry(index) !== undefined || t.chunk(index) !== null || t.end(index) - t.start(index) > MAX_PARSED_ENTRY_BYTES;
  }

  /** Puts an entry parsed on demand in the bounded cache (a line that did not parse keeps its placeholder: it was reported once). */
  private keepParsed(index: number): void {
    if (!this.mayDrop(index)) return;
    this.parsed.touch(index, this.records.end(index) - this.records.start(index));
  }

  /**
   * Whether an entry parsed from its line may leave memory (parsed, or loaded,
   * again when needed). A version 1 file's entries were migrated in memory:
   * their lines are not them. A placeholder was reported once. Entries other
   * than messages are parsed by every load and stay: the pure functions that
   * read them (labels, compactions, summaries, edits) never need a load.
   */
  private mayDrop(index: number, entry = this.records.entry(index)!): boolean {
    const t = this.records;
    return (
      this.version >= 2 &&
      t.end(index) > t.start(index) &&
      (t.type(index) === 'message' || t.chunk(index) !== null) &&
      !isPlaceholderEntry(entry)
    );
  }

  /**
   * Loads entries for an operation: the lines of those on disk are read with
   * fs/promises in file order, neighbours in one read (see readLinesOnDisk),
   * and every entry asked for stays in memory, pinned, until the returned
   * lease is released. The layer that does I/O (a CLI command, a VS Code
   * adapter, an operation's run step) calls it before the pure functions
   * that read the entries; it releases the lease when the operation is done
   * (withLoaded does both).
   */
  async load(indexes: Iterable<number>, options: LoadEntriesOptions = {}): Promise<EntryLease> {
    const keep = options.keep ?? true;
    const pinned: number[] = [];
    const onDisk: EntryRecord[] = [];
    const t = this.records;
    const queued = new Set<number>();
    // Pinned first, so nothing this operation needs is evicted while the reads are in flight.
    for (const i of indexes) {
      if (!Number.isInteger(i) || i < 0 || i >= t.length)
        throw new RangeError(`entry index ${i} is not in ${this.file} (${t.length} entries)`);
      this.pin(i, keep);
      pinned.push(i);
      if (t.entry(i) !== undefined || queued.has(i)) continue;
      queued.add(i);
      if (t.chunk(i) || t.end(i) - t.start(i) > MAX_PARSED_ENTRY_BYTES)
        t.setEntry(i, parseEntryLine(t.view(i), this.file, this.version, this.diagnostics));
      else onDisk.push(t.view(i));
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      for (const i of pinned) this.unpin(i);
    };
    try {
      await readLinesOnDisk(
        this.file,
        onDisk,
        (rec, block, start, end) => {
          // A concurrent load may have read it meanwhile (a bad line is reported once).
          if (rec.entry !== undefined) return;
          const entry = parseEntryLine(rec, this.file, this.version, this.diagnostics, block.toString('utf8', start, end));
          if (options.strict && !isPlaceholderEntry(entry) && String(entry.id) !== rec.id)
            throw this.changedUnder(rec, 'holds another entry now');
          rec.entry = entry;
        },
        // Bytes gone (the file shrank): the placeholder, reported as unreadable.
        (rec) => {
          if (options.strict && rec.entry === undefined) throw this.changedUnder(rec, 'is gone (the file shrank)');
          rec.entry ??= parseEntryLine(rec, this.file, this.version, this.diagnostics);
        },
        options,
      );
    } catch (err) {
      release();
      throw err;
    }
    return { release };
  }

  private changedUnder(rec: EntryRecord, what: string): StaleSessionError {
    return new StaleSessionError(
      `${this.file} changed while it was being read: line ${rec.line} (entry "${rec.id}") ${what}; reload the session and try again`,
    );
  }

  /** Loads `indexes` (see load), runs `use`, and releases them, whatever `use` does. */
  async withLoaded<T>(indexes: Iterable<number>, use: () => T | Promise<T>, options: LoadEntriesOptions = {}): Promise<T> {
    const lease = await this.load(indexes, options);
    try {
      return await use();
    } finally {
      lease.release();
    }
  }

  private pin(index: number, keep: boolean): void {
    const pin = this.pins.get(index);
    if (pin) {
      pin.count++;
      pin.keep ||= keep;
      return;
    }
    const lazy = this.records.entry(index) === undefined || this.parsed.has(index);
    this.parsed.remove(index);
    this.pins.set(index, { count: 1, lazy, keep });
  }

  private unpin(index: number): void {
    const pin = this.pins.get(index)!;
    if (--pin.count > 0) return;
    this.pins.delete(index);
    // A Map whose table is in V8's old generation is rehashed there: a walk's set and delete per entry would leave
    // dead tables for the full collection; a new Map starts young.
    if (this.pins.size === 0) this.pins = new Map();
    const t = this.records;
    if (!pin.lazy || t.entry(index) === undefined || !this.mayDrop(index)) return;
    if (pin.keep) this.parsed.touch(index, t.end(index) - t.start(index));
    else t.setEntry(index, undefined);
  }

  /**
   * Drops the parsed bodies of message entries a caller is done with (a pass
   * over every entry, like `arbor tree`, keeps memory bounded): they are
   * loaded again if asked for. Pinned entries, entries with no line to read
   * back and entries of other types (see mayDrop) stay.
   */
  forgetParsed(indexes: readonly number[]): void {
    for (const i of indexes) {
      if (this.records.entry(i) === undefined || this.pins.has(i) || !this.mayDrop(i)) continue;
      this.parsed.remove(i);
      this.records.setEntry(i, undefined);
    }
  }

  /**
   * Whether the entry may hold a read/write/edit tool call (false is certain;
   * see fileOpHints.ts). An undecided hint is decided from memory when it can;
   * one that needs the line's bytes from disk must have been decided first
   * (decideFileOpHints), else EntryNotLoadedError.
   */
  mayHoldFileOps(index: number): boolean {
    const rec = this.records.view(index);
    if (!decideFileOpHintInMemory(rec)) throw new EntryNotLoadedError(this.file, rec.line, rec.id, 'the file-operation hint of entry');
    return rec.mayHoldFileOps!;
  }

  /** Decides the undecided hints of many entries at once, reading the bytes of those on disk in file order. */
  async decideFileOpHints(indexes: readonly number[], options: LineReadOptions = {}): Promise<void> {
    // Views of the undecided ones only (a path of 500,000 entries, mostly decided, would make as many objects), a
    // bounded number at a time: views held across the reads would outlive V8's young generation.
    let undecided: EntryRecord[] = [];
    for (const i of indexes) {
      if (this.records.hint(i) !== undefined) continue;
      undecided.push(this.records.view(i));
      if (undecided.length < HINT_BATCH) continue;
      await resolveFileOpHints(this.file, undecided, options);
      undecided = [];
    }
    await resolveFileOpHints(this.file, undecided, options);
  }

  /**
   * The entry at `index` when it is of `type` (known from its record without
   * parsing: a line parses to an entry of its record's type, or to a
   * placeholder of that type), else undefined.
   */
  entryOfType<T extends SessionEntry['type']>(index: number, type: T): EntryOfType<T> | undefined {
    if (type !== 'unknown' && this.records.type(index) !== type) return undefined;
    const e = this.entry(index);
    return isEntryOfType(e, type) ? e : undefined;
  }

  entryById(id: string): SessionEntry | undefined {
    const i = this.byId.get(id);
    return i === undefined ? undefined : this.entry(i);
  }

  parentIndex(index: number): number {
    return this.parents[index];
  }

  /** Indexes from the root down to `index`. Stops at a missing parent. */
  pathTo(index: number): number[] {
    // Counted first, then filled root first: a path of 5e5 entries is one array, not the copies a growing one leaves
    // (each a large object that only V8's full collection frees).
    let depth = 0;
    for (let current = index; current >= 0; current = this.parents[current]) depth++;
    const path = new Array<number>(depth);
    for (let current = index; current >= 0; current = this.parents[current]) path[--depth] = current;
    return path;
  }

  children(index: number): readonly number[] {
    return this.buildChildren().list(index);
  }

  /** How many children an entry has (no array made). */
  childCount(index: number): number {
    return this.buildChildren().count(index);
  }

  /** The k-th child of an entry in file order (k < childCount). */
  childAt(index: number, k: number): number {
    return this.buildChildren().at(index, k);
  }

  /** Entries without a parent in the file (the first entry, and orphans). */
  roots(): number[] {
    const roots: number[] = [];
    for (let i = 0; i < this.records.length; i++) if (this.parents[i] < 0) roots.push(i);
    return roots;
  }

  /** Entries with more than one child, with the children in file order. */
  branchPoints(): Map<number, readonly number[]> {
    const out = new Map<number, readonly number[]>();
    const table = this.buildChildren();
    for (let i = 0; i < this.records.length; i++) if (table.count(i) > 1) out.set(i, table.list(i));
    return out;
  }

  /** Entries nobody points to as parent. */
  leaves(): number[] {
    const table = this.buildChildren();
    const out: number[] = [];
    for (let i = 0; i < this.records.length; i++) if (table.count(i) === 0) out.push(i);
    return out;
  }

  /** Current labels by target id: the last label entry per target wins; an empty label clears it. */
  labels(): ReadonlyMap<string, string> {
    if (!this.labelMap) {
      const map = new Map<string, string>();
      for (let i = 0; i < this.records.length; i++) this.applyLabel(map, i);
      this.labelMap = map;
    }
    return this.labelMap;
  }

  labelOf(id: string): string | undefined {
    return this.labels().get(id);
  }

  /** Adds records read from bytes appended to the file after it was loaded. */
  appendRecords(
    records: EntryRecord[],
    progress: { committedSize: number; lineCount: number; size: number; endsWithNewline: boolean },
  ): void {
    const first = this.records.length;
    const grew = progress.size !== this.size;
    for (const r of records) this.records.push(r);
    this.committedSize = progress.committedSize;
    this.lineCount = progress.lineCount;
    this.size = progress.size;
    this.endsWithNewline = progress.endsWithNewline;
    if (!this.hasIncompleteLine) this.incompleteSince = undefined;
    else if (grew || this.incompleteSince === undefined) this.incompleteSince = performance.now();
    if (records.length) this.indexRecords(first);
  }

  private applyLabel(map: Map<string, string>, i: number): void {
    const e = this.records.type(i) === 'label' ? this.entryOfType(i, 'label') : undefined;
    if (!e) return;
    if (typeof e.targetId !== 'string') return;
    if (typeof e.label === 'string' && e.label.length > 0) map.set(e.targetId, e.label);
    else map.delete(e.targetId);
  }

  private indexRecords(first: number): void {
    const n = this.records.length;
    let duplicates: number[] | undefined;
    for (let i = first; i < n; i++) {
      const size = this.byId.size;
      this.byId.set(this.records.id(i), i);
      if (this.byId.size === size) (duplicates ??= []).push(i);
    }
    if (duplicates) reportDuplicates(this.records, duplicates, this.file, this.diagnostics);
    const parents = new Int32Array(n);
    parents.set(this.parents.subarray(0, Math.min(first, this.parents.length)));
    // A duplicate id may re-point children indexed earlier: recompute all when it happens.
    const unique = this.byId.size === n;
    const from = first > 0 && unique ? first : 0;
    for (let i = from; i < n; i++) {
      const pid = this.records.parentId(i);
      if (pid === null) {
        parents[i] = -1;
        continue;
      }
      // Most entries continue the one before them: with every id unique, no lookup is needed.
      const p = unique && i > 0 && this.records.id(i - 1) === pid ? i - 1 : this.byId.get(pid);
      if (p === undefined) {
        parents[i] = -1;
        if (i >= first && !this.partial) {
          this.diagnostics.push({
            file: this.file,
            line: this.records.line(i),
            message: `entry "${this.records.id(i)}" points to parent "${pid}", which is not in the file; shown as a root`,
          });
        }
      } else {
        parents[i] = p === i ? -1 : p;
      }
    }
    breakCycles(parents, from, this.records, this.file, this.diagnostics);
    this.parents = parents;
    if (this.childTable && from === first) {
      for (let i = first; i < n; i++) {
        const p = parents[i];
        if (p >= 0) this.childTable.add(p, i);
      }
    } else {
      this.childTable = undefined;
    }
    if (this.labelMap) for (let i = first; i < n; i++) this.applyLabel(this.labelMap, i);
  }

  private buildChildren(): ChildTable {
    this.childTable ??= new ChildTable(this.parents);
    return this.childTable;
  }
}
