/**
 * Issue 11 item 2 and issue 22 item 3: entry bodies of a streamed session are read by an explicit async load (coalesced
 * in file order), held while an operation runs, then kept in a bounded cache; the index itself never reads the file.
 */
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSession } from '../../../src/engine/session/loadSession';
import { streamSession } from '../../../src/engine/session/streamSession';
import { EntryCache } from '../../../src/engine/session/entryCache';
import type { SessionIndex } from '../../../src/engine/session/sessionIndex';
import { EntryNotLoadedError } from '../../../src/engine/session/entryNotLoaded';
import { countingOpener } from '../../support/countingOpener';
import { buildContext } from '../../../src/engine/context/buildContext';

const ENTRIES = 6000;

function messageLine(i: number, parent: string | null): string {
  const text = `entry ${i} `.repeat(40 + (i % 30));
  return JSON.stringify({
    type: 'message',
    id: `m${String(i).padStart(7, '0')}`,
    parentId: parent,
    timestamp: '2026-01-01T00:00:00.000Z',
    message:
      i % 10 === 9
        ? { role: 'toolResult', toolCallId: `c${i}`, toolName: 'read', content: [{ type: 'text', text }], isError: false, timestamp: i }
        : { role: i % 2 ? 'assistant' : 'user', content: [{ type: 'text', text }], timestamp: i },
  });
}

function parsedCount(index: SessionIndex): number {
  let n = 0;
  for (let i = 0; i < index.entryCount; i++) if (index.record(i).entry !== undefined) n++;
  return n;
}

