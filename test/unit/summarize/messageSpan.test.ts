import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateSession } from '../../../bench/generateSession';
import { loadSession } from '../../../src/engine/session/loadSession';
import { Projection } from '../../../src/engine/context/projection';
import { projectionSpan, arraySpan, backwardOf } from '../../../src/engine/context/messageSpan';
import { extract } from '../../../src/engine/summarize/offline/extract';
import { serializeConversation } from '../../../src/engine/summarize/serialize';
import type { AgentMessage } from '../../../src/engine/session/types';

const FIXTURES = path.join(__dirname, '../../../../test/fixtures/pi-oracle');

/** The messages of every position of the path to each leaf, the plain way (what a span must read the same). */
function plainMessages(p: Projection): { entryId: string; message: AgentMessage }[] {
  const out: { entryId: string; message: AgentMessage }[] = [];
  for (let pos = 0; pos < p.length; pos++) {
    const entryId = p.index.record(p.entries[pos]).id;
    for (const message of p.messages(pos)) if (message.role !== 'system') out.push({ entryId, message });
  }
  return out;
}

describe('a summarized span read on demand (issue 20: a 1 GB session compacts)', () => {
  const files = [
    ...['01-plain', '02-compaction', '03-tree', '04-split-turn', '05-misc'].map((f) => path.join(FIXTURES, 'fixtures', `${f}.jsonl`)),
    path.join(FIXTURES, 'fixtures-pi16', '01-pi16.jsonl'),
  ];
  for (const file of files) {
    it(`reads the same messages, both ways, with their entries: ${path.basename(file)}`, async () => {
      const index = await loadSession(file);
      for (let leaf = 0; leaf < index.entryCount; leaf++) {
        const p = new Projection(index, leaf);
        const positions = Array.from({ length: p.length }, (_, k) => k);
        const want = plainMessages(p);
        const span = projectionSpan(p, positions);
        assert.equal(span.length, want.length, `length before a walk, leaf ${leaf}`);
        assert.deepEqual(
          [...backwardOf(span)],
          [...want].reverse().map((m) => m.message),
        );
        assert.deepEqual(
          [...span],
          want.map((m) => m.message),
        );
        assert.equal(span.length, want.length);
        for (let i = -1; i <= want.length; i++) assert.equal(span.entryIdAt(i), want[i]?.entryId ?? null, `message ${i}, leaf ${leaf}`);
        const array = arraySpan(want);
        assert.deepEqual([...array], [...span]);
        assert.deepEqual([...array.backward()], [...span.backward()]);
        assert.equal(serializeConversation(span, { maxChars: 3000 }), serializeConversation([...span], { maxChars: 3000 }));
      }
    });
  }

  it('a walk over a large span keeps only a bounded number of parsed positions', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-span-'));
    try {
      const file = path.join(dir, 'long.jsonl');
      await generateSession({ file, targetBytes: 12 * 1024 * 1024, compactionEvery: 0 });
      // The compaction run step's span, read on demand (TRANSITIONAL, see syncLineReads.ts).
      const index = (await loadSession(file)).allowSyncLineReads();
      const p = new Projection(index, index.leafIndex);
      const span = projectionSpan(
        p,
        Array.from({ length: p.length }, (_, k) => k),
      );
      let n = 0;
      for (const m of span) if (m) n++;
      assert.equal(n, span.length);
      const cache = (p as unknown as { messageCache: Map<number, unknown> }).messageCache;
      assert.ok(p.length > 5000, String(p.length));
      assert.ok(cache.size <= 4096, String(cache.size));
      // A serialization bounded to a few messages reads only the newest ones (the rest is never parsed into the cache).
      const q = new Projection(index, index.leafIndex);
      const text = serializeConversation(
        projectionSpan(
          q,
          Array.from({ length: q.length }, (_, k) => k),
        ),
        { maxChars: 5000 },
      );
      assert.ok(text.length <= 5000);
      assert.ok((q as unknown as { messageCache: Map<number, unknown> }).messageCache.size < 100);
    } finally {
      await fsp.rm(dir, { recursive: true, force: true });
    }
  });

  it('the extraction keeps no call arguments and no long output (a span streams through it)', () => {
    const huge = 'x'.repeat(1_000_000);
    const messages: AgentMessage[] = [
      { role: 'user', content: 'write the file' },
      {
        role: 'assistant',
        content: [{ type: 'toolCall', id: 'c1', name: 'write', arguments: { path: 'src/a.ts', content: huge } }],
        stopReason: 'toolUse',
      },
      { role: 'toolResult', toolCallId: 'c1', toolName: 'write', content: [{ type: 'text', text: huge }], isError: false },
      {
        role: 'assistant',
        content: [{ type: 'toolCall', id: 'c2', name: 'bash', arguments: { command: 'npm test' } }],
        stopReason: 'toolUse',
      },
      { role: 'toolResult', toolCallId: 'c2', toolName: 'bash', content: [{ type: 'text', text: '3 passing' }], isError: false },
    ] as AgentMessage[];
    const x = extract(messages);
    assert.ok(JSON.stringify(x).length < 10_000, String(JSON.stringify(x).length));
    assert.equal(x.messageCount, 5);
    assert.deepEqual(x.filesModified, ['src/a.ts']);
    const calls = x.turns[0].calls;
    assert.equal(calls[0].path, 'src/a.ts');
    assert.equal(calls[1].result?.text, '3 passing');
    // The same from an iterable read once.
    assert.deepEqual(extract(messages.values()), x);
  });
});
