import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSession } from '../../../src/engine/session/loadSession';
import { loadTailPreview } from '../../../src/engine/session/tailPreview';
import { adoptPreviewWork } from '../../../src/vscode/tree/adoptPreview';
import { entryTokens } from '../../../src/engine/context/entryTokens';
import { loadWhole } from '../../support/loadWhole';

function line(id: string, parentId: string | null, text: string): string {
  return JSON.stringify({
    type: 'message',
    id,
    parentId,
    timestamp: '2026-01-01T00:00:00.000Z',
    message: { role: 'user', content: [{ type: 'text', text }], timestamp: 1 },
  });
}

describe('a preview giving way to the full index', () => {
  let dir: string;
  let file: string;

  before(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-adopt-'));
    file = path.join(dir, 's.jsonl');
    const lines = [JSON.stringify({ type: 'session', version: 3, id: 'adopt', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/tmp' })];
    let parent: string | null = null;
    for (let i = 0; i < 60; i++) {
      const id = `e${String(i).padStart(7, '0')}`;
      // One line looks like a message to the fast indexer but is not JSON: its parse fails.
      lines.push(
        i === 50
          ? `{"type":"message","id":"${id}","parentId":"${parent}","timestamp":"t","message":{"role":"user","content":[}}`
          : line(id, parent, `message ${i} `.repeat(20)),
      );
      parent = id;
    }
    await fsp.writeFile(file, lines.join('\n') + '\n');
  });

  after(() => fsp.rm(dir, { recursive: true, force: true }));

  it('carries parsed entries and token counts over by id and offset, but not a line that did not parse', async () => {
    const size = (await fsp.stat(file)).size;
    const preview = (await loadTailPreview(file, { bytes: Math.floor(size / 3) }))!;
    const full = await loadSession(file, { validation: 'fast' });
    await loadWhole(preview);
    for (let p = 0; p < preview.entryCount; p++) {
      preview.entry(p);
      entryTokens(preview, p, 'chars');
    }
    const broken = full.indexOf('e0000050');
    assert.ok(broken >= 0 && preview.indexOf('e0000050') >= 0);
    adoptPreviewWork(preview, full);
    const q = full.indexOf('e0000055');
    assert.equal(full.record(q).entry, preview.record(preview.indexOf('e0000055')).entry, 'the parsed entry is carried over');
    assert.equal(full.record(broken).entry, undefined, 'the placeholder is not');
    await full.load([broken]);
    assert.ok(
      full.diagnostics.some((d) => d.line === 52 && /invalid JSON/.test(d.message)),
      'the full index reports the broken line with its line number',
    );
    for (let p = 0; p < preview.entryCount; p++) {
      const i = full.indexAtOffset(preview.record(p).start, preview.record(p).id);
      assert.equal(full.record(i).id, preview.record(p).id);
      assert.equal(entryTokens(full, i, 'chars'), entryTokens(preview, p, 'chars'));
    }
    assert.equal(full.indexAtOffset(full.record(q).start, 'someone-else'), -1);
    assert.equal(full.indexAtOffset(full.record(q).start + 1, full.record(q).id), -1);
  });
});
