/**
 * The OpenAI and Anthropic summarizers, through the real SDKs and real HTTP,
 * against the in-process fake provider (test/support/fakeProvider).
 */
import * as assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { startFakeProvider, type FakeProviderServer } from '../../support/fakeProvider';
import { buildSummaryRequest, SUMMARY_SYSTEM_PROMPT } from '../../../src/engine/summarize/prompts';
import { serializeConversation } from '../../../src/engine/summarize/serialize';
import { SummarizationError } from '../../../src/engine/summarize/summarizer';
import type { AgentMessage } from '../../../src/engine/session/types';
import { allKeys, fakeSummarizer, plainMessages, rejection, wirePrompt, type Api } from './helpers';

const SMALL: AgentMessage[] = [
  { role: 'user', content: 'Rename `foo` to `bar` in src/a.ts' },
  { role: 'assistant', content: [{ type: 'text', text: 'I will rename it.' }], stopReason: 'stop' },
];

for (const api of ['openai', 'anthropic'] as Api[]) {
  describe(`${api} summarizer (fake server, real SDK)`, function () {
    let server: FakeProviderServer;
    let messages: AgentMessage[];

    before(async () => {
      messages = await plainMessages();
    });
    beforeEach(async () => {
      server = await startFakeProvider();
    });
    afterEach(async () => {
      await server.stop();
    });

    for (const stream of [true, false]) {
      describe(stream ? 'streaming' : 'non-streaming', () => {
        it('sends a one-off request: system prompt, serialized conversation, no tools, no cache settings, output limit', async () => {
          const s = fakeSummarizer(api, server, { stream });
          server.script({ type: 'text', text: '## Goal\n- Summarized' });
          const request = buildSummaryRequest({ kind: 'history', messages, maxOutputTokens: s.maxOutputTokens });
          const result = await s.summarize(request);
          assert.equal(result.text, '## Goal\n- Summarized');
          assert.equal(server.requests.length, 1);
          const r = server.requests[0];
          assert.equal(r.api, api);
          assert.equal(r.body.model, s.model);
          assert.equal(r.body.stream === true, stream);
          const { system, user } = wirePrompt(api, r.body);
          assert.equal(system, SUMMARY_SYSTEM_PROMPT);
          assert.match(system, /not taking part|do not continue the dialogue/i);
          assert.ok(
            user.includes(`<conversation>\n${serializeConversation(messages)}\n</conversation>`),
            'the serialized conversation is inside the prompt',
          );
          assert.ok(user.includes('## Critical Context'));
          assert.equal(r.body.messages.filter((m: { role: string }) => m.role === 'user').length, 1);
          const keys = allKeys(r.body);
          for (const banned of [
            'cache_control',
            'prompt_cache_key',
            'prompt_cache_retention',
            'user',
            'tools',
            'tool_choice',
            'functions',
          ]) {
            assert.ok(!keys.includes(banned), `no ${banned} in the request`);
          }
          // The SDK made no retries of its own.
          assert.equal(r.headers['x-stainless-retry-count'], '0');
          if (api === 'openai') {
            // Custom base URL: max_tokens (what every compatible server understands), = the model's output limit.
            assert.equal(r.body.max_tokens, 16384);
            assert.equal(r.body.max_completion_tokens, undefined);
            assert.equal(r.headers['x-client-request-id'], request.requestId);
            if (stream) assert.deepEqual(r.body.stream_options, { include_usage: true });
            else assert.equal(r.body.stream_options, undefined);
          } else {
            assert.equal(r.body.max_tokens, 64000);
            assert.equal(typeof r.body.system, 'string', 'system is a plain string');
            assert.deepEqual(r.body.metadata, { user_id: request.requestId });
          }
        });

        it('uses a fresh id for every summarization', async () => {
          const s = fakeSummarizer(api, server, { stream });
          server.script({ type: 'text', text: 'one' }, { type: 'text', text: 'two' });
          await s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: 1000 }));
          await s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: 1000 }));
          const ids = server.requests.map((r) => (api === 'openai' ? r.headers['x-client-request-id'] : r.body.metadata.user_id));
          assert.equal(ids.length, 2);
          assert.ok(ids.every((id) => typeof id === 'string' && /^[0-9a-f-]{36}$/.test(id as string)));
          assert.notEqual(ids[0], ids[1]);
        });

        it('passes the previous summary and the custom instructions for an update', async () => {
          const s = fakeSummarizer(api, server, { stream });
          server.script({ type: 'text', text: '## Goal\n- Updated' });
          const previous = '## Goal\n- Earlier goal\n\n## Next Steps\n1. Earlier step';
          await s.summarize(
            buildSummaryRequest({
              kind: 'update',
              messages: SMALL,
              previousSummary: previous,
              customInstructions: 'Focus on the renamed symbols.',
              maxOutputTokens: 2000,
            }),
          );
          const { user } = wirePrompt(api, server.requests[0].body);
          assert.ok(user.includes(`<previous-summary>\n${previous}\n</previous-summary>`));
          assert.ok(user.includes('Focus on the renamed symbols.'));
          assert.ok(user.includes('[User]: Rename `foo` to `bar` in src/a.ts'));
          assert.equal(server.requests[0].body.max_tokens, 2000, 'a smaller budget in the request is honoured');
        });

        it('records the usage (tokens and cost)', async () => {
          const s = fakeSummarizer(api, server, { stream });
          server.script({
            type: 'text',
            text: 'Summary.',
            usage: { input: 1000, output: 200, cacheRead: 300, cacheWrite: api === 'anthropic' ? 50 : 0 },
          });
          const usage = (await s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: 1000 }))).usage!;
          assert.ok(usage, 'a model call records its usage');
          assert.equal(usage.input, 1000);
          assert.equal(usage.output, 200);
          assert.equal(usage.cacheRead, 300);
          if (api === 'openai') {
            assert.equal(usage.cacheWrite, 0);
            assert.equal(usage.totalTokens, 1500);
            // gpt-4o: $2.5 / $10 / $1.25 per million.
            assert.deepEqual(usage.cost, { input: 0.0025, output: 0.002, cacheRead: 0.000375, cacheWrite: 0, total: 0.004875 });
          } else {
            assert.equal(usage.cacheWrite, 50);
            assert.equal(usage.totalTokens, 1550);
            // claude-haiku-4-5: $1 / $5, cache read $0.10, cache write $1.25 per million.
            assert.deepEqual(usage.cost, { input: 0.001, output: 0.001, cacheRead: 0.00003, cacheWrite: 0.0000625, total: 0.0020925 });
          }
        });

        it('retries a 500 and succeeds on the next request', async () => {
          const s = fakeSummarizer(api, server, { stream });
          server.script({ type: 'status', status: 500 }, { type: 'text', text: 'Recovered summary' });
          const result = await s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: 1000 }));
          assert.equal(result.text, 'Recovered summary');
          assert.equal(server.requests.length, 2);
        });

        it('gives up after a bounded number of retries', async () => {
          const s = fakeSummarizer(api, server, { stream, maxRetries: 2 });
          server.setFallback({ type: 'status', status: 503, message: 'overloaded' });
          const err = await rejection(s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: 1000 })));
          assert.ok(err instanceof SummarizationError);
          assert.equal(err.retryable, true);
          assert.equal(err.status, 503);
          assert.equal(err.attempts, 3);
          assert.equal(server.requests.length, 3, 'first request + 2 retries, no SDK retries on top');
        });

        it('honours retry-after on a 429, then succeeds with 2 requests', async () => {
          const s = fakeSummarizer(api, server, { stream });
          server.script(
            { type: 'status', status: 429, headers: { 'retry-after-ms': '60' } },
            { type: 'text', text: 'After the rate limit' },
          );
          const t0 = Date.now();
          const result = await s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: 1000 }));
          assert.equal(result.text, 'After the rate limit');
          assert.equal(server.requests.length, 2);
          assert.ok(Date.now() - t0 >= 55, 'waited the retry-after delay, not the 1 ms backoff');
        });

        it('does not retry a 400', async () => {
          const s = fakeSummarizer(api, server, { stream });
          server.script({ type: 'status', status: 400, message: 'bad request' }, { type: 'text', text: 'never reached' });
          const err = await rejection(s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: 1000 })));
          assert.ok(err instanceof SummarizationError);
          assert.equal(err.retryable, false);
          assert.equal(err.status, 400);
          assert.equal(server.requests.length, 1);
        });

        it('times out a request that never answers, with bounded retries', async () => {
          const s = fakeSummarizer(api, server, { stream, timeoutMs: 80, maxRetries: 1 });
          server.setFallback({ type: 'hang' });
          const t0 = Date.now();
          const err = await rejection(s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: 1000 })));
          assert.ok(err instanceof SummarizationError, String(err));
          assert.match(err.message, /timed out/);
          assert.equal(server.requests.length, 2);
          assert.ok(Date.now() - t0 < 60_000, 'two short timeouts, not the default 120 s (half of it as the bound: the machine is shared)');
        });

        it('rejects an empty answer', async () => {
          const s = fakeSummarizer(api, server, { stream });
          server.script({ type: 'empty' });
          const err = await rejection(s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: 1000 })));
          assert.ok(err instanceof SummarizationError);
          assert.match(err.message, /empty/);
          assert.equal(server.requests.length, 1);
        });

        it('rejects an answer cut at the output limit', async () => {
          const s = fakeSummarizer(api, server, { stream });
          server.script({ type: 'length', text: '## Goal\n- Half a summ' });
          const err = await rejection(s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: 1000 })));
          assert.ok(err instanceof SummarizationError);
          assert.match(err.message, /cut off/);
          assert.equal(err.retryable, false);
          assert.equal(server.requests.length, 1);
        });

        it('rejects a tool call, even with text beside it', async () => {
          const s = fakeSummarizer(api, server, { stream });
          server.script({ type: 'toolCall', name: 'read', arguments: { path: 'src/a.ts' }, text: '## Goal\n- looks like a summary' });
          const err = await rejection(s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: 1000 })));
          assert.ok(err instanceof SummarizationError);
          assert.match(err.message, /tool call/);
          assert.equal(server.requests.length, 1);
        });

        it('retries a connection dropped mid-answer', async () => {
          const s = fakeSummarizer(api, server, { stream });
          server.script({ type: 'cut', text: 'x'.repeat(200) }, { type: 'text', text: 'Complete summary' });
          const result = await s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: 1000 }));
          assert.equal(result.text, 'Complete summary');
          assert.equal(server.requests.length, 2);
        });

        it('stops at once when aborted before the request', async () => {
          const s = fakeSummarizer(api, server, { stream });
          server.setFallback({ type: 'text', text: 'never' });
          const controller = new AbortController();
          controller.abort();
          const err = await rejection(
            s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: 1000 }), controller.signal),
          );
          assert.equal(err.name, 'AbortError');
          assert.equal(server.requests.length, 0);
        });

        it('stops at once when aborted during the backoff, without another request', async () => {
          const s = fakeSummarizer(api, server, { stream, retry: { baseDelayMs: 120_000, maxDelayMs: 120_000 } });
          server.setFallback({ type: 'status', status: 500 });
          const controller = new AbortController();
          const t0 = Date.now();
          const pending = s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: 1000 }), controller.signal);
          await server.waitForRequests(1);
          setTimeout(() => controller.abort(), 30);
          const err = await rejection(pending);
          assert.equal(err.name, 'AbortError');
          assert.ok(
            Date.now() - t0 < 60_000,
            'the backoff sleep (>= 60 s) was interrupted (half of it as the bound: the machine is shared)',
          );
          assert.equal(server.requests.length, 1);
        });
      });
    }

    it('streaming: rejects a stream that ends without finishing the answer (retried, bounded)', async () => {
      const s = fakeSummarizer(api, server, { stream: true, maxRetries: 1 });
      server.setFallback({ type: 'cut', text: 'y'.repeat(100), clean: true });
      const err = await rejection(s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: 1000 })));
      assert.ok(err instanceof SummarizationError);
      assert.match(err.message, /ended before the answer was complete/);
      assert.equal(server.requests.length, 2);
    });

    it('streaming: an abort mid-stream rejects with AbortError and is not retried', async () => {
      const s = fakeSummarizer(api, server, { stream: true, timeoutMs: 120_000 });
      server.script({ type: 'stall', text: 'z'.repeat(200), pieces: 2 }, { type: 'text', text: 'must not be requested' });
      const controller = new AbortController();
      const stalled = server.nextStall();
      const t0 = Date.now();
      const pending = s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: 1000 }), controller.signal);
      await stalled;
      controller.abort();
      const err = await rejection(pending);
      assert.equal(err.name, 'AbortError');
      assert.ok(!(err instanceof SummarizationError));
      assert.ok(Date.now() - t0 < 60_000, 'stopped at once, not after the 120 s timeout (half of it as the bound: the machine is shared)');
      assert.equal(server.requests.length, 1);
      assert.equal(server.pending, 1, 'no retry after an abort');
    });

    it('non-streaming: rejects a malformed (non-JSON) body without retrying', async () => {
      const s = fakeSummarizer(api, server, { stream: false });
      server.script({ type: 'malformed' }, { type: 'text', text: 'never reached' });
      const err = await rejection(s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: 1000 })));
      assert.ok(err instanceof SummarizationError);
      assert.match(err.message, /malformed/);
      assert.equal(server.requests.length, 1);
    });

    it('non-streaming: rejects JSON of the wrong shape', async () => {
      const s = fakeSummarizer(api, server, { stream: false });
      server.script({ type: 'malformed', body: '{"unexpected": true}' });
      const err = await rejection(s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: 1000 })));
      assert.ok(err instanceof SummarizationError);
      assert.match(err.message, /malformed/);
    });

    it('never puts the API key into an error, even when the server echoes it', async () => {
      const key = 'sk-secret-ECHOED-0123456789';
      const s = fakeSummarizer(api, server, { apiKey: key });
      server.script({ type: 'status', status: 401, message: `Incorrect API key provided: ${key}` });
      const err = await rejection(s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: 1000 })));
      assert.ok(err instanceof SummarizationError);
      assert.equal(err.status, 401);
      // The key did reach the server (so the test can fail), but not the error.
      assert.ok(JSON.stringify(server.requests[0].headers).includes(key));
      const everything = inspect(err, { depth: Infinity, showHidden: true }) + String(err.stack) + JSON.stringify(err);
      assert.ok(!everything.includes(key), everything);
      assert.match(err.message, /\[redacted\]/);
    });

    it('retries when the server cannot be reached (ECONNREFUSED), bounded', async () => {
      const url = server.url;
      await server.stop();
      const base = api === 'openai' ? `${url}/v1` : url;
      const { createOpenAISummarizer } = await import('../../../src/engine/summarize/providers/openai');
      const { createAnthropicSummarizer } = await import('../../../src/engine/summarize/providers/anthropic');
      const retries: number[] = [];
      const options = {
        apiKey: 'k-1234',
        baseURL: base,
        model: 'm',
        maxRetries: 2,
        env: {},
        retry: { baseDelayMs: 1, maxDelayMs: 2, onRetry: (i: { retry: number }) => retries.push(i.retry) },
      };
      const s = api === 'openai' ? createOpenAISummarizer(options) : createAnthropicSummarizer(options);
      const err = await rejection(s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: 100 })));
      assert.ok(err instanceof SummarizationError);
      assert.equal(err.retryable, true);
      assert.match(err.message, /ECONNREFUSED|network/);
      assert.deepEqual(retries, [1, 2]);
      server = await startFakeProvider(); // for afterEach
    });
  });
}

