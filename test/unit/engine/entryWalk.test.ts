/**
 * Issue #22 item 3: a pure walk asks for each entry before it reads it (engine/session/entryWalk.ts) and the run step
 * loads them a batch at a time (runEntryWalk): bounded batches in the walk's direction, dropped after, an abort before a
 * read, a file that shrank or was rewritten under the walk named in the error, hostile lines read as placeholders.
 */
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { streamSession } from '../../../src/engine/session/streamSession';
import { entryRead, walkInMemory, type EntryWalk } from '../../../src/engine/session/entryWalk';
import { runEntryWalk, WALK_BATCH_ENTRIES } from '../../../src/engine/session/entryWalkLoads';
import { EntryNotLoadedError } from '../../../src/engine/session/entryNotLoaded';
import { StaleSessionError } from '../../../src/engine/session/writeErrors';
import type { SessionIndex } from '../../../src/engine/session/sessionIndex';
import { countingOpener } from '../../support/countingOpener';
import { generateSession } from '../../../bench/generateSession';
import { loadSession } from '../../../src/engine/session/loadSession';
import { Projection } from '../../../src/engine/context/projection';
import { projectedContextTokensWalk } from '../../../src/engine/context/contextTokens';
import { findCutPoint } from '../../../src/engine/compaction/cutPoint';
import { estimatorByName } from '../../../src/engine/tokens/estimators';
import { parsedMessages } from '../../support/parsedMessages';

const ENTRIES = 2000;
const id = (i: number) => `w${String(i).padStart(6, '0')}`;
/** Lines whose bodies stay on disk in a streamed load: the index only knows where they are. */
const message = (i: number, text: string) =>
  JSON.stringify({
    type: 'message',
    id: id(i),
    parentId: i ? id(i - 1) : null,
    timestamp: '2026-01-01T00:00:00.000Z',
    message: { role: i % 2 ? 'assistant' : 'user', content: [{ type: 'text', text }] },
  });
