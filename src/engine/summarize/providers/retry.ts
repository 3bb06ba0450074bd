import { timerMs } from './limits';
import { AbortError, SummarizationError, isAbortError, throwIfAborted } from '../summarizer';

/**
 * Arbor's own retry loop for summarization requests. The SDKs' built-in
 * retries are switched off (maxRetries: 0) so these are the only ones.
 *
 * Retried: SummarizationErrors marked `retryable` (HTTP 408/429/5xx, network
 * errors such as ECONNREFUSED / ECONNRESET, timeouts, streams cut short).
 * Never retried: aborts (the caller's signal), other 4xx, malformed or
 * unusable answers. Delay: exponential backoff with jitter, or the server's
 * retry-after (capped at maxRetryAfterMs) when it sent one.
 */

export interface RetryInfo {
  /** 1 for the first retry. */
  retry: number;
  delayMs: number;
  error: SummarizationError;
}

export interface RetryOptions {
  /** Retries after the first request (default 3, so at most 4 requests). */
  maxRetries?: number;
  /** First backoff delay (default 1000 ms); doubles on every retry. */
  baseDelayMs?: number;
  /** Upper bound of a backoff delay (default 30 s). */
  maxDelayMs?: number;
  /** Upper bound of a server-requested retry-after wait (default 60 s); a longer request is clamped to it. */
  maxRetryAfterMs?: number;
  /** Source of jitter in [0, 1) (default Math.random). */
  random?: () => number;
  /** Called before each wait. */
  onRetry?: (info: RetryInfo) => void;
}

export const DEFAULT_RETRY_OPTIONS = Object.freeze({
  maxRetries: 3,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
});

/** HTTP statuses worth another try: request timeout, rate limit, server errors (incl. Anthropic's 529). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/** The backoff before retry number `retry` (1-based): base * 2^(retry-1), capped, with "equal jitter" (half fixed, half random). */
export function backoffDelay(retry: number, options: RetryOptions = {}): number {
  const base = Math.max(0, options.baseDelayMs ?? DEFAULT_RETRY_OPTIONS.baseDelayMs);
  const max = Math.max(0, options.maxDelayMs ?? DEFAULT_RETRY_OPTIONS.maxDelayMs);
  const random = options.random ?? Math.random;
  const exp = Math.min(max, base * 2 ** Math.max(0, retry - 1));
  return Math.round(exp / 2 + (exp / 2) * Math.min(1, Math.max(0, random())));
}

type HeaderSource = Headers | Record<string, unknown> | undefined | null;

function header(headers: HeaderSource, name: string): string | undefined {
  if (!headers || typeof headers !== 'object') return undefined;
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name && v != null) return String(Array.isArray(v) ? v[0] : v);
  return undefined;
}

/** Reads `retry-after-ms`, or `retry-after` (seconds or an HTTP date), in ms. */
export function parseRetryAfter(headers: HeaderSource, now: number = Date.now()): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Math.round(Number(ms));
  const ra = header(headers, 'retry-after');
  if (ra === undefined || ra.trim() === '') return undefined;
  const secs = Number(ra);
  if (Number.isFinite(secs)) return secs >= 0 ? Math.round(secs * 1000) : undefined;
  const date = Date.parse(ra);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** Waits `ms`; rejects with AbortError at once when `signal` fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new AbortError(undefined, { cause: signal.reason }));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortError(undefined, { cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, timerMs(ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `attempt` until it succeeds, fails for good, or the retries run out.
 * `attempt` receives the 0-based attempt number. Non-retryable errors and
 * aborts are rethrown at once; the last error carries `attempts`.
 */
export async function withRetry<T>(attempt: (n: number) => Promise<T>, options: RetryOptions & { signal?: AbortSignal } = {}): Promise<T> {
  const maxRetries = Math.max(0, Math.floor(options.maxRetries ?? DEFAULT_RETRY_OPTIONS.maxRetries));
  const maxRetryAfter = Math.max(0, options.maxRetryAfterMs ?? DEFAULT_RETRY_OPTIONS.maxRetryAfterMs);
  for (let n = 0; ; n++) {
    throwIfAborted(options.signal);
    try {
      return await attempt(n);
    } catch (err) {
      if (options.signal?.aborted) throw isAbortError(err) ? err : new AbortError(undefined, { cause: options.signal.reason });
      if (isAbortError(err)) throw err;
      if (!(err instanceof SummarizationError)) throw err;
      err.attempts = n + 1;
      if (!err.retryable || n >= maxRetries) {
        if (err.retryable && n > 0) err.message += ` (gave up after ${n + 1} attempts)`;
        throw err;
      }
      const delayMs = err.retryAfterMs !== undefined ? Math.min(err.retryAfterMs, maxRetryAfter) : backoffDelay(n + 1, options);
      options.onRetry?.({ retry: n + 1, delayMs, error: err });
      await sleep(delayMs, options.signal);
    }
  }
}
