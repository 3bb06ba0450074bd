import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateSession } from '../../../bench/generateSession';
import { loadSession } from '../../../src/engine/session/loadSession';
import { Projection } from '../../../src/engine/context/projection';
import { spanLength, spanMessagesWalk } from '../../../src/engine/context/messageSpan';
import { extract } from '../../../src/engine/summarize/offline/extract';
import { serializeConversation } from '../../../src/engine/summarize/serialize';
import { conversationWalk, readingOf, spanReadingWalk } from '../../../src/engine/summarize/spanReading';
import { walkInMemory } from '../../../src/engine/session/entryWalk';
import { runEntryWalk } from '../../../src/engine/session/entryWalkLoads';
import { countingOpener } from '../../support/countingOpener';
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

describe('a summarized span read by a walk (issue 20: a 1 GB session compacts; issue 22 item 3: loaded a batch at a time)', () => {
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
        assert.equal(spanLength(p, positions), want.length, `length from the roles, leaf ${leaf}`);
        const walked = (step: 1 | -1) => {
          const out: { entryId: string; message: AgentMessage }[] = [];
          walkInMemory(spanMessagesWalk(p, positions, step, (message, i) => void out.push({ entryId: index.record(i).id, message })));
          return out;
        };
        assert.deepEqual(walked(-1), [...want].reverse());
        assert.deepEqual(walked(1), want);
        const reading = walkInMemory(spanReadingWalk(p, positions, {}));
        const inHand = readingOf(want);
        assert.equal(reading.length, want.length);
        assert.deepEqual(reading.extraction, inHand.extraction);
        for (let i = -1; i <= want.length; i++) assert.equal(reading.entryIdAt(i), inHand.entryIdAt(i), `message ${i}, leaf ${leaf}`);
        for (const maxChars of [100, 3000, 1e6]) {
          const messages = want.map((m) => m.message);
          assert.equal(walkInMemory(conversationWalk(p, positions, { maxChars })), serializeConversation(messages, { maxChars }));
        }
      }
    });
  }

  it('a walk over a large streamed span loads it a batch at a time; a bounded conversation reads only the newest batch', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-span-'));
    try {
      const file = path.join(dir, 'long.jsonl');
      await generateSession({ file, targetBytes: 12 * 1024 * 1024, compactionEvery: 0 });
      const index = await loadSession(file);
      const p = new Projection(index, index.leafIndex);
      const positions = Array.from({ length: p.length }, (_, k) => k);
      const counter = countingOpener();
      const reading = await runEntryWalk(index, spanReadingWalk(p, positions, {}), { open: counter.open });
      assert.equal(reading.length, spanLength(p, positions));
      assert.ok(p.length > 5000, String(p.length));
      assert.ok(counter.opens >= Math.floor(p.length / 256) / 2, `${counter.opens} loads for ${p.length} entries`);
      const cache = (p as unknown as { messageCache: Map<number, unknown> }).messageCache;
      assert.equal(cache.size, 0, 'a walk for one use caches no message');
      const parsed = () =>
        Array.from({ length: index.entryCount }, (_, i) => index.record(i)).filter((r) => r.type === 'message' && r.entry);
      assert.equal(parsed().length, 0, 'the batches were dropped');
      // A serialization bounded to a few messages reads only the newest ones.
      const newest = countingOpener();
      const text = await runEntryWalk(index, conversationWalk(p, positions, { maxChars: 5000 }), { open: newest.open });
      assert.ok(text.length <= 5000);
      assert.equal(newest.opens, 1, 'one batch');
      assert.ok(newest.bytes <= 8 * 1024 * 1024 + 4 * 1024 * 1024, String(newest.bytes));
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