const HEADER = JSON.stringify({ type: 'session', version: 3, id: 'walk', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/tmp' });

/** Every entry in `order`, oldest first (step 1) or newest first (-1): the ids read, stopping after `limit`. */
function* ids(index: SessionIndex, order: readonly number[], step: 1 | -1, limit = Infinity): EntryWalk<string[]> {
  const out: string[] = [];
  for (let k = step > 0 ? 0 : order.length - 1; k >= 0 && k < order.length && out.length < limit; k += step) {
    yield entryRead(order, k, step);
    out.push(index.entry(order[k]).id);
  }
  return out;
}

describe('entry walks loaded a batch at a time (runEntryWalk)', function () {
  this.timeout(120_000);
  let dir: string;
  let file: string;
  let size: number;
  const all = Array.from({ length: ENTRIES }, (_, i) => i);
  before(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-walk-'));
    file = path.join(dir, 's.jsonl');
    const lines = [HEADER, ...all.map((i) => message(i, `entry ${i} `.repeat(40)))];
    await fsp.writeFile(file, lines.join('\n') + '\n');
    size = (await fsp.stat(file)).size;
  });
  after(async () => {
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it('reads every entry of a long walk, both ways, in batches (WALK_BATCH_ENTRIES), and holds none after', async () => {
    const index = (await streamSession(file))!;
    for (const step of [1, -1] as const) {
      const counter = countingOpener();
      const got = await runEntryWalk(index, ids(index, all, step), { open: counter.open });
      assert.deepEqual(got, step > 0 ? all.map(id) : all.map(id).reverse());
      assert.equal(counter.opens, Math.ceil(ENTRIES / WALK_BATCH_ENTRIES), `one load per batch (${step > 0 ? 'forward' : 'backward'})`);
      assert.equal(parsedMessages(index), 0, 'each batch was dropped (keep: false)');
    }
  });

  it('a batch is bounded by entries and by bytes (at least one entry), and a walk that stops early reads one batch', async () => {
    const index = (await streamSession(file))!;
    const small = countingOpener();
    await runEntryWalk(index, ids(index, all, 1), { open: small.open, batchEntries: 10 });
    assert.equal(small.opens, ENTRIES / 10);
    const tiny = countingOpener();
    await runEntryWalk(index, ids(index, all.slice(0, 50), 1), { open: tiny.open, batchBytes: 1 });
    assert.equal(tiny.opens, 50, 'a byte limit below one line still loads that line');
    const newest = countingOpener();
    const got = await runEntryWalk(index, ids(index, all, -1, 3), { open: newest.open });
    assert.deepEqual(got, [id(ENTRIES - 1), id(ENTRIES - 2), id(ENTRIES - 3)]);
    assert.equal(newest.opens, 1);
    assert.ok(newest.bytes < size / 4, `${newest.bytes} of ${size} bytes read`);
  });

  it('walkInMemory on a streamed index is EntryNotLoadedError (a caller that did not load)', async () => {
    const index = (await streamSession(file))!;
    assert.throws(() => walkInMemory(ids(index, all, 1)), EntryNotLoadedError);
  });

  it('an aborted signal stops the walk before a read, and leaves nothing pinned', async () => {
    const index = (await streamSession(file))!;
    const controller = new AbortController();
    controller.abort(new Error('stopped by the user'));
    const counter = countingOpener();
    await assert.rejects(runEntryWalk(index, ids(index, all, 1), { signal: controller.signal, open: counter.open }), /stopped by the user/);
    assert.equal(counter.bytes, 0);
    // Aborted halfway: the walk's batch is released.
    const half = new AbortController();
    let seen = 0;
    function* stopping(): EntryWalk<void> {
      for (let k = 0; k < all.length; k++) {
        yield entryRead(all, k, 1);
        index.entry(k);
        if (++seen === 300) half.abort(new Error('halfway'));
      }
    }
    await assert.rejects(runEntryWalk(index, stopping(), { signal: half.signal }), /halfway/);
    assert.equal(parsedMessages(index), 0);
  });

  it('a file that shrank under the walk: StaleSessionError naming the file and the line', async () => {
    const copy = path.join(dir, 'shrinks.jsonl');
    await fsp.copyFile(file, copy);
    const index = (await streamSession(copy))!;
    await fsp.truncate(copy, Math.floor(size / 2));
    await assert.rejects(runEntryWalk(index, ids(index, all, 1)), (err: Error) => {
      assert.ok(err instanceof StaleSessionError, String(err));
      assert.match(err.message, new RegExp(`${copy.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} changed while it was being read: line \\d+`));
      assert.match(err.message, /is gone/);
      return true;
    });
    assert.equal(parsedMessages(index), 0, 'nothing of the torn walk stays');
  });

  it('a file rewritten under the walk (same lengths, other entries): StaleSessionError naming the line', async () => {
    const copy = path.join(dir, 'rewritten.jsonl');
    await fsp.copyFile(file, copy);
    const index = (await streamSession(copy))!;
    const text = await fsp.readFile(copy, 'utf8');
    await fsp.writeFile(copy, text.replace(/"w(\d{6})"/g, '"v$1"'));
    await assert.rejects(
      runEntryWalk(index, ids(index, all, -1)),
      /changed while it was being read: line \d+ \(entry "w\d{6}"\) holds another entry now/,
    );
  });

  it('hostile lines: a line that does not parse is its placeholder (reported once), odd values do not break the walk', async () => {
    const hostile = path.join(dir, 'hostile.jsonl');
    const lines = [HEADER, ...all.slice(0, 300).map((i) => message(i, `entry ${i} `.repeat(40)))];
    // Indexed (its id, parent and type are read) but its body is not JSON.
    lines[101] = `{"type":"message","id":"${id(100)}","parentId":"${id(99)}","timestamp":"t","message":{"role":"user","content":[}}`;
    // Values of the wrong type and depth in its body.
    lines[201] = JSON.stringify({
      type: 'message',
      id: id(200),
      parentId: id(199),
      timestamp: 't',
      message: { role: 'assistant', content: 42, usage: 'lots', stopReason: { deep: [[[{}]]] } },
    });
    // Padded over the streaming limit (blank lines are skipped) so the bodies stay on disk.
    await fsp.writeFile(hostile, lines.join('\n') + '\n' + `${' '.repeat(65535)}\n`.repeat(80));
    const index = (await streamSession(hostile))!;
    const order = Array.from({ length: index.entryCount }, (_, i) => i);
    for (let pass = 0; pass < 2; pass++) {
      const got = await runEntryWalk(index, ids(index, order, pass ? -1 : 1));
      assert.equal(got.length, 300);
      assert.ok(got.includes(id(100)) && got.includes(id(200)));
    }
    assert.equal(index.diagnostics.filter((d) => d.line === 102).length, 1, 'the broken line is reported once');
  });

  it('a count asked for after the projection cached the messages reads the entry (cut point after context tokens)', async () => {
    const generated = path.join(dir, 'generated.jsonl');
    await generateSession({ file: generated, targetBytes: 2 * 1024 * 1024, compactionEvery: 0 });
    const chars = estimatorByName('chars');
    const whole = await loadSession(generated);
    const q = new Projection(whole, whole.leafIndex);
    const expected = walkInMemory(findCutPoint(q, 0, q.length, 20_000, chars));
    // Two walks, each with its own batches: the second must load what the first only cached the messages of.
    const index = (await streamSession(generated))!;
    const p = new Projection(index, index.leafIndex);
    const tokens = await runEntryWalk(index, projectedContextTokensWalk(p, chars));
    assert.deepEqual(tokens, walkInMemory(projectedContextTokensWalk(q, chars)));
    assert.deepEqual(await runEntryWalk(index, findCutPoint(p, 0, p.length, 20_000, chars)), expected);
  });
});
