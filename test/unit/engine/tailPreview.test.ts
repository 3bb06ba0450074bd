import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateSession } from '../../../bench/generateSession';
import { appendEntries } from '../../../src/engine/session/writer';
import { ArborUsageError } from '../../../src/engine/session/diagnostics';
import { loadedSession, loadedTailPreview } from '../../support/loadWhole';

describe('tail preview of a large session', function () {
  let dir: string;
  let file: string;

  before(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-preview-'));
    file = path.join(dir, 'big.jsonl');
    await generateSession({ file, targetBytes: 12 * 1024 * 1024, seed: 7 });
  });

  after(() => fsp.rm(dir, { recursive: true, force: true }));

  it('indexes the last MB as the same entries the full index ends with: ids, parents, line offsets, kinds', async () => {
    const full = await loadedSession(file);
    const preview = (await loadedTailPreview(file, { bytes: 1024 * 1024 }))!;
    assert.ok(preview.partial && !full.partial);
    assert.deepEqual(preview.header, full.header);
    assert.ok(preview.entryCount > 100 && preview.entryCount < full.entryCount);
    const k = full.entryCount - preview.entryCount;
    for (let p = 0; p < preview.entryCount; p++) {
      const a = preview.record(p);
      const b = full.record(k + p);
      assert.deepEqual(
        [a.id, a.parentId, a.type, a.role, a.start, a.end],
        [b.id, b.parentId, b.type, b.role, b.start, b.end],
        `entry ${p}`,
      );
      // Parents inside the preview are the same entries; parents before it make roots there.
      const pp = preview.parentIndex(p);
      assert.equal(pp < 0 ? full.parentIndex(k + p) < k : pp + k === full.parentIndex(k + p), true);
    }
    assert.equal(preview.leafId, full.leafId);
    assert.deepEqual(preview.entry(preview.leafIndex), full.entry(full.leafIndex));
    // Children (branch points) of the entries in the preview are all in it.
    for (let p = 0; p < preview.entryCount; p++)
      assert.deepEqual(
        preview.children(p).map((c) => c + k),
        [...full.children(k + p)],
      );
    assert.deepEqual(preview.diagnostics, []);
  });

  it('leaves a line still being written out, and is never written with', async () => {
    const copy = path.join(dir, 'cut.jsonl');
    await fsp.copyFile(file, copy);
    await fsp.appendFile(copy, '{"type":"message","id":"halfway1","parentId":null,"timest');
    const preview = (await loadedTailPreview(copy, { bytes: 512 * 1024 }))!;
    assert.equal(preview.has('halfway1'), false);
    const size = (await fsp.stat(copy)).size;
    await assert.rejects(appendEntries(preview, [{ type: 'custom', customType: 'x' }]), ArborUsageError);
    assert.equal((await fsp.stat(copy)).size, size);
  });

  it('has nothing to preview in a small file', async () => {
    const small = path.join(dir, 'small.jsonl');
    const text = (await fsp.readFile(file, 'utf8')).split('\n').slice(0, 20).join('\n') + '\n';
    await fsp.writeFile(small, text);
    assert.equal(await loadedTailPreview(small, { bytes: 1024 * 1024 }), undefined);
  });
});
