// Issue 8 item 5: the search engine: plain case-insensitive substring matching over entry texts, chunked, abortable.
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { searchSession, type SearchHit } from '../../../src/engine/search/searchSession';
import { fixturePath } from '../../support/fixtures';

async function search(file: string, query: string, extra: { chunkBytes?: number; maxHits?: number } = {}): Promise<SearchHit[]> {
  const hits: SearchHit[] = [];
  await searchSession(file, { query, onHit: (h) => hits.push(h), ...extra });
  return hits;
}

describe('session search engine', () => {
  const tree = fixturePath('pi-oracle', 'fixtures', '03-tree.jsonl');

  it('finds text in messages, tool calls, tool results and labels (a label hit is on the entry it names), case-insensitively', async () => {
    const user = await search(tree, 'TAKE A LOOK at this project');
    assert.equal(user[0].entryId, '12ff783a');
    assert.equal(user[0].field, 'message');
    assert.match(user[0].snippet, /Take a look at this project/);
    const label = await search(tree, 'resume-ORIGINAL');
    assert.deepEqual(
      label.map((h) => [h.entryId, h.field]),
      [['88f696d0', 'label']],
    );
    const fields = new Set((await search(tree, 'math')).map((h) => h.field));
    for (const f of ['message', 'tool call', 'tool result']) assert.ok(fields.has(f), `${f} in ${[...fields].join()}`);
    // Keys and ids of the JSON are not text: "parentId" matches nothing.
    assert.deepEqual(await search(tree, 'parentId'), []);
  });

  it('gives the same hits whatever the chunk size (lines and UTF-8 split between chunks)', async () => {
    const whole = await search(tree, 'src');
    assert.ok(whole.length > 5);
    for (const chunkBytes of [7, 100, 4096]) assert.deepEqual(await search(tree, 'src', { chunkBytes }), whole);
  });

  it(
    'hostile queries and files: regex characters are plain text, quotes and backslashes match their JSON escapes, ' +
      'garbage lines are skipped, maxHits and abort stop the scan',
    async () => {
      const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-search-'));
      const file = path.join(dir, 's.jsonl');
      const lines = [
        '{"type":"session","id":"s","cwd":"/w","timestamp":"2026-01-01T00:00:00.000Z","version":3}',
        JSON.stringify({
          type: 'message',
          id: 'a1',
          parentId: null,
          timestamp: '',
          message: { role: 'user', content: 'pattern (a+)+$ and "quoted \\ path" — ünïcödé' },
        }),
        '{"type":"message", not json (a+)+$',
        JSON.stringify({
          type: 'message',
          id: 'a2',
          parentId: 'a1',
          timestamp: '',
          message: { role: 'user', content: `${'a'.repeat(50_000)}!` },
        }),
      ];
      await fsp.writeFile(file, `${lines.join('\n')}\n`);
      assert.deepEqual(
        (await search(file, '(a+)+$')).map((h) => h.entryId),
        ['a1'],
      );
      assert.deepEqual(
        (await search(file, '"quoted \\ path"')).map((h) => h.entryId),
        ['a1'],
      );
      assert.deepEqual(
        (await search(file, 'ÜNÏCÖDÉ')).map((h) => h.entryId),
        ['a1'],
      );
      assert.deepEqual(
        (await search(file, `${'a'.repeat(40_000)}!`)).map((h) => h.entryId),
        ['a2'],
      );
      assert.equal((await search(file, 'a', { maxHits: 1 })).length, 1);
      const controller = new AbortController();
      controller.abort();
      await assert.rejects(searchSession(file, { query: 'a', onHit: () => undefined, signal: controller.signal }), { name: 'AbortError' });
      assert.deepEqual(await search(file, '   '), [], 'an empty query finds nothing');
      await fsp.rm(dir, { recursive: true, force: true });
    },
  );
});
