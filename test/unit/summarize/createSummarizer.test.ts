import * as assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { createSummarizer, DEFAULT_SUMMARY_MODELS } from '../../../src/engine/summarize/providers/createSummarizer';
import { FALLBACK_MODEL_INFO, lookupModel, resolveModelInfo, withCost } from '../../../src/engine/summarize/providers/models';
import { buildSummaryRequest } from '../../../src/engine/summarize/prompts';
import { SummarizationError, emptyUsage } from '../../../src/engine/summarize/summarizer';
import { startFakeProvider, type FakeProviderServer } from '../../support/fakeProvider';
import { FAST_RETRY, rejection } from './helpers';

describe('model table', () => {
  it('knows current OpenAI and Anthropic models, with dated ids and vendor prefixes', () => {
    assert.deepEqual([lookupModel('gpt-4o')?.contextWindow, lookupModel('gpt-4o')?.maxOutputTokens], [128000, 16384]);
    assert.equal(lookupModel('gpt-4o-2024-08-06')?.maxOutputTokens, 16384);
    assert.equal(lookupModel('gpt-4o-mini-2024-07-18')?.pricing?.input, 0.15, 'the longest key wins');
    assert.equal(lookupModel('gpt-4.1')?.contextWindow, 1047576);
    assert.equal(lookupModel('gpt-4.1-nano-2025-04-14')?.maxOutputTokens, 32768);
    assert.equal(lookupModel('gpt-5-mini')?.contextWindow, 400000);
    assert.equal(lookupModel('gpt-5-chat-latest')?.maxOutputTokens, 16384);
    assert.equal(lookupModel('o3')?.maxOutputTokens, 100000);
    assert.equal(lookupModel('o4-mini-2025-04-16')?.contextWindow, 200000);
    assert.equal(lookupModel('openai/gpt-4.1-mini')?.pricing?.output, 1.6);
    assert.equal(lookupModel('claude-sonnet-4-20250514')?.maxOutputTokens, 64000);
    assert.equal(lookupModel('claude-opus-4-1-20250805')?.maxOutputTokens, 32000);
    assert.equal(lookupModel('claude-opus-4-5')?.pricing?.input, 5);
    assert.equal(lookupModel('claude-haiku-4-5-20251001')?.contextWindow, 200000);
    assert.equal(lookupModel('claude-3-7-sonnet-latest')?.maxOutputTokens, 64000);
    assert.equal(lookupModel('claude-3-5-haiku-20241022')?.maxOutputTokens, 8192);
    assert.equal(lookupModel('gpt-4o-audio-preview-x'), undefined, 'not a date/tag suffix: no guess');
    assert.equal(lookupModel('llama3.1:8b'), undefined);
  });

  it('falls back to 128000 / 8192 (200k window for any Claude) and applies overrides', () => {
    assert.deepEqual(resolveModelInfo('qwen2.5-coder'), { ...FALLBACK_MODEL_INFO, known: false });
    assert.equal(resolveModelInfo('claude-future-9').contextWindow, 200000);
    const o = resolveModelInfo('gpt-4o', { contextWindow: 32000, maxOutputTokens: 2048 });
    assert.equal(o.contextWindow, 32000);
    assert.equal(o.maxOutputTokens, 2048);
    assert.equal(o.known, true);
    assert.equal(resolveModelInfo('gpt-4o', { contextWindow: -5 }).contextWindow, 128000, 'invalid override ignored');
  });

  it('computes cost from the price table', () => {
    const u = { ...emptyUsage(), input: 1_000_000, output: 500_000, cacheRead: 200_000, totalTokens: 1_700_000 };
    assert.deepEqual(withCost(u, lookupModel('gpt-4.1')?.pricing).cost, { input: 2, output: 4, cacheRead: 0.1, cacheWrite: 0, total: 6.1 });
    assert.deepEqual(withCost(u, undefined).cost, { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 });
  });
});