describe('entry bodies of a streamed session', () => {
  let file: string;
  let size: number;
  before(async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-entries-'));
    file = path.join(dir, 's.jsonl');
    const lines = [JSON.stringify({ type: 'session', version: 3, id: 'reads', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/tmp' })];
    let parent: string | null = null;
    for (let i = 0; i < ENTRIES; i++) {
      lines.push(messageLine(i, parent));
      parent = `m${String(i).padStart(7, '0')}`;
    }
    // One line that looks like a message to the fast indexer but does not parse: reported once, however often it is read.
    lines.push(`{"type":"message","id":"broken1","parentId":"${parent}","timestamp":"t","message":{"role":"user","content":[}}`);
    await fsp.writeFile(file, lines.join('\n') + '\n');
    size = (await fsp.stat(file)).size;
  });

  it('entry() never reads the file: an entry on disk that was not loaded is a loud programming error naming file and line', async () => {
    const index = (await streamSession(file))!;
    assert.equal(index.isLoaded(5), false);
    assert.throws(
      () => index.entry(5),
      (err: unknown) =>
        err instanceof EntryNotLoadedError && err.line === 7 && err.message.includes(file) && /SessionIndex\.load\(\)/.test(err.message),
    );
    assert.throws(() => index.entryById('m0000005'), EntryNotLoadedError);
    assert.throws(() => index.entryOfType(5, 'message'), EntryNotLoadedError);
    // Asking for another type is answered from the record, without the line.
    assert.equal(index.entryOfType(5, 'compaction'), undefined);
    // The file-operation hint of an undecided tool result, too.
    assert.equal(index.record(5).role, 'assistant');
    await index.load([5]);
    assert.equal(index.entry(5).id, 'm0000005');
  });

  it('a pure function asking for an entry that was not loaded fails loudly (buildContext on a streamed session)', async () => {
    const index = (await streamSession(file))!;
    assert.throws(() => buildContext(index), EntryNotLoadedError);
    const context = await index.withLoaded(index.pathTo(index.leafIndex), () => buildContext(index));
    assert.equal(context.messages.length, ENTRIES + 1); // and the broken line's placeholder
  });

  it('a full pass a page at a time: reads coalesced in file order (one per 4 MB block); memory bounded after release', async () => {
    const index = (await streamSession(file))!;
    const afterLoad = parsedCount(index);
    const counter = countingOpener();
    for (let at = 0; at < index.entryCount; at += 256) {
      const page = Array.from({ length: Math.min(256, index.entryCount - at) }, (_, k) => at + k);
      await index.withLoaded(page, () => page.forEach((i) => assert.equal(index.entry(i).id, index.record(i).id)), { open: counter.open });
    }
    const pages = Math.ceil(index.entryCount / 256);
    assert.equal(counter.opens, pages, 'one open per page');
    assert.ok(counter.reads <= pages + Math.ceil(size / (4 * 1024 * 1024)), `${counter.reads} reads for ${pages} pages`);
    assert.ok(parsedCount(index) - afterLoad <= 4096 + 1, `${parsedCount(index)} entries parsed and kept`);
  });

  it('a page loaded in any order is read in file order, each block once', async () => {
    const index = (await streamSession(file))!;
    const counter = countingOpener();
    const page = Array.from({ length: 300 }, (_, k) => index.entryCount - 1 - k * 3);
    await index.load(page, { open: counter.open });
    assert.equal(counter.opens, 1);
    assert.equal(counter.reads, 1);
    for (const i of page) assert.notEqual(index.record(i).entry, undefined);
  });

  it('a lease pins its entries past the cache limits; released, they join the bounded cache (keep: false drops them)', async () => {
    const index = (await streamSession(file))!;
    const all = Array.from({ length: index.entryCount }, (_, i) => i);
    const lease = await index.load(all);
    // Held: every entry stays, whatever else is loaded and released meanwhile.
    await index.withLoaded([0, 1, 2], () => undefined);
    for (const i of all) assert.notEqual(index.record(i).entry, undefined, `entry ${i} was evicted while pinned`);
    lease.release();
    lease.release(); // a second release does nothing
    assert.ok(parsedCount(index) <= 4096 + 2, `${parsedCount(index)} kept after release`);
    const pass = await index.load(all.slice(0, 500), { keep: false });
    pass.release();
    for (const i of all.slice(0, 500)) if (index.record(i).entry !== undefined) assert.fail(`entry ${i} kept after a keep: false release`);
  });

  it('an aborted load rejects and pins nothing; forgetParsed leaves pinned entries', async () => {
    const index = (await streamSession(file))!;
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(index.load([1, 2, 3], { signal: ac.signal }), { name: 'AbortError' });
    const lease = await index.load([1, 2, 3]);
    index.forgetParsed([1, 2, 3]);
    assert.equal(index.entry(2).id, 'm0000002');
    lease.release();
    index.forgetParsed([1, 2, 3]);
    assert.equal(index.isLoaded(2), false);
  });

  it('an evicted entry is loaded again to the same content; a bad line is reported once', async () => {
    const index = (await loadSession(file, { validation: 'fast' }))!;
    const all = Array.from({ length: index.entryCount }, (_, i) => i);
    const first = await index.withLoaded([0], () => JSON.stringify(index.entry(0)));
    for (let pass = 0; pass < 2; pass++)
      for (let at = 0; at < all.length; at += 500) await index.withLoaded(all.slice(at, at + 500), () => undefined);
    assert.equal(index.record(0).entry, undefined, 'entry 0 was evicted');
    assert.equal(await index.withLoaded([0], () => JSON.stringify(index.entry(0))), first);
    assert.deepEqual(
      index.diagnostics.map((d) => d.line),
      [ENTRIES + 2],
    );
  });

  it('file-operation hints of lines on disk are decided by an explicit async step', async () => {
    const index = (await streamSession(file))!;
    const counter = countingOpener();
    const all = Array.from({ length: index.entryCount }, (_, i) => i);
    // A streamed load leaves tool results undecided (their bytes are most of a session).
    assert.throws(() => index.mayHoldFileOps(9), EntryNotLoadedError);
    await index.decideFileOpHints(all, { open: counter.open });
    assert.equal(counter.opens, 1);
    for (const i of all) assert.equal(typeof index.mayHoldFileOps(i), 'boolean');
  });
});

describe('EntryCache', () => {
  it('evicts the least recently used over the count or the byte limit, never the entry just asked for', () => {
    const evicted: number[] = [];
    const cache = new EntryCache({ maxEntries: 3, maxBytes: 100 }, (i) => evicted.push(i));
    cache.touch(1, 10);
    cache.touch(2, 10);
    cache.touch(3, 10);
    cache.touch(1, 10); // 1 is now the most recent
    cache.touch(4, 10);
    assert.deepEqual(evicted, [2]);
    cache.touch(5, 95); // over the byte limit: everything older goes, 5 stays
    assert.deepEqual(evicted, [2, 3, 1, 4]);
    assert.equal(cache.size, 1);
    assert.ok(cache.has(5));
  });
});
