// The entry panel's data (issue 8 item 2): every part of a message, its line, and a cap on what a huge entry sends.
// And the context view's series (item 7): one point per context-changing entry, compactions marked.
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSession } from '../../../src/engine/session/loadSession';
import { buildEntryView, entryCopyText, MAX_ENTRY_CHARS, MAX_PART_CHARS } from '../../../src/vscode/panels/entryView';
import { contextSeries } from '../../../src/engine/context/contextSeries';
import { charsEstimator } from '../../../src/engine/tokens/estimators';
import { fixturePath } from '../../support/fixtures';

const MISC = fixturePath('workspace', '.pi', 'sessions', '2026-11-29T19-22-32-632Z_01a228c2-4f38-712a-998b-a276149551cb.jsonl');

async function session(lines: object[]): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-entry-'));
  const file = path.join(dir, 's.jsonl');
  await fsp.writeFile(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

describe('entry view', () => {
  it('shows every part of an assistant message: thinking, text, tool calls with pretty arguments; line and usage', async () => {
    const file = await session([
      { type: 'session', version: 3, id: 's1', timestamp: '2026-01-01T00:00:00Z', cwd: '/tmp' },
      {
        type: 'message',
        id: 'a1',
        parentId: null,
        timestamp: '2026-01-01T00:00:01Z',
        message: {
          role: 'user',
          content: [
            { type: 'text', text: 'hi' },
            { type: 'image', mimeType: 'image/png', data: 'AAAA' },
          ],
        },
      },
      {
        type: 'message',
        id: 'a2',
        parentId: 'a1',
        timestamp: '2026-01-01T00:00:02Z',
        message: {
          role: 'assistant',
          provider: 'openai',
          model: 'gpt-x',
          usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15 },
          stopReason: 'toolUse',
          content: [
            { type: 'thinking', thinking: 'hmm' },
            { type: 'text', text: 'ok' },
            { type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'a.ts' } },
          ],
        },
      },
    ]);
    const index = await loadSession(file);
    const v = buildEntryView(index, 'a2', { estimator: 'chars' });
    assert.equal(v.line, 3);
    assert.equal(v.model, 'openai/gpt-x');
    assert.equal(v.usage?.totalTokens, 15);
    assert.deepEqual(
      v.parts.map((p) => p.kind),
      ['thinking', 'text', 'toolCall'],
    );
    // The arguments laid out as key and value (issue 34); the JSON is for the exports and Copy Text.
    assert.deepEqual((v.parts[2] as { fields: unknown }).fields, [{ key: 'path', value: 'a.ts', block: false }]);
    assert.equal(v.isLeaf, true);
    const u = buildEntryView(index, 'a1', { estimator: 'chars' });
    assert.deepEqual(u.parts[1], { kind: 'image', mimeType: 'image/png', bytes: 3 });
    assert.throws(() => buildEntryView(index, 'zz', { estimator: 'chars' }), /entry zz is not in/);
  });

  it('a huge entry is cut: each part and the whole entry are capped, with the rest counted', async () => {
    const big = 'x'.repeat(MAX_PART_CHARS * 3);
    const results = Array.from({ length: 8 }, () => ({ type: 'text', text: big }));
    const file = await session([
      { type: 'session', version: 3, id: 's1', timestamp: '2026-01-01T00:00:00Z', cwd: '/tmp' },
      { type: 'message', id: 'u1', parentId: null, timestamp: '2026-01-01T00:00:01Z', message: { role: 'user', content: results } },
    ]);
    const index = await loadSession(file);
    const v = buildEntryView(index, 'u1', { estimator: 'chars' });
    const sent = v.parts.reduce((s, p) => s + ('text' in p ? p.text.length : 0), 0);
    assert.ok(sent <= MAX_ENTRY_CHARS, `${sent} characters sent`);
    assert.ok(v.parts.every((p) => !('text' in p) || p.text.length <= MAX_PART_CHARS));
    assert.equal(v.parts[0].more, MAX_PART_CHARS * 2);
    assert.ok(v.moreParts > 0);
    // Copy Text still copies everything.
    assert.equal(entryCopyText(index, 'u1').length, big.length * 8 + 2 * 7);
  });
});

describe('context series', () => {
  it('one point per context-changing entry on the path; the compaction marked and the context restarting there', async () => {
    const index = await loadSession(MISC);
    const points = contextSeries(index, index.leafIndex, charsEstimator);
    const path = index.pathTo(index.leafIndex);
    assert.ok(points.length > 0 && points.length <= path.length);
    const c = points.findIndex((p) => p.marker === 'compaction');
    assert.ok(c > 0, 'the compaction is on the path');
    assert.ok(points.every((p) => p.tokens >= 0 && Number.isFinite(p.tokens)));
    for (let k = 1; k < points.length; k++)
      assert.ok(path.indexOf(points[k].entryIndex) > path.indexOf(points[k - 1].entryIndex), 'in path order');
  });
});
