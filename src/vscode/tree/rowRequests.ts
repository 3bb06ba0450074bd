/**
 * VS Code's requests for rows (getChildren) still being answered. A reveal
 * made while VS Code waits for the rows of the revealed row's parent resolves
 * without selecting anything (VS Code fetches those rows a second time for the
 * reveal and the view keeps neither), so reveals wait until none is in flight.
 */
export class RowRequests {
  private inFlight = 0;
  private waiters: Array<() => void> = [];

  /** Counts `answer` as in flight until it settles. */
  async track<T>(answer: Promise<T>): Promise<T> {
    this.inFlight++;
    try {
      return await answer;
    } finally {
      if (--this.inFlight === 0) this.wake();
    }
  }

  /**
   * Resolves to true once no request is in flight, after VS Code got the last answer (the next macrotask);
   * to false when one is still in flight after `timeoutMs`.
   */
  idle(timeoutMs = Infinity): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = Number.isFinite(timeoutMs) ? setTimeout(() => done(false), timeoutMs) : undefined;
      const done = (settled: boolean) => {
        clearTimeout(timer);
        const at = this.waiters.indexOf(wake);
        if (at >= 0) this.waiters.splice(at, 1);
        resolve(settled);
      };
      const wake = () => done(true);
      this.waiters.push(wake);
    });
  }

  /** Requests not answered yet. */
  get pending(): number {
    return this.inFlight;
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    if (waiters.length) setTimeout(() => (this.inFlight === 0 ? waiters.forEach((w) => w()) : this.waiters.push(...waiters)), 0);
  }
}
