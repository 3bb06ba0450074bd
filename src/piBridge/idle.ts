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

  async waitFor(isIdle: () => boolean, maxMs: number): Promise<boolean> {
    if (isIdle()) return true;
    const deadline = Date.now() + maxMs;
    while (Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(200, Math.max(1, deadline - Date.now())));
        this.waiters.add(done);
      });
      if (isIdle()) return true;
    }
    return isIdle();
  }
}
