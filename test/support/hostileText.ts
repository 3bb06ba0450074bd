/** Deterministic hostile text for the linear-time tests and bench/hostileText.ts. */

/** n characters of a pseudo-random base64 blob (one unbroken run, all different pieces). */
export function base64Blob(n: number): string {
  const cs = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let x = 12345;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out.push(cs[x & 63]);
  }
  return out.join('');
}

/** `unit` repeated to exactly n characters. */
export const fill = (unit: string, n: number): string => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);

/** The best of `runs` timings of f, in ms (shared, noisy machine). */
export function bestTime(f: () => void, runs = 3): number {
  let best = Infinity;
  for (let k = 0; k < runs; k++) {
    const t0 = performance.now();
    f();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

/**
 * A scaling check that a loaded machine cannot fail: `measure` times the work and returns why it is not
 * linear (or undefined when it is); it runs up to `attempts` times and passes on the first that holds.
 * Noise slows one measurement; a quadratic algorithm fails every one.
 */
export function scalesLinearly(measure: () => string | undefined, attempts = 4): void {
  let why = '';
  for (let k = 0; k < attempts; k++) {
    const failure = measure();
    if (failure === undefined) return;
    why = failure;
  }
  throw new Error(`not linear in any of ${attempts} measurements; the last: ${why}`);
}
