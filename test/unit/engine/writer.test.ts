import * as assert from 'node:assert/strict';
import { promises as fsp, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fixturePath, oracleCases } from '../../support/fixtures';
import { loadSession } from '../../../src/engine/session/loadSession';
import { appendEntries, StaleSessionError } from '../../../src/engine/session/writer';
import { readAppended } from '../../../src/engine/session/tail';
import { upgradeSessionFile } from '../../../src/engine/session/upgrade';
import { ArborUsageError } from '../../../src/engine/session/diagnostics';

async function copyToTemp(src: string): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-writer-'));
  const file = path.join(dir, path.basename(src));
  await fsp.copyFile(src, file);
  return file;
}

describe('append-only writer', () => {
  it('appends complete lines as children of the leaf and never changes existing bytes', async () => {
    const file = await copyToTemp(oracleCases()[0].sessionFile);
    const before = await fsp.readFile(file);
    const index = await loadSession(file);
    const leaf = index.leafId;
    const written = await appendEntries(index, [
      { type: 'custom', customType: 'test', data: { n: 1 } },
      { type: 'label', targetId: leaf, label: 'x' },
    ]);
    const after = await fsp.readFile(file);
    assert.deepEqual(after.subarray(0, before.length), before);
    const added = after.subarray(before.length).toString('utf8');
    assert.ok(added.endsWith('\n'));
    const lines = added
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(lines.length, 2);
    assert.equal(lines[0].parentId, leaf);
    assert.equal(lines[1].parentId, lines[0].id);
    for (const e of lines) assert.match(e.id, /^[0-9a-f]{8}$/);
    assert.equal(index.leafId, written[1].id);
    const reloaded = await loadSession(file);
    assert.equal(reloaded.leafId, written[1].id);
    assert.equal(reloaded.labelOf(leaf!), 'x');
  });

  it('starts a new line after a cut-off last line, leaving it on disk', async () => {
    const file = await copyToTemp(fixturePath('sessions', 'invalid-lines-truncated-tail.jsonl'));
    const before = await fsp.readFile(file);
    const index = await loadSession(file);
    const [e] = await appendEntries(index, [{ type: 'custom', customType: 'after-cut' }]);
    const after = await fsp.readFile(file);
    assert.deepEqual(after.subarray(0, before.length), before);
    assert.equal(after.subarray(before.length).toString('utf8'), `\n${JSON.stringify(e)}\n`);
    const reloaded = await loadSession(file);
    assert.equal(reloaded.leafId, e.id);
    assert.equal(e.parentId, 'u2');
  });

  it('refuses to attach to a stale leaf when another writer appended, and writes nothing', async () => {
    const file = await copyToTemp(oracleCases()[0].sessionFile);
    const index = await loadSession(file);
    const planned = index.leafId;
    await fsp.appendFile(
      file,
      JSON.stringify({
        type: 'custom',
        id: 'deadbeef',
        parentId: planned,
        timestamp: new Date().toISOString(),
        customType: 'other-writer',
      }) + '\n',
    );
    const size = (await fsp.stat(file)).size;
    await assert.rejects(appendEntries(index, [{ type: 'custom', customType: 'mine' }], { expectedLeafId: planned }), StaleSessionError);
    assert.equal((await fsp.stat(file)).size, size);
    assert.equal(index.leafId, 'deadbeef'); // the index saw the other writer's entry
  });

  it('hands the complete entries to beforeWrite before any byte lands, and never for a refused append', async () => {
    const file = await copyToTemp(oracleCases()[0].sessionFile);
    const index = await loadSession(file);
    const size = (await fsp.stat(file)).size;
    const seen: { ids: string[]; sizeThen: number }[] = [];
    const written = await appendEntries(
      index,
      [
        { type: 'custom', customType: 'a' },
        { type: 'custom', customType: 'b' },
      ],
      {
        beforeWrite: (entries) => seen.push({ ids: entries.map((e) => e.id), sizeThen: statSync(file).size }),
      },
    );
    assert.deepEqual(seen, [{ ids: written.map((e) => e.id), sizeThen: size }]);
    const planned = index.leafId;
    await fsp.appendFile(
      file,
      JSON.stringify({ type: 'custom', id: 'cafef00d', parentId: planned, timestamp: new Date().toISOString(), customType: 'other' }) +
        '\n',
    );
    const calls = seen.length;
    await assert.rejects(
      appendEntries(index, [{ type: 'custom', customType: 'c' }], {
        expectedLeafId: planned,
        beforeWrite: () => seen.push({ ids: [], sizeThen: -1 }),
      }),
      StaleSessionError,
    );
    assert.equal(seen.length, calls);
  });

  it('reads only appended bytes, including a line completed later', async () => {
    const file = await copyToTemp(oracleCases()[0].sessionFile);
    const index = await loadSession(file);
    const line = JSON.stringify({
      type: 'custom',
      id: 'feedf00d',
      parentId: index.leafId,
      timestamp: new Date().toISOString(),
      customType: 'tail',
    });
    await fsp.appendFile(file, line.slice(0, 20));
    assert.deepEqual(await readAppended(index), { added: 0, replaced: false });
    await fsp.appendFile(file, line.slice(20) + '\n');
    assert.deepEqual(await readAppended(index), { added: 1, replaced: false });
    assert.equal(index.leafId, 'feedf00d');
  });

  it('refuses to append to a v1 file, and upgrades it on request with a backup', async () => {
    const file = await copyToTemp(fixturePath('sessions', 'v1-linear.jsonl'));
    const original = await fsp.readFile(file);
    const index = await loadSession(file);
    await assert.rejects(appendEntries(index, [{ type: 'custom', customType: 'x' }]), ArborUsageError);
    assert.deepEqual(await fsp.readFile(file), original);
    const r = await upgradeSessionFile(file);
    assert.equal(r.fromVersion, 1);
    assert.deepEqual(await fsp.readFile(r.backup), original);
    const upgraded = await loadSession(file);
    assert.equal(upgraded.version, 3);
    assert.deepEqual(upgraded.diagnostics, []);
    const ids = Array.from({ length: index.entryCount }, (_, i) => index.record(i).id);
    assert.deepEqual(
      Array.from({ length: upgraded.entryCount }, (_, i) => upgraded.record(i).id),
      ids,
    );
    await appendEntries(upgraded, [{ type: 'custom', customType: 'now-allowed' }]);
  });
});