describe('openai summarizer options', function () {
  let server: FakeProviderServer;
  beforeEach(async () => {
    server = await startFakeProvider();
  });
  afterEach(async () => {
    await server.stop();
  });

  it('can send max_completion_tokens instead of max_tokens', async () => {
    const s = fakeSummarizer('openai', server, { maxTokensField: 'max_completion_tokens', model: 'gpt-4.1-mini' });
    server.script({ type: 'text', text: 'ok' });
    await s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: s.maxOutputTokens }));
    assert.equal(server.requests[0].body.max_completion_tokens, 32768);
    assert.equal(server.requests[0].body.max_tokens, undefined);
  });

  it('works with a local server that needs no key (placeholder sent), and reads OPENAI_BASE_URL', async () => {
    const { createOpenAISummarizer } = await import('../../../src/engine/summarize/providers/openai');
    const s = createOpenAISummarizer({ model: 'llama3.1:8b', env: { OPENAI_BASE_URL: server.openaiBaseURL }, retry: { baseDelayMs: 1 } });
    assert.equal(s.contextWindow, 128000, 'unknown model: fallback window');
    assert.equal(s.maxOutputTokens, 8192, 'unknown model: fallback output limit');
    server.script({ type: 'text', text: 'local summary' });
    const r = await s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: s.maxOutputTokens }));
    assert.equal(r.text, 'local summary');
    assert.equal(r.usage?.cost?.total, 0, 'no price for an unknown model');
    assert.equal(server.requests[0].headers.authorization, 'Bearer arbor-no-key');
  });

  it('overrides of the context window and output limit apply', async () => {
    const s = fakeSummarizer('openai', server, { contextWindow: 50000, maxOutputTokens: 1234 });
    assert.equal(s.contextWindow, 50000);
    assert.equal(s.maxOutputTokens, 1234);
    server.script({ type: 'text', text: 'ok' });
    await s.summarize(buildSummaryRequest({ kind: 'history', messages: SMALL, maxOutputTokens: 99999 }));
    assert.equal(server.requests[0].body.max_tokens, 1234, 'never more than the output limit');
  });
});
