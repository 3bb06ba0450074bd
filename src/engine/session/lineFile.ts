import { openRegularFile } from './sessionFile';

/**
 * The port through which entry lines are read back from a session file (the
 * bytes of records a streamed load left on disk). Production opens the file
 * with fs/promises; a test wraps it to count or fail reads.
 */
export interface LineFile {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  close(): Promise<void>;
}

export type OpenLineFile = (file: string) => Promise<LineFile>;

/** Opens a session file for reading its lines (a regular file only: never blocks on a FIFO). */
export const openLineFile: OpenLineFile = (file) => openRegularFile(file);

/** How a load reads entry lines from disk. */
export interface LineReadOptions {
  signal?: AbortSignal;
  /** The file opener (default openLineFile). */
  open?: OpenLineFile;
}
