import { nothingToCompactCliHint, nothingToCompactText, type NothingToCompactWhy } from '../engine/compaction/nothingToCompact';
import type { Io } from './output';

/**
 * `compact` and `plan-compaction` when there is nothing to compact: why, with its figures (after `lead`, as
 * "nothing written: "), then the flag that would work.
 */
export function printNothingToCompact(io: Io, why: NothingToCompactWhy, lead = ''): void {
  io.out(`${lead}${nothingToCompactText(why)}`);
  const hint = nothingToCompactCliHint(why);
  if (hint) io.out(hint);
}
