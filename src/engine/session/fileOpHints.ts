import type { EntryRecord } from './entryRecord';
import { readLinesOnDisk } from './lineBlocks';
import type { LineReadOptions } from './lineFile';
import { MAX_PARSED_ENTRY_BYTES } from './entryLimits';
import type { SessionEntry } from './types';

/**
 * "May this message line hold a read/write/edit tool call?" A `false` is
 * certain (the planner skips parsing the line); a `true` may be a false
 * positive (the line is parsed and looked at). Decided from the parsed entry
 * when there is one, else from the line's bytes.
 */

const TOOL_CALL = Buffer.from('"toolCall"');
const NESTED_CALLS = Buffer.from('"nestedCalls"');

function needleFor(role: string | undefined): Buffer | undefined {
  if (role === 'assistant') return TOOL_CALL;
  if (role === 'toolResult') return NESTED_CALLS;
  return undefined;
}

/** Exact, from a parsed entry: an assistant message with a toolCall block, or a tool result with nestedCalls. */
export function entryMayHoldFileOps(entry: SessionEntry): boolean {
  if (entry.type !== 'message') return false;
  const m = entry.message;
  if (!m) return false;
  if (m.role === 'toolResult') return m.nestedCalls !== undefined;
  if (m.role !== 'assistant' || !Array.isArray(m.content)) return false;
  return m.content.some((b) => !!b && typeof b === 'object' && b.type === 'toolCall');
}

/**
 * Finds a needle in the lines of one buffer, in file order, without slicing
 * each line: the next occurrence is looked up once and reused until the
 * lines pass it, so a buffer is searched at most once in all.
 */
export class NeedleCursor {
  private next = -2; // -2: not searched yet; -1: no occurrence after `searchedFrom`

  constructor(
    private readonly buf: Buffer,
    private readonly needle: Buffer,
  ) {}

  /** Whether the needle occurs inside [start, end). Calls must come with non-decreasing `start`. */
  within(start: number, end: number): boolean {
    if (this.next === -1) return false;
    if (this.next < start) this.next = this.buf.indexOf(this.needle, start);
    return this.next >= 0 && this.next + this.needle.length <= end;
  }
}

/** Cursors for the two needles over one buffer. */
export class FileOpScanner {
  private readonly toolCalls: NeedleCursor;
  private readonly nested: NeedleCursor;

  constructor(buf: Buffer) {
    this.toolCalls = new NeedleCursor(buf, TOOL_CALL);
    this.nested = new NeedleCursor(buf, NESTED_CALLS);
  }

  mayHold(role: string | undefined, start: number, end: number): boolean {
    if (role === 'assistant') return this.toolCalls.within(start, end);
    if (role === 'toolResult') return this.nested.within(start, end);
    return false;
  }
}

/** The hint from a line's text (a line of `role`). */
export function entryLineMayHoldFileOps(role: string | undefined, text: string): boolean {
  const needle = needleFor(role);
  return needle !== undefined && text.includes(needle.toString('latin1'));
}

/**
 * Decides the hint of a record from what is in memory (its parsed entry, its
 * role, or its bytes in a chunk); false when its bytes are on disk and must
 * be read (see resolveFileOpHints).
 */
export function decideFileOpHintInMemory(rec: EntryRecord): boolean {
  if (rec.mayHoldFileOps !== undefined) return true;
  if (rec.entry !== undefined) rec.mayHoldFileOps = entryMayHoldFileOps(rec.entry);
  else {
    const needle = needleFor(rec.role);
    // A line too long to parse shows empty (parseLine.ts): it holds no call to read.
    if (!needle || rec.end - rec.start > MAX_PARSED_ENTRY_BYTES) rec.mayHoldFileOps = false;
    else if (rec.chunk) rec.mayHoldFileOps = rec.chunk.subarray(rec.start, rec.end).indexOf(needle) >= 0;
    else return false;
  }
  return true;
}

/**
 * Decides the undecided hints of `records`: from memory when it can, else
 * from their bytes (lines of a streamed session), read back in file order.
 */
export async function resolveFileOpHints(file: string, records: readonly EntryRecord[], options: LineReadOptions = {}): Promise<void> {
  const onDisk = records.filter((rec) => !decideFileOpHintInMemory(rec));
  let scanner: FileOpScanner | undefined;
  await readLinesOnDisk(
    file,
    onDisk,
    (rec, block, start, end, blockChanged) => {
      if (blockChanged || !scanner) scanner = new FileOpScanner(block);
      rec.mayHoldFileOps = scanner.mayHold(rec.role, start, end);
    },
    // Bytes missing (the file shrank): "may hold", so the line is parsed, which reports it.
    (rec) => (rec.mayHoldFileOps = true),
    options,
  );
}
