import { readAppended } from '../session/tail';
import { StaleSessionError } from '../session/writeErrors';
import type { SessionIndex } from '../session/sessionIndex';
import type { SessionEntry } from '../session/types';
import type { WriteResult } from './protocol';

/**
 * The entries a live Pi just appended for Arbor, read back from the file into
 * the index (Pi writes them before it answers), in the order Pi reported.
 */
export async function entriesWrittenByPi(index: SessionIndex, result: WriteResult, signal?: AbortSignal): Promise<SessionEntry[]> {
  const tail = await readAppended(index, { signal });
  if (tail.replaced) throw new StaleSessionError(`${index.file} was truncated or replaced while Pi wrote to it; reload it.`);
  const written: number[] = [];
  for (const id of result.entryIds) {
    const i = index.indexOf(id);
    if (i < 0)
      throw new StaleSessionError(
        `Pi reported entry ${id}, but ${index.file} does not hold it: is Pi writing another file? Reload the session.`,
      );
    written.push(i);
  }
  // Loaded (a message line of a large append stays on disk; the bookkeeping entries Pi writes for Arbor are in memory).
  return index.withLoaded(written, () => written.map((i) => index.entry(i)), { signal });
}
