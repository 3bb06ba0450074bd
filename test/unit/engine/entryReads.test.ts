/** Issue 11 item 2: entry bodies of a streamed session are read a block at a time and kept in a bounded cache. */
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSession } from '../../../src/engine/session/loadSession';
import { streamSession } from '../../../src/engine/session/streamSession';
import { EntryCache } from '../../../src/engine/session/entryCache';
import type { SessionIndex } from '../../../src/engine/session/sessionIndex';

const ENTRIES = 6000;

function messageLine(i: number, parent: string | null): string {
  const text = `entry ${i} `.repeat(40 + (i % 30));
  return JSON.stringify({
    type: 'message',
    id: `m${String(i).padStart(7, '0')}`,
    parentId: parent,
    timestamp: '2026-01-01T00:00:00.000Z',
    message: { role: i % 2 ? 'assistant' : 'user', content: [{ type: 'text', text }], timestamp: i },
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

  it('a full pass one entry at a time: one open per 1 MB block, not one per entry; parsed entries stay within the cache limits', async () => {
    const index = (await streamSession(file))!;
    const afterLoad = parsedCount(index);
    for (let i = 0; i < index.entryCount; i++) assert.equal(index.entry(i).id, index.record(i).id);
    const blocks = Math.ceil(size / (1024 * 1024));
    assert.ok(index.lineReadOpens <= blocks + 1, `${index.lineReadOpens} opens for ${blocks} blocks`);
    assert.ok(parsedCount(index) - afterLoad <= 4096 + 1, `${parsedCount(index)} entries parsed and kept`);
  });

  it('backwards (a tree paging up) costs one open per block too', async () => {
    const index = (await streamSession(file))!;
    for (let i = index.entryCount - 1; i >= 0; i--) index.entry(i);
    assert.ok(index.lineReadOpens <= Math.ceil(size / (1024 * 1024)) + 1, `${index.lineReadOpens} opens`);
  });

  it('an evicted entry is parsed again to the same content; a bad line is reported once', async () => {
    const index = (await loadSession(file, { validation: 'fast' }))!;
    const first = JSON.stringify(index.entry(0));
    for (let pass = 0; pass < 2; pass++) for (let i = 0; i < index.entryCount; i++) index.entry(i);
    assert.equal(index.record(0).entry, undefined, 'entry 0 was evicted');
    assert.equal(JSON.stringify(index.entry(0)), first);
    assert.deepEqual(
      index.diagnostics.map((d) => d.line),
      [ENTRIES + 2],
    );
  });

  it('parseEntries (a page at a time) goes through the same cache', async () => {
    const index = (await streamSession(file))!;
    const page = Array.from({ length: 300 }, (_, k) => index.entryCount - 300 + k);
    index.parseEntries(page);
    for (const i of page) assert.notEqual(index.record(i).entry, undefined);
    for (let i = 0; i < index.entryCount; i++) index.entry(i);
    assert.ok(parsedCount(index) <= 4096 + 2);
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
