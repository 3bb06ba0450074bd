import type { EntryRecord } from './entryRecord';
import type { SessionEntry } from './types';
import { IdColumn } from './idColumn';

/**
 * The records of a session index by column (issue 20 item 5): one array per
 * field, numbers and names in typed arrays outside the JS heap, instead of
 * one object per entry line. On a 1 GB session (5e5 entries) the objects took
 * about 110 bytes each in the heap; here an entry of Pi's ids (8 hex digits,
 * packed: idColumn.ts) costs 8 bytes of heap (an empty slot for its parsed
 * entry) plus about 40 bytes of typed arrays (which V8 does not count when
 * it sizes its heap). `view(i)` is the EntryRecord of one entry, reading and
 * writing these columns.
 */
const NO_HINT = 2;

/** Where a loader puts the records it reads: an array, or the table of the index being built (a streamed load). */
export type RecordSink = EntryRecord[] | RecordTable;

/** The id of the last record put in `records`, or undefined. */
export function lastRecordId(records: RecordSink): string | undefined {
  return records instanceof RecordTable ? records.lastId() : records.length ? records[records.length - 1].id : undefined;
}

/** What the tree repairs read of the records (treeRepair.ts). */
export interface RecordColumns {
  readonly length: number;
  id(i: number): string;
  line(i: number): number;
}

export class RecordTable implements RecordColumns {
  private count = 0;
  private readonly ids = new IdColumn();
  private readonly parentIds = new IdColumn();
  /** Entries held in memory, by position (created when the first one is set). */
  private entries: (SessionEntry | undefined)[] | undefined;
  /** Line bytes held in memory (a whole-buffer load), by entry; absent for a streamed load's lines on disk. */
  private chunks: (Buffer | null)[] | undefined;
  /** Types and roles as codes into `names` (code 0: no role). */
  private types = new Int32Array(1024);
  private roles = new Int32Array(1024);
  private readonly names: (string | undefined)[] = [undefined];
  private readonly codes = new Map<string, number>();
  private lines = new Int32Array(1024);
  private starts = new Float64Array(1024);
  private ends = new Float64Array(1024);
  /** mayHoldFileOps: 0 false, 1 true, NO_HINT undecided. */
  private hints = new Uint8Array(1024);

  /** A table of `records` (in file order). */
  static of(records: readonly EntryRecord[]): RecordTable {
    const table = new RecordTable();
    for (const r of records) table.push(r);
    return table;
  }

  get length(): number {
    return this.count;
  }

  push(rec: EntryRecord): void {
    const i = this.count;
    if (i === this.types.length) this.grow();
    this.ids.push(rec.id);
    this.parentIds.push(rec.parentId);
    if (rec.entry !== undefined || this.entries) {
      this.entries ??= new Array<SessionEntry | undefined>(i).fill(undefined);
      this.entries.push(rec.entry);
    }
    if (rec.chunk !== null || this.chunks) {
      this.chunks ??= new Array<Buffer | null>(i).fill(null);
      this.chunks.push(rec.chunk);
    }
    this.types[i] = this.code(rec.type);
    this.roles[i] = rec.role === undefined ? 0 : this.code(rec.role);
    this.lines[i] = rec.line;
    this.starts[i] = rec.start;
    this.ends[i] = rec.end;
    this.hints[i] = rec.mayHoldFileOps === undefined ? NO_HINT : rec.mayHoldFileOps ? 1 : 0;
    this.count++;
  }

  /** The id of the last entry, or undefined when there is none. */
  lastId(): string | undefined {
    return this.count ? this.ids.get(this.count - 1)! : undefined;
  }

  id(i: number): string {
    return this.ids.get(i)!;
  }

  parentId(i: number): string | null {
    return this.parentIds.get(i);
  }

  setParentId(i: number, parentId: string | null): void {
    this.parentIds.set(i, parentId);
  }

  type(i: number): string {
    return this.names[this.types[i]]!;
  }

  role(i: number): string | undefined {
    return this.names[this.roles[i]];
  }

  line(i: number): number {
    return this.lines[i];
  }

  setLine(i: number, line: number): void {
    this.lines[i] = line;
  }

  chunk(i: number): Buffer | null {
    return this.chunks ? this.chunks[i] : null;
  }

  start(i: number): number {
    return this.starts[i];
  }

  end(i: number): number {
    return this.ends[i];
  }

  hint(i: number): boolean | undefined {
    const h = this.hints[i];
    return h === NO_HINT ? undefined : h === 1;
  }

  setHint(i: number, value: boolean | undefined): void {
    this.hints[i] = value === undefined ? NO_HINT : value ? 1 : 0;
  }

  entry(i: number): SessionEntry | undefined {
    return this.entries?.[i];
  }

  setEntry(i: number, entry: SessionEntry | undefined): void {
    if (entry === undefined && !this.entries) return;
    this.entries ??= new Array<SessionEntry | undefined>(this.count).fill(undefined);
    this.entries[i] = entry;
  }

  /** The record of entry `i`: its fields read and write this table. */
  view(i: number): EntryRecord {
    return new RecordView(this, i);
  }

  private code(name: string): number {
    let c = this.codes.get(name);
    if (c === undefined) {
      c = this.names.length;
      this.names.push(name);
      this.codes.set(name, c);
    }
    return c;
  }

  private grow(): void {
    const size = this.types.length * 2;
    const bigger = <T extends Int32Array | Float64Array | Uint8Array>(a: T, make: new (n: number) => T): T => {
      const b = new make(size);
      b.set(a);
      return b;
    };
    this.types = bigger(this.types, Int32Array);
    this.roles = bigger(this.roles, Int32Array);
    this.lines = bigger(this.lines, Int32Array);
    this.starts = bigger(this.starts, Float64Array);
    this.ends = bigger(this.ends, Float64Array);
    this.hints = bigger(this.hints, Uint8Array);
  }
}

/** One entry's record, over the table's columns. */
class RecordView implements EntryRecord {
  constructor(
    private readonly table: RecordTable,
    private readonly i: number,
  ) {}

  get id(): string {
    return this.table.id(this.i);
  }
  get parentId(): string | null {
    return this.table.parentId(this.i);
  }
  get type(): string {
    return this.table.type(this.i);
  }
  get role(): string | undefined {
    return this.table.role(this.i);
  }
  get line(): number {
    return this.table.line(this.i);
  }
  set line(line: number) {
    this.table.setLine(this.i, line);
  }
  get chunk(): Buffer | null {
    return this.table.chunk(this.i);
  }
  get start(): number {
    return this.table.start(this.i);
  }
  get end(): number {
    return this.table.end(this.i);
  }
  get mayHoldFileOps(): boolean | undefined {
    return this.table.hint(this.i);
  }
  set mayHoldFileOps(value: boolean | undefined) {
    this.table.setHint(this.i, value);
  }
  get entry(): SessionEntry | undefined {
    return this.table.entry(this.i);
  }
  set entry(entry: SessionEntry | undefined) {
    this.table.setEntry(this.i, entry);
  }
}
