/** compact / navigate operations: hooks, failures, aborts and concurrent writers. */
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fixturePath } from '../../support/fixtures';
import { compactSession, proposeCompaction, applyCompaction } from '../../../src/engine/operations/compact';
import { navigateSession, ARBOR_LEAF_MARKER } from '../../../src/engine/operations/navigate';
import { HookBus, type HookFailure } from '../../../src/engine/hooks/hookBus';
import { loadSession } from '../../../src/engine/session/loadSession';
import { StaleSessionError } from '../../../src/engine/session/writer';
import { createOfflineSummarizer } from '../../../src/engine/summarize/providers/offline';
import { SummarizationError, type Summarizer, type SummaryRequest } from '../../../src/engine/summarize/summarizer';

const env = { PI_CODING_AGENT_DIR: path.join(os.tmpdir(), 'arbor-ops-no-pi') };

async function tempSession(name = '03-tree.jsonl'): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-ops-'));
  const file = path.join(dir, name);
  await fsp.copyFile(fixturePath('pi-oracle', 'fixtures', name), file);
  return file;
}

/** A summarizer whose behaviour each test scripts; it records what it was asked. */
function scripted(behave: (req: SummaryRequest, signal?: AbortSignal) => Promise<string>): Summarizer & { requests: SummaryRequest[] } {
  const requests: SummaryRequest[] = [];
  return {
    provider: 'test',
    model: 'scripted',
    contextWindow: 32768,
    maxOutputTokens: 4096,
    requests,
    async summarize(req, signal) {
      requests.push(req);
      const text = await behave(req, signal);
      return { text, usage: { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 120, cost: { total: 0.01 } } };
    },
  };
}

describe('compact operation', () => {
  it('summarizes history and the split turn prefix, sums usage, appends file lists and details', async () => {
    const file = await tempSession('02-compaction.jsonl');
    const s = scripted(async (req) => `## Goal\n- from ${req.kind}`);
    const r = await compactSession({
      file,
      summarizer: s,
      compaction: { keepRecentTokens: 1000 },
      estimator: 'chars',
      env,
      customInstructions: 'Focus on tests.',
    });
    assert.equal(r.kind, 'compacted');
    if (r.kind !== 'compacted') return;
    assert.deepEqual(
      s.requests.map((q) => q.kind),
      ['update', 'turnPrefix'],
    );
    assert.ok(s.requests[0].previousSummary && s.requests[0].prompt.includes(s.requests[0].previousSummary));
    assert.ok(s.requests.every((q) => q.prompt.includes('Focus on tests.')));
    assert.notEqual(s.requests[0].requestId, s.requests[1].requestId);
    assert.match(r.entry.summary, /from update[\s\S]*---[\s\S]*from turnPrefix[\s\S]*<read-files>/);
    assert.deepEqual(r.entry.usage, { input: 200, output: 40, cacheRead: 0, cacheWrite: 0, totalTokens: 240, cost: { total: 0.02 } });
    assert.deepEqual(r.entry.details, {
      readFiles: ['data/records.csv', 'docs/guide-1.md', 'docs/guide-3.md'],
      modifiedFiles: ['README.md', 'src/index.js', 'src/math.js', 'test/math.test.js'],
    });
    assert.equal(r.entry.tokensBefore, 4218); // Pi 1.6's value for this leaf (golden16)
  });

  it('a failing, empty or aborted summary writes nothing and reports session_compact_failed', async () => {
    for (const failure of ['error', 'abort'] as const) {
      const file = await tempSession();
      const before = await fsp.readFile(file);
      const hooks = new HookBus();
      const failed: string[] = [];
      hooks.on('session_compact_failed', (e) => void failed.push(`${e.aborted}:${e.error.message}`));
      const controller = new AbortController();
      const s = scripted(async () => {
        if (failure === 'abort') {
          controller.abort();
          throw Object.assign(new Error('aborted'), { name: 'AbortError' });
        }
        throw new SummarizationError('the model returned an empty answer');
      });
      await assert.rejects(
        compactSession({ file, summarizer: s, hooks, signal: controller.signal, compaction: { keepRecentTokens: 1000 }, env }),
      );
      assert.deepEqual(await fsp.readFile(file), before, `${failure}: file unchanged`);
      assert.equal(failed.length, 1);
      assert.equal(failed[0].startsWith('true'), failure === 'abort');
    }
  });

  it('hooks: cancel, supply the compaction (fromHook), and a throwing handler does not stop the default', async () => {
    const file = await tempSession();
    const hooks = new HookBus();
    const failures: HookFailure[] = [];
    hooks.onError = (f) => failures.push(f);
    hooks.on('session_before_compact', () => {
      throw new Error('broken extension');
    });
    const cancel = hooks.on('session_before_compact', (e) => {
      assert.equal(e.reason, 'manual');
      assert.ok(e.preparation.messagesToSummarize.length + e.preparation.turnPrefixMessages.length > 0);
      return { cancel: true };
    });
    const s = scripted(async () => 'unused');
    const before = await fsp.readFile(file);
    assert.equal((await compactSession({ file, summarizer: s, hooks, compaction: { keepRecentTokens: 1000 }, env })).kind, 'cancelled');
    assert.deepEqual(await fsp.readFile(file), before);
    cancel.dispose();
    hooks.on('session_before_compact', (e) => ({
      compaction: { summary: 'hook summary', firstKeptEntryId: e.preparation.firstKeptEntryId, tokensBefore: 7, details: { custom: true } },
    }));
    const compacted: boolean[] = [];
    hooks.on('session_compact', (e) => void compacted.push(e.fromHook));
    const r = await compactSession({ file, summarizer: s, hooks, compaction: { keepRecentTokens: 1000 }, env });
    assert.equal(r.kind, 'compacted');
    if (r.kind !== 'compacted') return;
    assert.equal(r.entry.fromHook, true);
    assert.equal(r.entry.summary, 'hook summary');
    assert.equal(r.entry.tokensBefore, 7);
    assert.equal(s.requests.length, 0);
    assert.deepEqual(compacted, [true]);
    assert.equal(failures.length, 2);
    assert.match(String((failures[0].error as Error).message), /broken extension/);
  });

  it('refuses to write when the file gained entries while the summary was generated', async () => {
    const file = await tempSession();
    const s = scripted(async () => {
      await fsp.appendFile(
        file,
        JSON.stringify({
          type: 'custom',
          id: 'c0ffee00',
          parentId: '2cbb1a68',
          timestamp: new Date().toISOString(),
          customType: 'pi-wrote-this',
        }) + '\n',
      );
      return '## Goal\n- x';
    });
    const proposal = await proposeCompaction({ file, summarizer: s, compaction: { keepRecentTokens: 1000 }, env });
    assert.equal(proposal.kind, 'proposal');
    if (proposal.kind !== 'proposal') return;
    const size = (await fsp.stat(file)).size;
    await assert.rejects(applyCompaction(proposal), StaleSessionError);
    assert.equal((await fsp.stat(file)).size, size);
  });

  it('says there is nothing to compact instead of writing an empty compaction', async () => {
    const file = await tempSession();
    const r = await compactSession({ file, summarizer: createOfflineSummarizer(), compaction: { keepRecentTokens: 1_000_000 }, env });
    assert.equal(r.kind, 'nothing');
  });
});

