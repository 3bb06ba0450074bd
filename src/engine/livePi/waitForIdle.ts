import { BridgeError, requestState } from './client';
import { DEFAULT_IDLE_WAIT_MS, type PiState } from './protocol';
import type { RegistryEntry } from './registry';

/** How often a busy Pi's state is asked while Arbor waits for it to stop. */
const POLL_MS = 250;

export interface WaitForIdleOptions {
  /** Longest wait, in ms (the bridge's default when omitted). */
  waitMs?: number;
  signal?: AbortSignal;
}

/**
 * Waits until the Pi behind `entry` is idle and returns its state then (its leaf is where Arbor plans).
 * Throws BridgeError `busy` when it stays busy past `waitMs` (nothing was planned or written), and the
 * signal's reason when cancelled.
 */
export async function waitForPiIdle(entry: RegistryEntry, state: PiState, options: WaitForIdleOptions = {}): Promise<PiState> {
  const waitMs = options.waitMs ?? DEFAULT_IDLE_WAIT_MS;
  const deadline = Date.now() + waitMs;
  let now = state;
  while (!now.idle) {
    options.signal?.throwIfAborted();
    if (Date.now() >= deadline)
      throw new BridgeError(
        'busy',
        `Pi (pid ${entry.pid}) was still working after ${Math.round(waitMs / 1000)} s; nothing was planned or written ` +
          '(wait longer with --pi-wait SECONDS, up to 120, or try again when Pi stops)',
      );
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
      options.signal?.addEventListener('abort', done, { once: true });
    });
    options.signal?.throwIfAborted();
    now = await requestState(entry, { signal: options.signal, timeoutMs: 5000 });
  }
  return now;
}
