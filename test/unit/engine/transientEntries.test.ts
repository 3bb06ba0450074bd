/** Issue 20 item 5: a pass over a span reads each entry for one use, so a 1 GB pass does not promote its entries into V8's old heap. */
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { streamSession } from '../../../src/engine/session/streamSession';
import type { SessionIndex } from '../../../src/engine/session/sessionIndex';
import { Projection } from '../../../src/engine/context/projection';
import { spanMessagesWalk } from '../../../src/engine/context/messageSpan';
import { runEntryWalk } from '../../../src/engine/session/entryWalkLoads';
import { loadSession } from '../../../src/engine/session/loadSession';
import { EntryNotLoadedError } from '../../../src/engine/session/entryNotLoaded';

const ENTRIES = 3000;
const id = (i: number) => `t${String(i).padStart(7, '0')}`;

function parsedCount(index: SessionIndex): number {
  let n = 0;
  for (let i = 0; i < index.entryCount; i++) if (index.record(i).entry !== undefined) n++;
  return n;
}

describe('entries read for one use (transientEntry, transientMessages)', () => {
  let file: string;
  before(async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-transient-'));
    file = path.join(dir, 's.jsonl');
    const lines = [JSON.stringify({ type: 'session', version: 3, id: 'transient', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/tmp' })];
    for (let i = 0; i < ENTRIES; i++) {
      const role = i % 2 ? 'assistant' : 'user';
      const content = [{ type: 'text', text: `entry ${i} `.repeat(20 + (i % 17)) }];
      lines.push(
        JSON.stringify({ type: 'message', id: id(i), parentId: i ? id(i - 1) : null, timestamp: 't', message: { role, content } }),
      );
    }
    // Looks like a message to the fast indexer but does not parse: its problem is reported once however often it is read.
    lines.push(`{"type":"message","id":"broken1","parentId":"${id(ENTRIES - 1)}","timestamp":"t","message":{"role":"user","content":[}}`);
    await fsp.writeFile(file, lines.join('\n') + '\n');
  });

  it('gives the content entry() gives, and keeps none of what it parsed (a file read whole)', async () => {
    const index = await loadSession(file);
    const reference = await loadSession(file);
    const kept = parsedCount(index);
    for (let i = 0; i < index.entryCount; i++) assert.deepEqual(index.transientEntry(i), reference.entry(i), `entry ${i}`);
    // Read whole, the line that does not parse is no entry (the loader reported it).
    assert.equal(parsedCount(index), kept, 'none of what it parsed is kept');
  });

  it('reads nothing on its own: an unloaded line is EntryNotLoadedError, a loaded one is returned', async () => {
    const index = (await streamSession(file))!;
    assert.throws(() => index.transientEntry(7), EntryNotLoadedError);
    const lease = await index.load([7]);
    try {
      assert.equal(index.transientEntry(7).id, id(7));
    } finally {
      lease.release();
    }
  });

  it('returns an entry already parsed as that same object', async () => {
    const index = await loadSession(file);
    const e = index.entry(5);
    assert.equal(index.transientEntry(5), e);
  });

  it('reports a line that does not parse once, however often it is loaded and read (its placeholder stays)', async () => {
    const index = (await streamSession(file))!;
    const last = index.entryCount - 1;
    for (let k = 0; k < 3; k++)
      await index.withLoaded([last], () => assert.equal(index.transientEntry(last).id, 'broken1'), { keep: false });
    for (let k = 0; k < 3; k++) assert.equal(index.transientEntry(last).id, 'broken1');
    index.entry(last);
    assert.equal(index.diagnostics.filter((d) => d.line === ENTRIES + 2).length, 1);
  });

  it('a walk over a span, forward and back, leaves the index and the projection as they were', async () => {
    const index = (await streamSession(file))!;
    const kept = parsedCount(index);
    const p = new Projection(index, index.leafIndex);
    const positions = Array.from({ length: p.length }, (_, pos) => pos);
    let forward = 0;
    await runEntryWalk(
      index,
      spanMessagesWalk(p, positions, 1, (m) => void (forward += m.role === 'user' || m.role === 'assistant' ? 1 : 0)),
    );
    let backward = 0;
    await runEntryWalk(
      index,
      spanMessagesWalk(p, positions, -1, (m) => void (backward += m.role === 'user' || m.role === 'assistant' ? 1 : 0)),
    );
    assert.equal(forward, ENTRIES + 1);
    assert.equal(backward, forward);
    assert.equal(parsedCount(index), kept + 1);
    // A cached position is read from the cache: the same message objects.
    await index.withLoaded([p.entries[10]], () => {
      const cached = p.messages(10);
      assert.equal(p.transientMessages(10)[0], cached[0]);
    });
  });
});
