import type { SessionEntry } from './types';

/**
 * What the index keeps for one entry line. Message entries written in Pi's key
 * order are indexed without parsing their bodies; `entry` is filled on demand.
 */
export interface EntryRecord {
  id: string;
  parentId: string | null;
  type: string;
  /** `message.role` for message entries. */
  role: string | undefined;
  /** 1-based line number in the file. */
  line: number;
  /** The bytes of the line (without the line break) live in chunk[start, end). */
  chunk: Buffer;
  start: number;
  end: number;
  entry: SessionEntry | undefined;
}