describe('navigate operation', () => {
  it('without a summary: Arbor leaf marker under the target, label on it, Pi-visible leaf', async () => {
    const file = await tempSession();
    const r = await navigateSession({ file, targetId: '88f696d0', summarize: false, label: 'back', env });
    assert.ok(!('kind' in r));
    if ('kind' in r) return;
    assert.equal(r.written[0].type, 'custom');
    assert.equal((r.written[0] as { customType: string }).customType, ARBOR_LEAF_MARKER);
    assert.equal(r.written[0].parentId, '88f696d0');
    assert.equal((r.written[1] as { targetId: string }).targetId, '88f696d0');
    const index = await loadSession(file);
    assert.equal(index.labelOf('88f696d0'), 'back');
    assert.deepEqual(
      index
        .pathTo(index.leafIndex)
        .map((i) => index.record(i).id)
        .slice(-3),
      ['88f696d0', r.written[0].id, r.written[1].id],
    );
  });

  it('hooks may cancel, override the label and instructions, or supply the summary', async () => {
    const file = await tempSession();
    const hooks = new HookBus();
    const seen: unknown[] = [];
    hooks.on('session_before_tree', (e) => {
      seen.push(e.preparation.commonAncestorId);
      return { label: 'from-hook', customInstructions: 'hooked focus' };
    });
    const s = scripted(async () => '## Goal\n- explored');
    const r = await navigateSession({ file, targetId: '8c5b7af4', summarize: true, summarizer: s, hooks, env });
    if ('kind' in r) assert.fail('navigated');
    assert.deepEqual(seen, ['88f696d0']);
    assert.ok(s.requests[0].prompt.includes('hooked focus'));
    assert.equal(s.requests[0].kind, 'branch');
    const index = await loadSession(file);
    assert.equal(index.labelOf(r.summaryEntry!.id), 'from-hook');
    assert.equal(r.summaryEntry!.fromId, '2cbb1a68');

    hooks.on('session_before_tree', () => ({ cancel: true }));
    const before = await fsp.readFile(file);
    const c = await navigateSession({ file, targetId: '12ff783a', summarize: true, summarizer: s, hooks, env });
    assert.ok('kind' in c && c.kind === 'cancelled');
    assert.deepEqual(await fsp.readFile(file), before);
  });

  it('a failing branch summary writes nothing', async () => {
    const file = await tempSession();
    const before = await fsp.readFile(file);
    const s = scripted(async () => {
      throw new SummarizationError('length stop');
    });
    await assert.rejects(navigateSession({ file, targetId: '8c5b7af4', summarize: true, summarizer: s, env }), SummarizationError);
    assert.deepEqual(await fsp.readFile(file), before);
  });
});
