import * as assert from 'node:assert/strict';
import { fixturePath } from '../../support/fixtures';
import { loadSession } from '../../../src/engine/session/loadSession';
import { SessionFormatError } from '../../../src/engine/session/diagnostics';
import { buildContext } from '../../../src/engine/context/buildContext';
import { planCompaction } from '../../../src/engine/compaction/planCompaction';
import { charsEstimator } from '../../../src/engine/tokens/estimators';
import { loadedSession } from '../../support/loadWhole';

const session = (name: string) => fixturePath('sessions', name);
const ids = (index: Awaited<ReturnType<typeof loadSession>>, list: number[]) => list.map((i) => index.record(i).id);

for (const validation of ['full', 'fast'] as const) {
  describe(`loadSession (${validation})`, () => {
    it('keeps unknown entry types in the tree, out of the context, and applies cleared labels', async () => {
      const index = await loadedSession(session('unknown-type-and-labels.jsonl'), { validation });
      assert.equal(index.entryCount, 7);
      assert.equal(index.record(index.indexOf('f1')).type, 'future_thing');
      assert.deepEqual(ids(index, index.pathTo(index.leafIndex)), ['u1', 'a1', 'f1', 'u2', 'l1', 'l2', 'l3']);
      const ctx = buildContext(index);
      assert.deepEqual(
        ctx.messages.map((m) => index.record(m.entryIndex).id),
        ['u1', 'a1', 'u2'],
      );
      assert.deepEqual(Object.fromEntries(index.labels()), { a1: 'kept' });
      assert.deepEqual(index.diagnostics, []);
    });

    it('skips invalid lines and a cut-off last line, naming file and line, and still plans', async () => {
      const file = session('invalid-lines-truncated-tail.jsonl');
      const index = await loadedSession(file, { validation });
      assert.deepEqual(ids(index, index.pathTo(index.leafIndex)), ['u1', 'a1', 'u2']);
      const lines = index.diagnostics.map((d) => d.line);
      assert.deepEqual(lines, [3, 5, 7]);
      for (const d of index.diagnostics) assert.equal(d.file, file);
      assert.match(index.diagnostics[2].message, /incomplete/);
      assert.equal(index.endsWithNewline, false);
      const plan = planCompaction(index, {
        settings: { enabled: true, reserveTokens: 100, keepRecentTokens: 1 },
        estimator: charsEstimator,
      });
      assert.equal(plan.kind, 'plan');
    });

    it('reads a BOM and CRLF line ends', async () => {
      const index = await loadedSession(session('bom-crlf.jsonl'), { validation });
      assert.equal(index.header.id, 's1');
      assert.deepEqual(ids(index, index.pathTo(index.leafIndex)), ['u1', 'a1']);
      assert.deepEqual(index.diagnostics, []);
    });

    it('survives orphans, parentId cycles, duplicate ids and a child before its parent', async () => {
      const index = await loadedSession(session('orphans-cycles-duplicates.jsonl'), { validation });
      const messages = index.diagnostics.map((d) => d.message).join('\n');
      assert.match(messages, /not in the file/);
      assert.match(messages, /cycle/);
      assert.match(messages, /duplicate entry id "u1"/);
      // the later "u1" wins, as in Pi; the child written before its parent still finds it
      assert.deepEqual(ids(index, index.pathTo(index.indexOf('c1'))).slice(-2), ['p1', 'c1']);
      for (let i = 0; i < index.entryCount; i++) assert.ok(index.pathTo(i).length <= index.entryCount);
      assert.ok(index.roots().length >= 2);
    });
  });
}

describe('loadSession: versions and bad files', () => {
  it('migrates a v1 file in memory: stable ids, chained parents, firstKeptEntryIndex, hookMessage', async () => {
    const a = await loadedSession(session('v1-linear.jsonl'));
    const b = await loadedSession(session('v1-linear.jsonl'));
    assert.equal(a.version, 1);
    assert.equal(a.entryCount, 5);
    assert.deepEqual(ids(a, a.pathTo(a.leafIndex)), ids(b, b.pathTo(b.leafIndex)));
    for (let i = 0; i < a.entryCount; i++) {
      assert.match(a.record(i).id, /^[0-9a-f]{8}$/);
      assert.equal(a.record(i).parentId, i === 0 ? null : a.record(i - 1).id);
    }
    const compaction = a.entry(3) as { firstKeptEntryId?: string; firstKeptEntryIndex?: number };
    assert.equal(compaction.firstKeptEntryId, a.record(2).id); // line index 3 = the third entry
    assert.equal(compaction.firstKeptEntryIndex, undefined);
    assert.equal(a.record(4).role, 'custom');
    const ctx = buildContext(a);
    assert.deepEqual(
      ctx.messages.map((m) => m.message.role),
      ['compactionSummary', 'user', 'custom'],
    );
  });

  it('renames the v2 hookMessage role to custom', async () => {
    for (const validation of ['full', 'fast'] as const) {
      const index = await loadedSession(session('v2-hookmessage.jsonl'), { validation });
      assert.equal(index.record(index.indexOf('h1')).role, 'custom');
      assert.equal((index.entry(index.indexOf('h1')) as { message: { role: string } }).message.role, 'custom');
    }
  });

  it('rejects an empty file and a non-session file with file and line', async () => {
    await assert.rejects(
      loadSession(session('empty.jsonl')),
      (e: unknown) => e instanceof SessionFormatError && e.line === 1 && e.message.includes('empty.jsonl'),
    );
    await assert.rejects(loadSession(fixturePath('pi-oracle', 'golden16', '01-plain.json')), SessionFormatError);
  });

  it('loads a header-only session with no entries and nothing to compact', async () => {
    const index = await loadedSession(session('header-only.jsonl'));
    assert.equal(index.entryCount, 0);
    assert.equal(index.leafId, null);
    assert.equal(
      planCompaction(index, { settings: { enabled: true, reserveTokens: 1, keepRecentTokens: 1 }, estimator: charsEstimator }).kind,
      'nothing',
    );
  });
});
