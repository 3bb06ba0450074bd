import type { Projection } from '../engine/context/projection';
import { entryIdAt } from '../engine/compaction/planCompaction';
import { LazyJsonList } from './jsonLines';

/** The entry ids of projected positions for a --json result, each made as it is written (see LazyJsonList). */
export function entryIdList(p: Projection, positions: readonly number[]): LazyJsonList<string> {
  return new LazyJsonList(positions.length, (k) => entryIdAt(p, positions[k]));
}
