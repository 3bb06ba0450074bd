/**
 * Fuzzing the loader, planner and writer with malformed files: invalid JSON,
 * cut-off last lines, BOM, CRLF, duplicate ids, cycles, orphans, children
 * before parents, bytes that are not UTF-8, fields of the wrong type. Never a
 * crash or a hang; diagnostics name file and line; planning works on the valid
 * part; appending after a cut-off line corrupts nothing.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sessionArb, renderSession } from '../../support/arbSession';
import { mutate, mutationArb } from '../../support/sessionMutations';
import { indexSessionBuffer, loadSession } from '../../../src/engine/session/loadSession';
import { SessionFormatError } from '../../../src/engine/session/diagnostics';
import { planCompaction } from '../../../src/engine/compaction/planCompaction';
import { planBranch } from '../../../src/engine/branch/planBranch';
import { buildContext } from '../../../src/engine/context/buildContext';
import { charsEstimator } from '../../../src/engine/tokens/estimators';
import { appendEntries } from '../../../src/engine/session/writer';

function exercise(buf: Buffer, validation: 'full' | 'fast') {
  let index;
  try {
    index = indexSessionBuffer('fuzz.jsonl', buf, { validation });
  } catch (err) {
    assert.ok(err instanceof SessionFormatError, `only a bad header may stop loading: ${String(err)}`);
    assert.match((err as Error).message, /^fuzz\.jsonl:\d+: /);
    return undefined;
  }
  for (const d of index.diagnostics) {
    assert.equal(d.file, 'fuzz.jsonl');
    assert.ok(Number.isInteger(d.line) && d.line >= 1);
  }
  const ctx = buildContext(index);
  assert.ok(Array.isArray(ctx.messages));
  for (const keep of [1, 200, 5000]) {
    const plan = planCompaction(index, {
      settings: { enabled: true, reserveTokens: 100, keepRecentTokens: keep },
      estimator: charsEstimator,
    });
    assert.ok(plan.kind === 'plan' || plan.kind === 'nothing');
    if (plan.kind === 'plan') assert.notEqual(index.record(index.indexOf(plan.firstKeptEntryId)).role, 'toolResult');
  }
  if (index.entryCount > 1) {
    const target = index.record(Math.floor(index.entryCount / 2)).id;
    const b = planBranch(index, { targetId: target, budget: 500, estimator: charsEstimator });
    assert.ok(b.entryIndexes.length <= index.entryCount);
  }
  return index;
}

describe('fuzz: malformed session files', function () {
  it('loader, context and planners never crash or hang (2000 cases per indexing mode)', () => {
    fc.assert(
      fc.property(sessionArb, fc.array(mutationArb, { minLength: 1, maxLength: 6 }), (steps, mutations) => {
        const buf = mutate(renderSession(steps), mutations);
        exercise(buf, 'full');
        exercise(buf, 'fast');
      }),
      { numRuns: 2000 },
    );
  });

  it('appending after damage starts a new line, keeps every existing byte, and reloads', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-fuzz-'));
    let n = 0;
    await fc.assert(
      fc.asyncProperty(sessionArb, fc.array(mutationArb, { minLength: 1, maxLength: 4 }), async (steps, mutations) => {
        const buf = mutate(renderSession(steps), mutations);
        const file = path.join(dir, `f${n++}.jsonl`);
        await fsp.writeFile(file, buf);
        let index;
        try {
          index = await loadSession(file);
        } catch (err) {
          assert.ok(err instanceof SessionFormatError);
          return;
        }
        // A cut-off last line here is a dead writer's: a short quiet window (the default waits 2 s for a paused one).
        const [e] = await appendEntries(index, [{ type: 'custom', customType: 'fuzz-append' }], { incompleteLine: { quietMs: 20 } });
        const after = await fsp.readFile(file);
        assert.deepEqual(after.subarray(0, buf.length), buf);
        const reloaded = await loadSession(file);
        assert.equal(reloaded.leafId, e.id);
        assert.ok(reloaded.entryCount >= index.entryCount);
      }),
      { numRuns: 300 },
    );
  });

  it('a 10 MB line loads and plans', () => {
    const big = 'y'.repeat(10 * 1024 * 1024);
    const text =
      renderSession([{ kind: 'user', text: 'hi' }]) +
      JSON.stringify({
        type: 'message',
        id: 'big00001',
        parentId: '00000001',
        timestamp: 't',
        message: { role: 'toolResult', toolCallId: 'c', toolName: 'bash', content: [{ type: 'text', text: big }], isError: false },
      }) +
      '\n';
    for (const validation of ['full', 'fast'] as const) {
      const index = exercise(Buffer.from(text), validation)!;
      assert.equal(index.leafId, 'big00001');
    }
  });
});
