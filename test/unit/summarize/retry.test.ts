import * as assert from 'node:assert/strict';
import { backoffDelay, parseRetryAfter, sleep, withRetry, isRetryableStatus } from '../../../src/engine/summarize/providers/retry';
import { classifyError } from '../../../src/engine/summarize/providers/common';
import { redact } from '../../../src/engine/secrets/redact';
import { AbortError, SummarizationError } from '../../../src/engine/summarize/summarizer';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { rejection } from './helpers';

const retryable = (msg = 'busy', extra: { retryAfterMs?: number } = {}) => new SummarizationError(msg, { retryable: true, ...extra });

describe('retry', () => {
  it('backoff doubles per retry, is capped, and has bounded jitter', () => {
    const o = { baseDelayMs: 100, maxDelayMs: 1000 };
    assert.equal(backoffDelay(1, { ...o, random: () => 0 }), 50);
    assert.equal(backoffDelay(1, { ...o, random: () => 0.999999 }), 100);
    assert.equal(backoffDelay(2, { ...o, random: () => 0 }), 100);
    assert.equal(backoffDelay(3, { ...o, random: () => 0 }), 200);
    assert.equal(backoffDelay(10, { ...o, random: () => 1 }), 1000);
    for (let i = 0; i < 50; i++) {
      const d = backoffDelay(2, o);
      assert.ok(d >= 100 && d <= 200, String(d));
    }
  });

  it('reads retry-after-ms, retry-after seconds and HTTP dates', () => {
    assert.equal(parseRetryAfter(new Headers({ 'retry-after-ms': '250' })), 250);
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': '3' })), 3000);
    assert.equal(parseRetryAfter({ 'Retry-After': '1.5' }), 1500);
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter({ 'retry-after': 'Thu, 01 Jan 2026 00:00:10 GMT' }, now), 10000);
    assert.equal(parseRetryAfter({ 'retry-after': 'soon' }), undefined);
    assert.equal(parseRetryAfter(undefined), undefined);
  });

  it('classifies statuses', () => {
    for (const s of [408, 429, 500, 502, 503, 504, 529]) assert.equal(isRetryableStatus(s), true, String(s));
    for (const s of [400, 401, 403, 404, 413, 422]) assert.equal(isRetryableStatus(s), false, String(s));
  });

  it('retries retryable errors up to maxRetries, then rethrows the last one with the attempt count', async () => {
    let calls = 0;
    const err = await rejection(
      withRetry(
        async () => {
          calls++;
          throw retryable(`busy ${calls}`);
        },
        { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 1 },
      ),
    );
    assert.equal(calls, 4);
    assert.ok(err instanceof SummarizationError);
    assert.equal(err.attempts, 4);
    assert.match(err.message, /^busy 4 \(gave up after 4 attempts\)$/);
  });

  it('defaults to 3 retries', async () => {
    let calls = 0;
    await rejection(
      withRetry(
        async () => {
          calls++;
          throw retryable();
        },
        { baseDelayMs: 0 },
      ),
    );
    assert.equal(calls, 4);
  });

  it('does not retry non-retryable errors, or anything that is not a SummarizationError', async () => {
    let calls = 0;
    await rejection(
      withRetry(async () => {
        calls++;
        throw new SummarizationError('bad request');
      }),
    );
    assert.equal(calls, 1);
    const plain = await rejection(
      withRetry(async () => {
        calls++;
        throw new TypeError('bug');
      }),
    );
    assert.ok(plain instanceof TypeError);
    assert.equal(calls, 2);
  });

  it('succeeds after transient failures and reports each retry', async () => {
    const seen: number[] = [];
    let calls = 0;
    const v = await withRetry(
      async (n) => {
        calls++;
        if (n < 2) throw retryable();
        return 'ok';
      },
      { baseDelayMs: 1, onRetry: (i) => seen.push(i.retry) },
    );
    assert.equal(v, 'ok');
    assert.equal(calls, 3);
    assert.deepEqual(seen, [1, 2]);
  });

  it('waits the retry-after a server asked for, capped at maxRetryAfterMs', async () => {
    const delays: number[] = [];
    let calls = 0;
    const t0 = Date.now();
    await withRetry(
      async () => {
        if (calls++ === 0) throw retryable('rate limited', { retryAfterMs: 120_000 });
        return 1;
      },
      { baseDelayMs: 1, maxRetryAfterMs: 20, onRetry: (i) => delays.push(i.delayMs) },
    );
    assert.deepEqual(delays, [20]);
    // Half the delay asked for, not a speed bound (the machine is shared): the capped 20 ms delay is checked above.
    assert.ok(Date.now() - t0 < 60_000, 'not the 120 s the server asked for');
  });

  it('an abort stops at once: during the sleep, and no retry after it', async () => {
    const controller = new AbortController();
    let calls = 0;
    const t0 = Date.now();
    const p = withRetry(
      async () => {
        calls++;
        throw retryable();
      },
      { baseDelayMs: 120_000, maxDelayMs: 120_000, signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 10);
    const err = await rejection(p);
    assert.ok(err instanceof AbortError);
    assert.equal(calls, 1);
    assert.ok(Date.now() - t0 < 60_000, 'the >= 60 s sleep was interrupted (half of it as the bound: the machine is shared)');
  });

  it('an error thrown after the abort comes out as AbortError, not retried', async () => {
    const controller = new AbortController();
    let calls = 0;
    const err = await rejection(
      withRetry(
        async () => {
          calls++;
          controller.abort();
          throw retryable();
        },
        { signal: controller.signal, baseDelayMs: 1 },
      ),
    );
    assert.equal(err.name, 'AbortError');
    assert.equal(calls, 1);
  });

  it('sleep resolves after the delay and rejects on abort', async () => {
    await sleep(1);
    const c = new AbortController();
    c.abort();
    assert.equal((await rejection(sleep(1000, c.signal))).name, 'AbortError');
  });
});

