import type { SessionIndex } from '../../src/engine/session/sessionIndex';

/** How many message entries of the index hold a parsed body (a load that was released with keep: false holds none). */
export function parsedMessages(index: SessionIndex): number {
  let n = 0;
  for (let i = 0; i < index.entryCount; i++) if (index.record(i).type === 'message' && index.record(i).entry !== undefined) n++;
  return n;
}
