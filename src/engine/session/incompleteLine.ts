import { statSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { readAppended } from './tail';
import { StaleSessionError } from './writeErrors';
import type { SessionIndex } from './sessionIndex';

/**
 * How long an incomplete last line must stay unchanged (the file not growing)
 * before it is taken for a dead writer's: 2 s. A writer can pause mid-line for
 * far longer than it takes to write one (swapped out, stopped in a debugger, a
 * busy machine), and a paused writer is not a dead one: tearing its line would
 * corrupt the session. Hosts set their own with configureIncompleteLineWait
 * (the CLI from ARBOR_INCOMPLETE_LINE_QUIET_SECONDS, the extension from
 * `arbor.incompleteLineQuietSeconds`).
 */
export const DEFAULT_INCOMPLETE_LINE_QUIET_MS = 2000;

/** The host's quiet window (ms) for writes that do not pass their own. */
let hostQuietMs = DEFAULT_INCOMPLETE_LINE_QUIET_MS;

/** Sets the quiet window every later append uses unless it passes `quietMs` (seconds from a setting: see quietMsFromSeconds). */
export function configureIncompleteLineWait(options: { quietMs: number }): void {
  hostQuietMs = options.quietMs;
}

/** The quiet window (ms) for a setting in seconds; undefined, empty or not a finite number >= 0 gives the default. At most one hour. */
export function quietMsFromSeconds(seconds: unknown): number | undefined {
  const n = typeof seconds === 'string' && seconds.trim() !== '' ? Number(seconds) : seconds;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || n > 3600) return undefined;
  return Math.min(n, 3600) * 1000;
}

export interface IncompleteLineOptions {
  signal?: AbortSignal;
  /**
   * An incomplete last line that does not change for this long is a dead writer's (ms; default: the host's,
   * DEFAULT_INCOMPLETE_LINE_QUIET_MS unless configured).
   */
  quietMs?: number;
  /** Longest wait for a line another process is still writing (ms, default the larger of 10 s and five quiet windows). */
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
 * - a line that stays unchanged (the file does not grow) for `quietMs` is a
 *   dead writer's: the append
 *   goes ahead as before (a line break first, the torn bytes stay on disk).
 * The index is brought up to date with whatever the other writer completed.
 */
export async function settleIncompleteLine(index: SessionIndex, plannedSize: number, options: IncompleteLineOptions = {}): Promise<void> {
  if (!index.hasIncompleteLine) return;
  const quietMs = options.quietMs ?? hostQuietMs;
  const maxWaitMs = options.maxWaitMs ?? Math.max(10_000, 5 * quietMs);
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
    if (result.replaced)
      throw new StaleSessionError(`${index.file} was truncated or replaced while Arbor waited to write; reload it. Nothing was written.`);
    if (!index.hasIncompleteLine) return;
    changing = true;
    lastChange = performance.now();
  }
}
