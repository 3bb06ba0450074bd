/**
 * Waiting for Pi to be idle (no run, retry or compaction), bounded. Woken by
 * Pi's `agent_settled` event, and by a slow poll in case the event fires
 * before the state it announces is visible.
 */
export class IdleWaiter {
  private waiters = new Set<() => void>();

  wake(): void {
    for (const w of [...this.waiters]) w();
  }

  /** Whether Pi became idle within `maxMs`; throws the signal's reason once it aborts while Pi is busy (the waiter is gone). */
  async waitFor(isIdle: () => boolean, maxMs: number, signal?: AbortSignal): Promise<boolean> {
    if (isIdle()) return true;
    signal?.throwIfAborted();
    const deadline = Date.now() + maxMs;
    while (Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.waiters.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(200, Math.max(1, deadline - Date.now())));
        this.waiters.add(done);
        signal?.addEventListener('abort', done, { once: true });
      });
      signal?.throwIfAborted();
      if (isIdle()) return true;
    }
    return isIdle();
  }
}
