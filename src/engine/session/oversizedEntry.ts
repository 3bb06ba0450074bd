import { MAX_PARSED_ENTRY_BYTES } from './entryLimits';
import type { SessionIndex } from './sessionIndex';

/** Whether the entry's line is too large to be parsed (its tokens are then estimated from its length, context/entryTokens.ts). */
export function isOversizedEntry(index: SessionIndex, i: number): boolean {
  const rec = index.record(i);
  return rec.end - rec.start > MAX_PARSED_ENTRY_BYTES;
}