describe('createSummarizer', function () {
  let server: FakeProviderServer;
  beforeEach(async () => {
    server = await startFakeProvider();
  });
  afterEach(async () => {
    await server.stop();
  });

  it('is offline by default, whatever keys the environment has', () => {
    const s = createSummarizer({ env: { OPENAI_API_KEY: 'sk-x', ANTHROPIC_API_KEY: 'sk-y' } });
    assert.equal(s.provider, 'offline');
    assert.equal(s.contextWindow, 128000);
    assert.equal(s.maxOutputTokens, 8192);
    assert.equal(createSummarizer({ contextWindow: 1000, maxOutputTokens: 100 }).maxOutputTokens, 100);
  });

  it('chooses sensible default models and their limits', () => {
    const o = createSummarizer({ provider: 'openai', env: { OPENAI_API_KEY: 'sk-test' } });
    assert.equal(o.provider, 'openai');
    assert.equal(o.model, DEFAULT_SUMMARY_MODELS.openai);
    assert.equal(o.maxOutputTokens, lookupModel(DEFAULT_SUMMARY_MODELS.openai)!.maxOutputTokens);
    const a = createSummarizer({ provider: 'anthropic', env: { ANTHROPIC_API_KEY: 'sk-test' } });
    assert.equal(a.model, DEFAULT_SUMMARY_MODELS.anthropic);
    assert.equal(a.contextWindow, 200000);
  });

  it('reads the key and base URL from env, and talks to the provider', async () => {
    for (const provider of ['openai', 'anthropic'] as const) {
      server.reset();
      const env =
        provider === 'openai'
          ? { OPENAI_API_KEY: 'sk-env-key-111111', OPENAI_BASE_URL: server.openaiBaseURL }
          : { ANTHROPIC_API_KEY: 'sk-env-key-111111', ANTHROPIC_BASE_URL: server.anthropicBaseURL };
      const s = createSummarizer({ provider, env, retry: FAST_RETRY });
      server.script({ type: 'text', text: `from ${provider}` });
      const r = await s.summarize(
        buildSummaryRequest({ kind: 'history', messages: [{ role: 'user', content: 'hi' }], maxOutputTokens: s.maxOutputTokens }),
      );
      assert.equal(r.text, `from ${provider}`);
      assert.equal(server.requests[0].api, provider);
      assert.equal(server.requests[0].headers.authorization, 'Bearer sk-env-key-111111');
    }
  });

  it('an explicit key and base URL win over env', async () => {
    const s = createSummarizer({
      provider: 'openai',
      apiKey: 'sk-explicit-2222',
      baseURL: server.openaiBaseURL,
      env: { OPENAI_API_KEY: 'sk-env-3333', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' },
    });
    server.script({ type: 'text', text: 'ok' });
    await s.summarize(buildSummaryRequest({ kind: 'history', messages: [{ role: 'user', content: 'hi' }], maxOutputTokens: 100 }));
    assert.equal(server.requests[0].headers.authorization, 'Bearer sk-explicit-2222');
  });

  it('without a key for the official endpoints: a clear error, not a request', () => {
    for (const provider of ['openai', 'anthropic'] as const) {
      assert.throws(
        () => createSummarizer({ provider, env: {} }),
        (e: unknown) => e instanceof SummarizationError && /no API key/.test(e.message),
      );
    }
  });

  it('rejects an unknown provider', () => {
    assert.throws(() => createSummarizer({ provider: 'gemini' as never }), /unknown summarizer provider "gemini"/);
  });

  it('never leaks a key into thrown errors', async () => {
    const key = 'sk-proj-LEAKCHECK-9876543210';
    const s = createSummarizer({ provider: 'anthropic', apiKey: key, baseURL: server.anthropicBaseURL, maxRetries: 0, env: {} });
    server.script({
      type: 'status',
      status: 403,
      message: `key ${key} is not allowed`,
      body: { type: 'error', error: { type: 'permission_error', message: `key ${key} is not allowed` } },
    });
    const err = await rejection(
      s.summarize(buildSummaryRequest({ kind: 'history', messages: [{ role: 'user', content: 'hi' }], maxOutputTokens: 100 })),
    );
    assert.ok(err instanceof SummarizationError);
    assert.ok(!(inspect(err, { depth: Infinity, showHidden: true }) + err.stack).includes(key));
    assert.ok(!(inspect(err, { depth: Infinity }) + err.stack).includes('LEAKCHECK'), 'key-shaped strings are redacted too');
  });
});
