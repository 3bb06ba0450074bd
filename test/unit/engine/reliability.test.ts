/**
 * Reliability under real conditions: another process appending as Pi does
 * while Arbor compacts and navigates; provider faults at every stage through
 * the real SDKs against the fake provider server. Nothing torn, nothing
 * interleaved, nothing written on failure.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fixturePath, repoRoot } from '../../support/fixtures';
import { startFakeProvider, type Behaviour, type FakeProviderServer } from '../../support/fakeProvider';
import { compactSession } from '../../../src/engine/operations/compact';
import { navigateSession } from '../../../src/engine/operations/navigate';
import { loadSession } from '../../../src/engine/session/loadSession';
import { StaleSessionError } from '../../../src/engine/session/writer';
import { createOfflineSummarizer } from '../../../src/engine/summarize/providers/offline';
import { createSummarizer } from '../../../src/engine/summarize/providers/createSummarizer';

const env = { PI_CODING_AGENT_DIR: path.join(os.tmpdir(), 'arbor-rel-no-pi') };

async function tempSession(name = '03-tree.jsonl'): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-rel-'));
  const file = path.join(dir, name);
  await fsp.copyFile(fixturePath('pi-oracle', 'fixtures', name), file);
  return file;
}

describe('reliability', function () {
  it('a concurrent Pi-like writer: no torn or interleaved line, Arbor sees its entries, Pi reopens the file', async () => {
    const file = await tempSession();
    const writer = spawn(process.execPath, [path.join(repoRoot, 'test', 'support', 'piLikeWriter.js'), file, '150', '2'], {
      stdio: 'ignore',
    });
    const done = new Promise<void>((resolve) => writer.on('exit', () => resolve()));
    const summarizer = createOfflineSummarizer();
    let compacted = 0;
    let navigated = 0;
    let refused = 0;
    let running = true;
    void done.then(() => (running = false));
    while (running || compacted + navigated < 6) {
      try {
        if ((compacted + navigated + refused) % 2 === 0) {
          const r = await compactSession({ file, summarizer, compaction: { keepRecentTokens: 500 }, env });
          if (r.kind === 'compacted') compacted++;
        } else {
          const index = await loadSession(file);
          const users = index.pathTo(index.leafIndex).filter((i) => index.record(i).role === 'user');
          const target = index.record(users[Math.max(0, users.length - 2)]).id;
          const r = await navigateSession({ file, index, targetId: target, summarize: true, summarizer, env });
          if (!('kind' in r)) navigated++;
        }
      } catch (err) {
        if (!(err instanceof StaleSessionError)) throw err;
        refused++;
      }
      if (!running && compacted + navigated >= 6) break;
    }
    await done;
    const text = await fsp.readFile(file, 'utf8');
    assert.ok(text.endsWith('\n'));
    const lines = text.trimEnd().split('\n');
    for (const [k, line] of lines.entries()) assert.doesNotThrow(() => JSON.parse(line), `line ${k + 1} is torn or interleaved`);
    const index = await loadSession(file);
    assert.deepEqual(index.diagnostics, []);
    const concurrent = lines.filter((l) => {
      const e = JSON.parse(l);
      return (
        e.type === 'message' && e.message.role === 'user' && String(e.message.content?.[0]?.text ?? '').startsWith('concurrent message')
      );
    }).length;
    assert.equal(concurrent, 150);
    assert.ok(compacted >= 1 && navigated >= 1, `compacted ${compacted}, navigated ${navigated}, refused ${refused}`);
    // Pi (0.73.1) opens it and sees the same entries
    const { execFileSync } = await import('node:child_process');
    const pi = JSON.parse(
      execFileSync(process.execPath, [path.join(repoRoot, 'test', 'support', 'pi', 'piContext.mjs'), file], {
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      }),
    );
    assert.equal(pi.leafId, index.leafId);
  });

  describe('provider faults at every stage write nothing', () => {
    let server: FakeProviderServer;
    before(async () => (server = await startFakeProvider()));
    after(async () => server.stop());

    const faults: [string, Behaviour[]][] = [
      ['a 500 on every try', [{ type: 'status', status: 500 }]],
      ['a 429 storm', [{ type: 'status', status: 429, headers: { 'retry-after': '0' } }]],
      ['malformed JSON', [{ type: 'malformed' }]],
      ['a stream cut mid-way', [{ type: 'cut', text: '## Goal\n- half', pieces: 2 }]],
      ['an empty answer', [{ type: 'empty' }]],
      ['a length stop', [{ type: 'length' }]],
      ['a tool call', [{ type: 'toolCall' }]],
      ['a connection reset', [{ type: 'reset' }]],
    ];
    for (const provider of ['openai', 'anthropic'] as const) {
      for (const [name, behaviours] of faults) {
        it(`${provider}: ${name}`, async () => {
          const file = await tempSession();
          const before = await fsp.readFile(file);
          server.setFallback(behaviours[0]);
          const requestsBefore = server.requests.length;
          const summarizer = createSummarizer({
            provider,
            apiKey: 'sk-test-key-never-shown-0123456789',
            baseURL: provider === 'openai' ? server.openaiBaseURL : server.anthropicBaseURL,
            maxRetries: 2,
            retry: { baseDelayMs: 1, maxDelayMs: 2 },
            timeoutMs: 2000,
          });
          const err = await compactSession({ file, summarizer, compaction: { keepRecentTokens: 1000 }, env }).then(
            () => assert.fail('should fail'),
            (e: Error) => e,
          );
          assert.ok(!String(err.message).includes('sk-test-key'), 'the key never appears in the error');
          assert.ok(err.message.length > 0);
          assert.deepEqual(await fsp.readFile(file), before);
          const made = server.requests.length - requestsBefore;
          assert.ok(made >= 1 && made <= 3, `${made} requests (retries bounded)`);
          await assert.rejects(navigateSession({ file, targetId: '8c5b7af4', summarize: true, summarizer, env }));
          assert.deepEqual(await fsp.readFile(file), before);
          server.setFallback(null);
        });
      }
    }

    it('connection refused and a timeout', async () => {
      const file = await tempSession();
      const before = await fsp.readFile(file);
      const refused = createSummarizer({
        provider: 'openai',
        apiKey: 'k',
        baseURL: 'http://127.0.0.1:1/v1',
        maxRetries: 1,
        retry: { baseDelayMs: 1, maxDelayMs: 2 },
      });
      await assert.rejects(
        compactSession({ file, summarizer: refused, compaction: { keepRecentTokens: 1000 }, env }),
        /network|connect|refused/i,
      );
      server.setFallback({ type: 'hang' });
      const slow = createSummarizer({
        provider: 'anthropic',
        apiKey: 'k',
        baseURL: server.anthropicBaseURL,
        maxRetries: 1,
        retry: { baseDelayMs: 1, maxDelayMs: 2 },
        timeoutMs: 300,
      });
      await assert.rejects(compactSession({ file, summarizer: slow, compaction: { keepRecentTokens: 1000 }, env }), /time/i);
      server.setFallback(null);
      assert.deepEqual(await fsp.readFile(file), before);
    });

    it('an abort mid-stream stops at once and writes nothing', async () => {
      const file = await tempSession();
      const before = await fsp.readFile(file);
      server.setFallback({ type: 'stall', text: '## Goal\n- still thinking', pieces: 1 });
      const summarizer = createSummarizer({ provider: 'openai', apiKey: 'k', baseURL: server.openaiBaseURL, maxRetries: 3 });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      await assert.rejects(
        compactSession({ file, summarizer, compaction: { keepRecentTokens: 1000 }, env, signal: controller.signal }),
        (e: Error) => e.name === 'AbortError',
      );
      // AbortError, not the provider's timeout (the stall would last until it): the state proves the abort, not a time bound.
      server.setFallback(null);
      assert.deepEqual(await fsp.readFile(file), before);
    });
  });
});
