import { statSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { readAppended } from './tail';
import { StaleSessionError } from './writeErrors';
import type { SessionIndex } from './sessionIndex';

export interface IncompleteLineOptions {
  signal?: AbortSignal;
  /** An incomplete last line that does not change for this long is a dead writer's (ms, default 250; a live writer's halves come ms apart). */
  quietMs?: number;
  /** Longest wait for a line another process is still writing (ms, default 10 s). */
  maxWaitMs?: number;
  /** How often the file's size is looked at while waiting (ms, default 20). */
  pollMs?: number;
}

/**
 * Before an append: what to do about an incomplete last line (bytes after
 * the last line break that are not a complete entry). Judged from the
 * file's content and its changes, never from its modification time:
 * - bytes that arrived since the caller planned (`plannedSize`), or that
 *   arrive while waiting, mean a writer is in the middle of the line: it is
 *   waited for (bounded by `maxWaitMs`) until it ends with its line break;
 *   if it does not, the append is refused (StaleSessionError, nothing
 *   written).
 * - a line that stays unchanged for `quietMs` is a dead writer's: the append
 *   goes ahead as before (a line break first, the torn bytes stay on disk).
 * The index is brought up to date with whatever the other writer completed.
 */
export async function settleIncompleteLine(index: SessionIndex, plannedSize: number, options: IncompleteLineOptions = {}): Promise<void> {
  if (!index.hasIncompleteLine) return;
  const quietMs = options.quietMs ?? 250;
  const maxWaitMs = options.maxWaitMs ?? 10_000;
  const pollMs = options.pollMs ?? 20;
  const started = performance.now();
  let changing = index.size !== plannedSize;
  // Unchanged since it was first seen (at load, say): that time counts as quiet too.
  let lastChange = changing ? started : (index.incompleteSince ?? started);
  for (;;) {
    const now = performance.now();
    if (!changing && now - lastChange >= quietMs) return;
    if (changing && now - started >= maxWaitMs) {
      throw new StaleSessionError(
        `${index.file}: another process is writing its last line (${index.size - index.committedSize} bytes so far, not finished after ` +
          `${Math.round(maxWaitMs / 1000)} s). Nothing was written, so that line is not torn; try again.`,
      );
    }
    await delay(pollMs, undefined, { signal: options.signal });
    if (statSync(index.file).size === index.size) continue;
    const result = await readAppended(index, { signal: options.signal });
    if (result.replaced) throw new StaleSessionError(`${index.file} was truncated or replaced while Arbor waited to write; reload it. Nothing was written.`);
    if (!index.hasIncompleteLine) return;
    changing = true;
    lastChange = performance.now();
  }
}
