/**
 * Issue #22 item 3 on the branch side: the branch left behind by a jump is loaded a batch at a time, newest first,
 * until the budget (engine/branch/loadBranchPlan.ts), and the navigate operation (the extension's Jump Here, the CLI's
 * navigate) works on an index that never reads a line synchronously.
 */
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { streamSession } from '../../../src/engine/session/streamSession';
import { loadSession } from '../../../src/engine/session/loadSession';
import { countingOpener } from '../../support/countingOpener';
import { parsedMessages } from '../../support/parsedMessages';
import { EntryNotLoadedError } from '../../../src/engine/session/entryNotLoaded';
import type { SessionIndex } from '../../../src/engine/session/sessionIndex';
import { BranchMessageWalk, planBranch } from '../../../src/engine/branch/planBranch';
import { loadBranchPlan } from '../../../src/engine/branch/loadBranchPlan';
import { estimatorByName } from '../../../src/engine/tokens/estimators';
import { applyNavigation, proposeNavigation } from '../../../src/engine/operations/navigate';
import { HookBus } from '../../../src/engine/hooks/hookBus';
import { createSummarizer } from '../../../src/engine/summarize/providers/createSummarizer';
import { DEFAULT_PI_SETTINGS } from '../../../src/engine/settings/piSettings';
import { fixturePath } from '../../support/fixtures';
import { loadWhole } from '../../support/loadWhole';
import { streamedCopy } from '../../support/streamedCopy';

const ENTRIES = 3000;
const chars = estimatorByName('chars');

const id = (i: number) => `m${String(i).padStart(6, '0')}`;