describe('provider error mapping', () => {
  const ctx = { provider: 'p', secrets: ['sk-abcdef123456'], aborted: false, timedOut: false, timeoutMs: 50, sdk: OpenAI };

  it('network errors (ECONNRESET, ECONNREFUSED, socket closed) are retryable', () => {
    const reset = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
    });
    const e = classifyError(reset, ctx);
    assert.ok(e instanceof SummarizationError && e.retryable);
    assert.match(e.message, /ECONNRESET/);
    const terminated = Object.assign(new TypeError('terminated'), {
      cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
    });
    assert.equal((classifyError(terminated, ctx) as SummarizationError).retryable, true);
  });

  it('timeouts are retryable; the caller abort wins over everything', () => {
    const t = classifyError(new Error('x'), { ...ctx, timedOut: true });
    assert.ok(t instanceof SummarizationError && t.retryable && /timed out/.test(t.message));
    assert.ok(classifyError(new SummarizationError('x', { retryable: true }), { ...ctx, aborted: true }) instanceof AbortError);
  });

  it('HTTP errors keep status and retry-after, and lose secrets', () => {
    const headers = new Headers({ 'retry-after': '2' });
    const e = classifyError(new OpenAI.APIError(429, { message: 'slow down sk-abcdef123456' }, 'slow down sk-abcdef123456', headers), ctx);
    assert.ok(e instanceof SummarizationError);
    assert.equal(e.status, 429);
    assert.equal(e.retryAfterMs, 2000);
    assert.equal(e.retryable, true);
    assert.match(e.message, /^p request failed with HTTP 429: /);
    assert.ok(!e.message.includes('sk-abcdef123456'));
    assert.ok(!String((e.cause as Error).message).includes('sk-abcdef123456'));
    const a = classifyError(new Anthropic.APIError(401, { type: 'error' }, 'invalid x-api-key sk-abcdef123456', new Headers()), {
      ...ctx,
      sdk: Anthropic,
    });
    assert.ok(a instanceof SummarizationError && a.status === 401 && !a.retryable);
    assert.ok(!a.message.includes('sk-abcdef123456'));
  });

  it("reads errors through the SDK's own classes, not by their fields", () => {
    // Shaped like an HTTP error but not the SDK's: no status is taken from it.
    const shaped = classifyError({ status: 500, name: 'APIConnectionError', message: 'sk-abcdef123456' }, ctx);
    assert.ok(shaped instanceof SummarizationError && shaped.status === undefined && !shaped.retryable);
    assert.strictEqual(shaped.message, 'p: [redacted]');
    assert.ok(!shaped.message.includes('sk-abcdef123456'));
    const timeout = classifyError(new OpenAI.APIConnectionTimeoutError(), ctx);
    assert.ok(timeout instanceof SummarizationError && timeout.retryable && /the request timed out/.test(timeout.message));
    const conn = classifyError(new Anthropic.APIConnectionError({ message: 'Connection error.' }), { ...ctx, sdk: Anthropic });
    assert.ok(conn instanceof SummarizationError && conn.retryable && /^p: network error: Connection error\./.test(conn.message));
    // A stream's `error` event: an APIError without a status whose body names a transient failure.
    const overloaded = classifyError(
      new Anthropic.APIError(undefined, { type: 'error', error: { type: 'overloaded_error' } }, 'Overloaded', undefined),
      {
        ...ctx,
        sdk: Anthropic,
      },
    );
    assert.ok(overloaded instanceof SummarizationError && overloaded.retryable && /server reported an error/.test(overloaded.message));
    // Another SDK's class is not this provider's.
    const foreign = classifyError(new Anthropic.APIError(503, undefined, 'busy', new Headers()), ctx);
    assert.ok(foreign instanceof SummarizationError && foreign.status === undefined);
  });

  it('redacts configured secrets and key-shaped strings', () => {
    assert.equal(redact('key=my-secret-value!', ['my-secret-value']), 'key=[redacted]!');
    assert.equal(redact('Bearer sk-ant-api03-AAAAAAAAAAAA', []), 'Bearer [redacted]');
  });
});
