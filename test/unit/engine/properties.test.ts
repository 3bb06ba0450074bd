/** Property-based tests of the engine's invariants on generated sessions. */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sessionArb, renderSession } from '../../support/arbSession';
import { indexSessionBuffer, loadSession } from '../../../src/engine/session/loadSession';
import { planCompaction, entryIdsAt } from '../../../src/engine/compaction/planCompaction';
import { buildContext } from '../../../src/engine/context/buildContext';
import { charsEstimator } from '../../../src/engine/tokens/estimators';
import { appendEntries } from '../../../src/engine/session/writer';
import { isTurnStartAt } from '../../../src/engine/compaction/cutPoint';

const settings = (keepRecentTokens: number) => ({ enabled: true, reserveTokens: 1000, keepRecentTokens });
const index = (text: string, validation: 'full' | 'fast' = 'full') => indexSessionBuffer('prop.jsonl', Buffer.from(text), { validation });

describe('engine properties', () => {
  it('every cut point is valid: never a tool result; a split turn starts at a turn start; the pieces cover the span', () => {
    fc.assert(
      fc.property(sessionArb, fc.nat({ max: 3000 }), (steps, keep) => {
        const ix = index(renderSession(steps));
        const plan = planCompaction(ix, { settings: settings(keep), estimator: charsEstimator });
        if (plan.kind === 'nothing') return;
        const p = plan.projection;
        const firstKept = ix.record(ix.indexOf(plan.firstKeptEntryId));
        assert.notEqual(firstKept.role, 'toolResult');
        if (plan.isSplitTurn) {
          const pos = p.entries.indexOf(ix.indexOf(plan.turnStartEntryId!));
          assert.ok(isTurnStartAt(p, pos));
          assert.ok(plan.turnPrefixPositions.length > 0 || plan.summarizePositions.length > 0);
        }
        const firstKeptPos = p.entries.indexOf(ix.indexOf(plan.firstKeptEntryId));
        for (const pos of [...plan.summarizePositions, ...plan.turnPrefixPositions]) assert.ok(pos < firstKeptPos);
        assert.deepEqual([...plan.readFiles].sort(), plan.readFiles);
        for (const f of plan.readFiles) assert.ok(!plan.modifiedFiles.includes(f));
      }),
      { numRuns: 400 },
    );
  });

  it('fast and full indexing give the same tree, context and plan', () => {
    fc.assert(
      fc.property(sessionArb, fc.nat({ max: 3000 }), (steps, keep) => {
        const text = renderSession(steps);
        const a = index(text, 'full');
        const b = index(text, 'fast');
        assert.equal(a.entryCount, b.entryCount);
        assert.equal(a.leafId, b.leafId);
        const ca = buildContext(a).messages.map((m) => [a.record(m.entryIndex).id, m.message.role]);
        const cb = buildContext(b).messages.map((m) => [b.record(m.entryIndex).id, m.message.role]);
        assert.deepEqual(ca, cb);
        const pa = planCompaction(a, { settings: settings(keep), estimator: charsEstimator });
        const pb = planCompaction(b, { settings: settings(keep), estimator: charsEstimator });
        assert.equal(pa.kind, pb.kind);
        if (pa.kind === 'plan' && pb.kind === 'plan') {
          assert.equal(pa.firstKeptEntryId, pb.firstKeptEntryId);
          assert.equal(pa.tokensBefore, pb.tokensBefore);
          assert.deepEqual(entryIdsAt(pa.projection, pa.summarizePositions), entryIdsAt(pb.projection, pb.summarizePositions));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('after a compaction the context is the summary, then the kept messages, then nothing else', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-prop-'));
    let n = 0;
    await fc.assert(
      fc.asyncProperty(sessionArb, fc.nat({ max: 2000 }), async (steps, keep) => {
        const file = path.join(dir, `s${n++}.jsonl`);
        await fsp.writeFile(file, renderSession(steps));
        const ix = await loadSession(file);
        const plan = planCompaction(ix, { settings: settings(keep), estimator: charsEstimator });
        if (plan.kind === 'nothing') return;
        const p = plan.projection;
        const firstKeptPos = p.entries.indexOf(ix.indexOf(plan.firstKeptEntryId));
        assert.ok(firstKeptPos >= 0, 'the first kept entry is on the projected path');
        const kept: string[] = [];
        for (let pos = firstKeptPos; pos < p.length; pos++) {
          for (const m of p.messages(pos)) if (m.role !== 'system') kept.push(ix.record(p.entries[pos]).id);
        }
        await appendEntries(ix, [
          { type: 'compaction', summary: 'S', firstKeptEntryId: plan.firstKeptEntryId, tokensBefore: plan.tokensBefore },
        ]);
        const after = buildContext(ix).messages;
        assert.equal(after[0].message.role, 'compactionSummary');
        assert.deepEqual(
          after.slice(1).map((m) => ix.record(m.entryIndex).id),
          kept,
        );
      }),
      { numRuns: 150 },
    );
  });

  it('the writer never changes existing bytes', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-prop-w-'));
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        sessionArb,
        fc.array(fc.string({ maxLength: 200 }), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        async (steps, payloads, cutTail) => {
          const file = path.join(dir, `w${n++}.jsonl`);
          let text = renderSession(steps);
          if (cutTail && text.trimEnd().includes('\n')) text = text.slice(0, text.length - 7); // a writer died mid-line
          await fsp.writeFile(file, text);
          const original = await fsp.readFile(file);
          const ix = await loadSession(file);
          // A torn tail here is a dead writer's (written just above): a short quiet window keeps 100 runs fast.
          for (const p of payloads)
            await appendEntries(ix, [{ type: 'custom', customType: 'prop', data: { p } }], { incompleteLine: { quietMs: 20 } });
          const now = await fsp.readFile(file);
          assert.deepEqual(now.subarray(0, original.length), original);
          const reloaded = await loadSession(file);
          assert.equal(reloaded.leafId, ix.leafId);
          assert.equal((reloaded.entry(reloaded.leafIndex) as { data: { p: string } }).data.p, payloads[payloads.length - 1]);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('streamed loading', () => {
  it('reading in small chunks (lines across chunk ends, lines longer than the buffer) gives what a whole-file read gives', async () => {
    const { streamSession } = await import('../../../src/engine/session/streamSession');
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-stream-'));
    let n = 0;
    await fc.assert(
      fc.asyncProperty(sessionArb, fc.integer({ min: 16, max: 700 }), fc.boolean(), async (steps, chunkSize, cutTail) => {
        let text = renderSession(steps);
        if (cutTail && text.trimEnd().includes('\n')) text = text.slice(0, text.length - 5);
        const file = path.join(dir, `s${n++}.jsonl`);
        await fsp.writeFile(file, text);
        const whole = index(text, 'full');
        const streamed = (await streamSession(file, { chunkSize }))!;
        assert.equal(streamed.entryCount, whole.entryCount);
        assert.equal(streamed.leafId, whole.leafId);
        assert.equal(streamed.committedSize, whole.committedSize);
        assert.equal(streamed.lineCount, whole.lineCount);
        assert.deepEqual(
          streamed.diagnostics.map((d) => d.line),
          whole.diagnostics.map((d) => d.line),
        );
        // File-op hints decided from the bytes (before any entry is parsed) never miss one the parsed entry has.
        const ids = Array.from({ length: streamed.entryCount }, (_, i) => i);
        // Many at once (lines read back in file order, neighbours in one read) and one at a time decide the same.
        await streamed.decideFileOpHints(ids.filter((i) => i % 2 === 0));
        for (const i of ids) if (i % 2 === 1) await streamed.decideFileOpHints([i]);
        for (const i of ids) {
          if (whole.mayHoldFileOps(i)) assert.equal(streamed.mayHoldFileOps(i), true, `entry ${i}: a file operation hint was missed`);
        }
        // Loading a few at a time gives what parsing the whole file gives.
        for (let at = 0; at < ids.length; at += 3) await streamed.load(ids.slice(at, at + 3));
        for (let i = 0; i < whole.entryCount; i++) {
          assert.equal(streamed.record(i).line, whole.record(i).line);
          assert.deepEqual(streamed.entry(i), whole.entry(i));
        }
        // Loading many entries at once (lines read back in blocks) gives the same.
        const bulk = (await streamSession(file, { chunkSize }))!;
        await bulk.load(ids.filter((i) => i % 3 !== 1));
        await bulk.load(ids.filter((i) => i % 3 === 1));
        for (const i of ids) assert.deepEqual(bulk.entry(i), whole.entry(i));
        const ca = buildContext(whole).messages.map((m) => m.message);
        const cb = buildContext(streamed).messages.map((m) => m.message);
        assert.deepEqual(cb, ca);
      }),
      { numRuns: 200 },
    );
  });
});
