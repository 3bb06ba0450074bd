/**
 * Issue 13 items 3 and 8 at the summarizer: every form of the key leaves a successful answer redacted
 * (streamed and not, both wire formats, through the real SDKs); the overall deadline stops a dripping
 * provider and the answer-size cap a huge answer, non-streamed too; invalid base URLs fail before a request.
 */
import * as assert from 'node:assert/strict';
import { createSummarizer } from '../../../src/engine/summarize/providers/createSummarizer';
import { AnswerTooLargeError, DeadlineError, baseURLProblem, chosenBaseURL } from '../../../src/engine/summarize/providers/limits';
import { buildSummaryRequest } from '../../../src/engine/summarize/prompts';
import { SummarizationError } from '../../../src/engine/summarize/summarizer';
import { REDACTED, redact, redactKnownSecrets, secretForms } from '../../../src/engine/secrets/redact';
import { ALL_KEY_ECHO_FORMS, keyEcho, startFakeProvider, type FakeProviderServer } from '../../support/fakeProvider';
import { FAST_RETRY, rejection } from './helpers';

const request = () => buildSummaryRequest({ kind: 'history', messages: [{ role: 'user', content: 'hi' }], maxOutputTokens: 100 });

describe('secret redaction (one module)', () => {
  it('finds the key in base64 at any byte offset (Bearer, user:key, whole headers), URL-encoded and raw', () => {
    const key = 'sk-test-Zq9/+x=AbCdEfGh0123456789';
    const embeddings = ['', 'a', 'ab', 'user:', 'Authorization: Bearer ', 'x-api-key: ', 'apikey:'];
    for (const prefix of embeddings) {
      for (const suffix of ['', ':', ':x', '\n']) {
        const b64 = Buffer.from(prefix + key + suffix).toString('base64');
        const text = `header ${b64} and url ${b64.replace(/\+/g, '-').replace(/\//g, '_')}`;
        const out = redactKnownSecrets(text, [key]);
        assert.ok(out.includes(REDACTED), `${prefix}|${suffix}`);
        for (const f of secretForms(key)) assert.ok(!out.includes(f), `${prefix}|${suffix}: ${f}`);
      }
    }
    for (const form of ALL_KEY_ECHO_FORMS)
      assert.ok(!redactKnownSecrets(`x ${keyEcho(key, form)} y`, [key]).includes(keyEcho(key, form).slice(-10)), form);
    assert.equal(redactKnownSecrets(`q=${encodeURIComponent(key)}`, [key]), `q=${REDACTED}`);
  });

  it('leaves text that holds no key alone (the session write path), and shown text loses credential shapes too', () => {
    const text = 'apiKey=process.env.OPENAI_API_KEY; base64 aGVsbG8gd29ybGQ= stays';
    assert.equal(redactKnownSecrets(text, ['sk-some-other-key-123456']), text);
    assert.match(redact('Authorization: Bearer abcdefghijklmnop'), /Bearer \[redacted\]$/);
  });

  it('is linear on hostile input (a long unbroken string with a known key)', () => {
    const key = 'sk-linear-key-0123456789abcdef';
    const text = 'A'.repeat(2_000_000) + key + 'B'.repeat(2_000_000);
    const out = redact(text, [key]);
    assert.equal(out.length, text.length - key.length + REDACTED.length);
  });
});

