/**
 * `arbor tree` on a large session makes its rows in worker processes, each
 * reading one part of the file: the output is the same as rows made in the
 * main thread as the load parses each entry, whatever the file holds and
 * wherever the parts split it; rows a worker could not make (a line that
 * does not parse, a file that changed, a worker that failed) come from the
 * index.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sessionArb, renderSession } from '../../support/arbSession';
import { mutate, mutationArb } from '../../support/sessionMutations';
import { treeCommand, type TreeOptions } from '../../../src/cli/commands/tree';
import { rowFromIndex, type RowStyle } from '../../../src/cli/commands/treeRowFacts';
import { FACTS_WORKER_FILE, WorkerRowFacts, type RowObserver } from '../../../src/cli/commands/workerRowFacts';
import { factsWorkerData, makeRows, type FactsMessage } from '../../../src/cli/commands/treeFactsWorker';
import { loadSession } from '../../../src/engine/session/loadSession';
import { openSession } from '../../../src/cli/sessionArgs'; // as the CLI opens a session (its reads are TRANSITIONAL: sessionArgs.ts)
import { generateTreeSession } from '../../../bench/generateTreeSession';

const fixtures = path.join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'sessions');

async function tree(file: string, options: TreeOptions, flags: string[] = []): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  let code: number;
  try {
    code = await treeCommand([file, ...flags], { out: (t) => out.push(t), err: (t) => err.push(t) }, options);
  } catch (e) {
    return { code: -1, out: '', err: (e as Error).message };
  }
  return { code, out: out.join(''), err: err.join('\n') };
}

async function assertSameRows(file: string, label: string, workers: number[] = [1, 3]): Promise<void> {
  for (const flags of [[], ['--json'], ['--estimator', 'chars']]) {
    const inline = await tree(file, { rows: 'inline' }, flags);
    for (const n of workers) {
      const byWorkers = await tree(file, { rows: 'worker', workers: n }, flags);
      assert.deepEqual(byWorkers, inline, `${label} ${flags.join(' ')}: ${n} worker(s)`);
    }
  }
}

describe('arbor tree rows made by workers', function () {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-tree-workers-'));
    // Else `rows: 'worker'` would quietly make rows in the main thread, and these tests compare that with itself.
    assert.ok(existsSync(FACTS_WORKER_FILE), `${FACTS_WORKER_FILE} is missing (npm run compile)`);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a worker reads its data through a typed guard: anything but the facts data starts nothing', () => {
    const data = { file: '/s.jsonl', from: 0, to: 10, style: { estimator: 'chars', json: false } };
    assert.deepEqual(factsWorkerData(data), data);
    for (const bad of [undefined, null, 1, {}, { ...data, to: '10' }, { ...data, file: 7 }]) {
      assert.equal(factsWorkerData(bad), undefined);
    }
    assert.equal(factsWorkerData({ ...data, style: { estimator: 'words', json: false } }), undefined);
  });

  it('gives the same output as rows made in the main thread, on damaged generated sessions split anywhere', async () => {
    const file = path.join(dir, 'fuzz.jsonl');
    await fc.assert(
      fc.asyncProperty(
        sessionArb,
        fc.array(mutationArb, { maxLength: 5 }),
        fc.integer({ min: 1, max: 5 }),
        async (steps, mutations, workers) => {
          writeFileSync(file, mutate(renderSession(steps), mutations));
          const inline = await tree(file, { rows: 'inline' });
          assert.deepEqual(await tree(file, { rows: 'worker', workers }), inline);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('gives the same output on every session fixture (v1, BOM and CRLF, truncated, cycles, hostile text)', async () => {
    for (const name of [
      'bom-crlf',
      'hostile-escapes',
      'invalid-lines-truncated-tail',
      'orphans-cycles-duplicates',
      'unknown-type-and-labels',
      'v1-linear',
      'v2-hookmessage',
      'header-only',
    ]) {
      await assertSameRows(path.join(fixtures, `${name}.jsonl`), name);
    }
  });

  it('a worker sends its rows as it reads, and reads on only once what it sent has been written (rows never pile up in it)', async () => {
    const file = path.join(dir, 'streamed.jsonl');
    generateTreeSession({ file, entries: 40_000, branchEvery: 7 }); // about 10 MB: three read blocks
    const messages: FactsMessage[] = [];
    const unsent: (() => void)[] = [];
    let settled = false;
    const data = { file, from: 0, to: Number.MAX_SAFE_INTEGER, style: { estimator: 'chars', json: false } as RowStyle };
    const making = makeRows(data, (m, sent) => {
      messages.push(m);
      unsent.push(sent);
    }).then(() => (settled = true));
    // Nothing was written: the worker stopped after its first block, with that block's rows sent.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const rowsOf = (ms: FactsMessage[]) => ms.reduce((n, m) => n + (m.type === 'facts' ? m.starts.length : 0), 0);
    const early = rowsOf(messages);
    assert.ok(!settled && early > 0 && early < 40_000, `${early} rows sent before any was written`);
    // Written as the parent reads: the worker reads on to the end.
    while (!settled) {
      unsent.splice(0).forEach((sent) => sent());
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await making;
    assert.equal(rowsOf(messages), 40_000);
    assert.equal(messages.at(-1)?.type, 'done');
  });

  it('a 6 MB session (the size that uses workers by default): same output, with blank and indented lines at part boundaries', async () => {
    const file = path.join(dir, 'large.jsonl');
    generateTreeSession({ file, entries: 25_000, branchEvery: 7 });
    // Blank lines and lines with leading blanks, spread through the file.
    const lines = readFileSync(file, 'utf8').split('\n');
    const spaced = lines.map((l, k) => (k > 0 && k % 997 === 0 ? `\n   \t${l}` : l));
    // Keys written twice, which the index's key scan and JSON.parse read differently: such rows come from the index on both paths.
    spaced[5000] = spaced[5000].replace(/}$/, ',"id":"twice"}');
    spaced[9000] = spaced[9000].replace(/}$/, ',"type":"custom","customType":"x"}');
    writeFileSync(file, spaced.join('\n'));
    await assertSameRows(file, 'large', [2, 5]);
    const auto = await tree(file, {});
    assert.deepEqual(auto, await tree(file, { rows: 'inline' }), 'the default (workers, one per core)');
    // Every row made once, by a worker: none missed at a part boundary, none made twice.
    const style: RowStyle = { estimator: 'tokenizer', json: false };
    const index = await openSession(file);
    const all = Array.from({ length: index.entryCount }, (_, i) => i);
    for (const n of [1, 2, 5, 13]) {
      const counts = rowCounts();
      const rows = WorkerRowFacts.start(file, readFileSync(file).length, style, n, counts.observer)!;
      try {
        await rows.ready(index, all);
        // Rows no worker made come from the index: their entries are loaded first (as arbor tree does).
        const fromIndex = all.filter((i) => !rows.hasRow(i));
        await index.withLoaded(fromIndex, () => {
          for (const i of all) rows.row(index, i);
        });
        assert.deepEqual(
          { received: counts.received, fromIndex: counts.fromIndex },
          { received: index.entryCount, fromIndex: 2 },
          `${n} workers (the two lines with a key written twice come from the index)`,
        );
      } finally {
        rows.close();
      }
    }
  });

  it('long lines: one longer than a read block (6 MB) is made by a worker, one too long to parse (17 MB) comes from the index', async () => {
    const file = path.join(dir, 'long.jsonl');
    const msg = (id: string, parentId: string | null, text: string) =>
      JSON.stringify({
        type: 'message',
        id,
        parentId,
        timestamp: '2026-01-01T00:00:00.000Z',
        message: { role: 'user', content: [{ type: 'text', text }], timestamp: 1 },
      });
    const lines = [
      JSON.stringify({ type: 'session', version: 3, id: 'long', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w' }),
      msg('a', null, 'first'),
    ];
    lines.push(
      msg('b', 'a', `six MB ${'x'.repeat(6 * 1024 * 1024)}`),
      msg('c', 'b', 'between'),
      msg('d', 'c', `seventeen MB ${'y'.repeat(17 * 1024 * 1024)}`),
      msg('e', 'd', 'last'),
    );
    writeFileSync(file, `${lines.join('\n')}\n`);
    await assertSameRows(file, 'long lines', [1, 3]);
    const index = await openSession(file);
    const all = Array.from({ length: index.entryCount }, (_, i) => i);
    for (const n of [1, 3]) {
      const counts = rowCounts();
      const rows = WorkerRowFacts.start(file, readFileSync(file).length, { estimator: 'tokenizer', json: false }, n, counts.observer)!;
      try {
        await rows.ready(index, all);
        const texts = all.map((i) => rows.row(index, i).text);
        assert.deepEqual({ received: counts.received, fromIndex: counts.fromIndex }, { received: 4, fromIndex: 1 }, `${n} workers`);
        assert.match(texts[1], /^six MB x+…$/);
        assert.match(texts[3], /17 MB entry, too large to show/);
      } finally {
        rows.close();
      }
    }
  });

  it('rows of lines appended after the workers read come from the index', async () => {
    const file = path.join(dir, 'growing.jsonl');
    generateTreeSession({ file, entries: 3000, branchEvery: 10 });
    const style: RowStyle = { estimator: 'tokenizer', json: false };
    const counts = rowCounts();
    const rows = WorkerRowFacts.start(file, readFileSync(file).length, style, 2, counts.observer)!;
    try {
      // The workers read to the end, then a writer adds an entry the index sees and the workers did not.
      const before = await loadSession(file);
      await rows.ready(
        before,
        Array.from({ length: before.entryCount }, (_, i) => i),
      );
      const last = readFileSync(file, 'utf8').trimEnd().split('\n').at(-1)!;
      const parent = (JSON.parse(last) as { id: string }).id;
      appendFileSync(
        file,
        `${JSON.stringify({
          type: 'message',
          id: 'late1',
          parentId: parent,
          timestamp: '2026-01-01T00:00:00.000Z',
          message: { role: 'user', content: 'appended while the tree was drawn', timestamp: 1 },
        })}\n`,
      );
      const index = await loadSession(file);
      const all = Array.from({ length: index.entryCount }, (_, i) => i);
      await rows.ready(index, all);
      for (const i of all) assert.deepEqual(rows.row(index, i), rowFromIndex(index, i, style), `entry ${i}`);
      assert.equal(counts.fromIndex, 1, 'the appended entry, and only it, was described from the index');
      assert.equal(rows.row(index, index.entryCount - 1).text, 'appended while the tree was drawn');
    } finally {
      rows.close();
    }
  });

  it(
    'a file rewritten under the workers (same line offsets, other ids): rows come from the index, never from the other ' +
      'file (a row is taken only where start and id agree)',
    async () => {
      const a = path.join(dir, 'a.jsonl');
      const b = path.join(dir, 'b.jsonl');
      generateTreeSession({ file: a, entries: 2000, branchEvery: 10 });
      // Same lengths everywhere, different ids and text: as if the file were replaced while it was read.
      writeFileSync(
        b,
        readFileSync(a, 'utf8')
          .replace(/"id":"[es]/g, '"id":"x')
          .replace(/message (\d)/g, 'MESSAGE $1'),
      );
      const style: RowStyle = { estimator: 'chars', json: true };
      const index = await loadSession(a);
      const rows = WorkerRowFacts.start(b, readFileSync(b).length, style, 2)!;
      try {
        const all = Array.from({ length: index.entryCount }, (_, i) => i);
        await rows.ready(index, all);
        for (const i of all) {
          const row = rows.row(index, i);
          assert.deepEqual(row, rowFromIndex(index, i, style), `entry ${i}`);
          assert.ok(!row.text.includes('MESSAGE'), `entry ${i} took the other file's row`);
        }
      } finally {
        rows.close();
      }
    },
  );

  it('a worker that cannot read the file: rows come from the index and the failure is kept', async () => {
    const file = path.join(dir, 'gone.jsonl');
    copyFileSync(path.join(fixtures, 'unknown-type-and-labels.jsonl'), file);
    const index = await loadSession(file);
    const style: RowStyle = { estimator: 'tokenizer', json: false };
    const rows = WorkerRowFacts.start(path.join(dir, 'no-such-file.jsonl'), 1000, style, 2)!;
    try {
      const all = Array.from({ length: index.entryCount }, (_, i) => i);
      await rows.ready(index, all);
      for (const i of all) assert.deepEqual(rows.row(index, i), rowFromIndex(index, i, style));
      assert.ok(rows.failures.length > 0 && rows.failures.every((f) => /no-such-file/.test(f)), rows.failures.join('; '));
    } finally {
      rows.close();
    }
  });
});

/** Counts where rows come from, through the observer WorkerRowFacts is given (no counters in the class). */
function rowCounts(): { received: number; fromIndex: number; observer: RowObserver } {
  const counts = {
    received: 0,
    fromIndex: 0,
    observer: {
      received: (n: number) => (counts.received += n),
      fromIndex: () => counts.fromIndex++,
    },
  };
  return counts;
}
