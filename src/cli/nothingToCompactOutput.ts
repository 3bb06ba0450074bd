import { nothingToCompactCliHint, nothingToCompactReason, type NothingToCompactWhy } from '../engine/compaction/nothingToCompact';
import type { Io } from './output';

/** `compact` and `plan-compaction` when there is nothing to compact: why, with its figures, then the flag that would work. */
export function printNothingToCompact(io: Io, lead: string, why: NothingToCompactWhy): void {
  io.out(`${lead}: ${nothingToCompactReason(why)}`);
  const hint = nothingToCompactCliHint(why);
  if (hint) io.out(hint);
}