describe('summarizer limits and echoed keys', function () {
  let server: FakeProviderServer;
  beforeEach(async () => {
    server = await startFakeProvider();
  });
  afterEach(async () => {
    await server.stop();
  });

  for (const provider of ['openai', 'anthropic'] as const) {
    for (const stream of [true, false]) {
      const mode = `${provider}, ${stream ? 'streamed' : 'not streamed'}`;
      const base = () => (provider === 'openai' ? server.openaiBaseURL : server.anthropicBaseURL);

      it(`${mode}: a successful answer echoing the key in every form comes back without it`, async () => {
        // No word of the messages (a provider name) in the key: 12 characters of a key are redacted whatever separates them.
        const key = `sk-${stream ? 's' : 'n'}-echo-abcdef0123456789-${provider.length}`;
        const s = createSummarizer({ provider, apiKey: key, baseURL: base(), stream, env: {}, retry: FAST_RETRY });
        server.script({ type: 'echoKey', text: '## Goal\n- Ship' });
        const r = await s.summarize(request());
        assert.match(r.text, /## Goal/);
        for (const form of ALL_KEY_ECHO_FORMS) assert.match(r.text, new RegExp(`- ${form}: [^\\n]*\\[redacted\\]`), form);
        for (const f of [...secretForms(key), ...ALL_KEY_ECHO_FORMS.map((form) => keyEcho(key, form))]) assert.ok(!r.text.includes(f), f);
      });

      it(`${mode}: a dripping provider fails at the deadline with a message saying so`, async () => {
        const s = createSummarizer({
          provider,
          apiKey: 'sk-drip-0000000000',
          baseURL: base(),
          stream,
          env: {},
          deadlineMs: 600,
          retry: FAST_RETRY,
        });
        server.setFallback({ type: 'drip', intervalMs: 20 });
        const err = await rejection(s.summarize(request()));
        assert.ok(err instanceof DeadlineError, String(err));
        assert.ok(err instanceof SummarizationError && !err.retryable);
        assert.match(err.message, /no complete answer within 0\.6 s \(the summarization deadline/);
      });

      it(`${mode}: an answer over the cap fails with a message saying so, without retries`, async () => {
        const s = createSummarizer({
          provider,
          apiKey: 'sk-huge-0000000000',
          baseURL: base(),
          stream,
          env: {},
          maxAnswerChars: 5000,
          retry: FAST_RETRY,
        });
        server.setFallback({ type: 'huge', chars: 2_000_000 });
        const err = await rejection(s.summarize(request()));
        assert.ok(err instanceof AnswerTooLargeError, String(err));
        assert.match(err.message, /larger than 5,000 characters \(the answer-size cap/);
        assert.equal(server.requests.length, 1);
      });
    }
  }

  it('an answer just under the cap is accepted', async () => {
    const s = createSummarizer({
      provider: 'openai',
      apiKey: 'sk-cap-ok-000000000',
      baseURL: server.openaiBaseURL,
      env: {},
      maxAnswerChars: 5000,
    });
    server.script({ type: 'huge', chars: 4900 });
    assert.equal((await s.summarize(request())).text.length, 4900 - 1);
  });

  it('an invalid base URL fails before any request, without repeating it', () => {
    assert.equal(baseURLProblem('https://api.example.com/v1'), undefined);
    assert.equal(baseURLProblem('http://127.0.0.1:8080'), undefined);
    for (const url of ['nope', 'javascript:alert(1)', 'file:///etc/passwd', 'https://u:secret-pw@api.example.com']) {
      assert.ok(baseURLProblem(url), url);
      assert.throws(
        () => createSummarizer({ provider: 'openai', apiKey: 'sk-url-000000000', baseURL: url, env: {} }),
        (e: unknown) => e instanceof SummarizationError && /base URL/.test(e.message) && !e.message.includes('secret-pw'),
      );
    }
    assert.throws(
      () => createSummarizer({ provider: 'anthropic', env: { ANTHROPIC_API_KEY: 'sk-x-00000000', ANTHROPIC_BASE_URL: 'ftp://x' } }),
      /base URL must be an http/,
    );
    assert.equal(server.requests.length, 0);
  });

  it('one rule for the base URL (the CLI, the extension, the summarizers): configured, else the variable, else none; blank is none', () => {
    const env = { OPENAI_BASE_URL: ' http://127.0.0.1:9/v1// ' };
    const local = { url: 'http://127.0.0.1:9/v1', source: 'OPENAI_BASE_URL' };
    assert.deepEqual(chosenBaseURL({ provider: 'openai', configured: 'https://proxy.example/v1/', configuredAs: '--base-url', env }), {
      url: 'https://proxy.example/v1',
      source: '--base-url',
    });
    // An empty or blank configured value (the setting's default, `--base-url ''`) is none: the variable applies.
    for (const blank of [undefined, '', '  \t'])
      assert.deepEqual(chosenBaseURL({ provider: 'openai', configured: blank, env }), local, JSON.stringify(blank));
    for (const variable of [undefined, '', ' '])
      assert.deepEqual(chosenBaseURL({ provider: 'anthropic', configured: '', env: { ANTHROPIC_BASE_URL: variable } }), {});
    assert.deepEqual(chosenBaseURL({ configured: '', env }), {}, 'without a provider no variable is read');
    assert.deepEqual(chosenBaseURL({ provider: 'openai', configured: 'ftp://x', configuredAs: '--base-url', env }), {
      source: '--base-url',
      problem: 'must be an http:// or https:// URL (got ftp:)',
    });
    // A long run of slashes is dropped in linear time.
    const slashes = `http://127.0.0.1:9/v1${'/'.repeat(200_000)}x${'/'.repeat(200_000)}`;
    assert.equal(chosenBaseURL({ configured: slashes, env: {} }).url, slashes.slice(0, -200_000));
    // The summarizers read it the same way: a blank base URL is the variable's.
    assert.throws(
      () => createSummarizer({ provider: 'openai', apiKey: 'sk-url-000000000', baseURL: '  ', env: { OPENAI_BASE_URL: 'ftp://x' } }),
      /base URL must be an http/,
    );
  });
});
