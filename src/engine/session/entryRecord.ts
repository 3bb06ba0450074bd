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
  /**
   * The bytes of the line (without the line break) are chunk[start, end); when
   * chunk is null they are on disk at file offsets [start, end) (a streamed
   * load keeps no copy of the file in memory).
   */
  chunk: Buffer | null;
  start: number;
  end: number;
  /**
   * False when the line cannot hold a read/write/edit tool call (see
   * fileOpHints.ts); undefined until decided (a streamed load leaves tool
   * results undecided: deciding means searching their bytes, which are most
   * of a session, and only compaction planning needs it).
   */
  mayHoldFileOps: boolean | undefined;
  entry: SessionEntry | undefined;
}