/** A long main line (user, assistant with a write call, tool result), a branch summary and a context edit in it. */
function sessionLines(): string[] {
  const lines = [JSON.stringify({ type: 'session', version: 3, id: 'branch', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/tmp' })];
  let parent: string | null = null;
  for (let i = 0; i < ENTRIES; i++) {
    const text = `entry ${i} `.repeat(30 + (i % 20));
    const base = { id: id(i), parentId: parent, timestamp: '2026-01-01T00:00:00.000Z' };
    if (i === 1500)
      lines.push(JSON.stringify({ type: 'branch_summary', ...base, fromId: id(3), summary: 'earlier', details: { readFiles: ['r.txt'] } }));
    else if (i === ENTRIES - 5)
      lines.push(JSON.stringify({ type: 'context_edit', ...base, targetId: id(ENTRIES - 8), replacement: { content: 'edited' } }));
    else if (i % 3 === 0)
      lines.push(JSON.stringify({ type: 'message', ...base, message: { role: 'user', content: [{ type: 'text', text }], timestamp: i } }));
    else if (i % 3 === 1) {
      const content = [
        { type: 'text', text },
        { type: 'toolCall', id: `c${i}`, name: 'write', arguments: { path: `f${i}.txt`, content: 'x' } },
      ];
      lines.push(JSON.stringify({ type: 'message', ...base, message: { role: 'assistant', content, timestamp: i } }));
    } else {
      const message = {
        role: 'toolResult',
        toolCallId: `c${i - 1}`,
        toolName: 'write',
        content: [{ type: 'text', text }],
        isError: false,
        timestamp: i,
      };
      lines.push(JSON.stringify({ type: 'message', ...base, message }));
    }
    parent = id(i);
  }
  return lines;
}

describe('the branch left behind, loaded a batch at a time (issue #22 item 3)', function () {
  this.timeout(120_000);
  let dir: string;
  let file: string;
  let size: number;
  let reference: SessionIndex;
  before(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-branchloads-'));
    file = path.join(dir, 's.jsonl');
    await fsp.writeFile(file, sessionLines().join('\n') + '\n');
    size = (await fsp.stat(file)).size;
    reference = (await loadWhole(await streamSession(file)))!;
  });
  after(async () => {
    await fsp.rm(dir, { recursive: true, force: true });
  });

  for (const budget of [0, 50, 3000, 40_000]) {
    it(`plans as the pure planBranch over the loaded session does (budget ${budget}), holding no message after`, async () => {
      const index = (await streamSession(file))!;
      const counter = countingOpener();
      const options = { targetId: id(0), budget, estimator: chars };
      const plan = await loadBranchPlan(index, { ...options, open: counter.open });
      const expected = planBranch(reference, options);
      assert.deepEqual(plan, expected);
      assert.equal(parsedMessages(index), 0, 'the batches were dropped (keep: false)');
      // Newest first until the budget: a small budget reads a batch or two of the newest lines, not the branch.
      if (budget === 50) assert.ok(counter.bytes < size / 8, `${counter.bytes} bytes read of ${size}`);
      // No budget: every message but the tool results, 256 entries a time.
      if (budget === 0) assert.ok(counter.opens >= Math.floor(ENTRIES / 256), `${counter.opens} loads`);
    });
  }

  it('a batch loads the lines the walk reads (no tool result: carried by its call), at most 256 entries and 8 MB', async () => {
    const index = (await streamSession(file))!;
    const branch = Array.from({ length: index.entryCount - 1 }, (_, i) => i + 1);
    const walk = new BranchMessageWalk(index, branch, 0, chars);
    const batch = walk.nextBatch(256, 8 * 1024 * 1024);
    assert.equal(batch.count, 256);
    assert.ok(
      batch.reads.length > 150 && batch.reads.every((i) => index.record(i).type === 'message' && index.record(i).role !== 'toolResult'),
    );
    assert.ok(
      batch.reads[0] >= branch[branch.length - 2] && batch.reads.every((i, k) => k === 0 || i < batch.reads[k - 1]),
      'newest first',
    );
    const small = walk.nextBatch(256, 1000);
    assert.ok(small.reads.length >= 1 && small.count < 256, 'a byte limit ends a batch (at least one line)');
    const plan = await loadBranchPlan(index, { targetId: id(0), budget: 0, estimator: chars });
    assert.ok(plan.modifiedFiles.includes('f1.txt') && plan.readFiles.includes('r.txt'), 'file lists from calls and the earlier summary');
    const edited = plan.prepared.find((m) => m.entryIndex === index.indexOf(id(ENTRIES - 8)))?.message;
    assert.deepEqual(edited && 'content' in edited ? edited.content : undefined, [{ type: 'text', text: 'edited' }]);
  });

  it('an aborted signal stops the walk before a read', async () => {
    const index = (await streamSession(file))!;
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await assert.rejects(loadBranchPlan(index, { targetId: id(0), budget: 0, estimator: chars, signal: controller.signal }), /stop/);
    assert.equal(parsedMessages(index), 0);
  });

  it('Jump Here on a streamed session without sync reads: the same proposal and entries as on the small file', async () => {
    const original = fixturePath('sessions', 'hostile', 'base.jsonl');
    const streamed = await streamedCopy(original, await fsp.mkdtemp(path.join(dir, 'jump-')));
    const small = path.join(await fsp.mkdtemp(path.join(dir, 'jump-')), path.basename(original));
    await fsp.copyFile(original, small);
    const summarizer = createSummarizer({ provider: 'offline' });
    const jump = async (sessionFile: string) => {
      const index = await loadSession(sessionFile);
      const seen: string[] = [];
      const hooks = new HookBus();
      hooks.on('session_before_tree', ({ preparation }) => {
        seen.push(...preparation.entriesToSummarize.map((e) => `${e.id}:${e.type}`));
        return undefined;
      });
      const target = index.record(0).id;
      const options = { file: sessionFile, index, targetId: target, summarize: true, summarizer, hooks, piSettings: DEFAULT_PI_SETTINGS };
      const proposal = await proposeNavigation(options);
      if (proposal.kind !== 'proposal') throw new Error(proposal.reason);
      const applied = await applyNavigation(proposal, { hooks });
      return { index, proposal, applied, seen };
    };
    const a = await jump(small);
    const b = await jump(streamed);
    // The streamed index reads no line synchronously: a message not loaded throws.
    const onDisk = b.proposal.plan.entryIndexes.find((i) => !b.index.isLoaded(i));
    assert.ok(onDisk !== undefined, 'the branch has a message line on disk');
    assert.throws(() => b.index.entry(onDisk), EntryNotLoadedError);
    assert.deepEqual(b.seen, a.seen);
    assert.ok(b.seen.length > 0);
    assert.equal(b.proposal.summary?.text, a.proposal.summary?.text);
    assert.deepEqual(b.proposal.summary?.retention, a.proposal.summary?.retention);
    assert.deepEqual(b.proposal.plan.prepared, a.proposal.plan.prepared);
    assert.equal(b.applied.summaryEntry?.summary, a.applied.summaryEntry?.summary);
    assert.equal(b.applied.newLeafId, a.applied.newLeafId);
  });

  it('the navigate operation loading the file itself gives an index without sync reads', async () => {
    const streamed = await streamedCopy(fixturePath('sessions', 'hostile', 'base.jsonl'), await fsp.mkdtemp(path.join(dir, 'own-')));
    const index = await loadSession(streamed);
    const user = Array.from({ length: index.entryCount }, (_, i) => i).find((i) => index.record(i).role === 'user')!;
    const proposal = await proposeNavigation({
      file: streamed,
      targetId: index.record(user).id,
      summarize: false,
      piSettings: DEFAULT_PI_SETTINGS,
    });
    if (proposal.kind !== 'proposal') throw new Error(proposal.reason);
    assert.equal(typeof proposal.editorText, 'string', "a user message target's text, loaded for the landing");
    const held = proposal.index;
    const onDisk = Array.from({ length: held.entryCount }, (_, i) => i).find((i) => !held.isLoaded(i))!;
    assert.throws(() => held.entry(onDisk), EntryNotLoadedError);
  });
});
