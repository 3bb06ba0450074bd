// One index per open session (issue 11 item 1): every command acts on the store's index; none indexes the file again.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { generateSession } from '../../../bench/generateSession';
import { arborApi, openCopy, rawTree, readEntries, waitFor } from './arborHelpers';
import { ReadCounter } from './perfHelpers';

type Result = { kind: string; [k: string]: unknown };

/** How many times the store indexed a file in full (the test-mode loader's count). */
async function indexLoads() {
  return (await arborApi()).internals.indexLoads;
}

describe('Session store: one index per session', () => {
  it('Compact, Jump Here, Set Label, Show Context and Show Summary use the held index; appends update it', async () => {
    const file = await openCopy('03-tree', 'store-one-index');
    const api = await arborApi();
    const index = await api.getSession(file);
    const loadsBefore = (await indexLoads())(file);
    assert.strictEqual(loadsBefore, 1, 'indexed once when opened');

    const jumped = await vscode.commands.executeCommand<Result>('arbor.jumpHere', { file, entryId: 'a9dae875' }, { summarize: 'none' });
    assert.strictEqual(jumped.kind, 'jumped');
    const labelled = await vscode.commands.executeCommand<string>('arbor.setLabel', { file, entryId: 'a9dae875' }, 'store-check');
    assert.strictEqual(labelled, 'store-check');
    // The path jumped to is short: its summary is not smaller than what it replaces, which the test allows (it is about the index).
    const compacted = await vscode.commands.executeCommand<Result>(
      'arbor.compact',
      { file },
      { instructions: '', review: false, allowLarger: true },
    );
    assert.strictEqual(compacted.kind, 'compacted');
    await vscode.commands.executeCommand('arbor.showContext', { file });
    await vscode.commands.executeCommand('arbor.showSummary', { file, entryId: compacted.entryId });

    assert.strictEqual((await indexLoads())(file), loadsBefore, 'no command indexed the file again');
    assert.strictEqual(await api.getSession(file), index, 'the same index object throughout');
    // The held index took every append in: it matches the file read without Arbor.
    const raw = rawTree(file);
    assert.strictEqual(index.entryCount, raw.ids.length);
    assert.strictEqual(index.leafId, raw.leafId);
    assert.strictEqual(index.labelOf('a9dae875'), 'store-check');
    const types = readEntries(file)
      .slice(-3)
      .map((e) => e.type);
    assert.deepStrictEqual(types, ['custom', 'label', 'compaction']);
  });

  it("the writer still refuses a stale plan: the held index is brought to the file's end before the leaf is checked", async () => {
    const file = await openCopy('01-plain', 'store-stale');
    const api = await arborApi();
    const leaf = rawTree(file).leafId;
    // Another writer appends while the compaction is being planned (the hook runs between plan and summary).
    const sub = api.onHook('session_before_compact', (e) => {
      if (e.file === file)
        fs.appendFileSync(
          file,
          `${JSON.stringify({ type: 'custom', id: 'feed0001', parentId: leaf, timestamp: new Date().toISOString(), customType: 'other-writer' })}\n`,
        );
      return undefined;
    });
    try {
      const result = await vscode.commands.executeCommand<Result | undefined>(
        'arbor.compact',
        { file },
        { instructions: '', review: false, skipLiveCheck: true },
      );
      assert.strictEqual(result, undefined, 'refused');
      const entries = readEntries(file);
      assert.strictEqual(entries[entries.length - 1].id, 'feed0001', "no compaction written after the other writer's entry");
    } finally {
      sub.dispose();
    }
    const index = await api.getSession(file);
    assert.strictEqual(index.leafId, 'feed0001', "the other writer's entry is in the held index");
    assert.strictEqual(index.entryCount, rawTree(file).ids.length, 'read once, not twice');
    assert.strictEqual((await indexLoads())(file), 1);
  });

  it('Set Label on a large session appends without indexing the file again (reading a fraction of it)', async function () {
    this.timeout(120_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-store-'));
    const file = path.join(dir, 'large.jsonl');
    await generateSession({ file, targetBytes: 24 * 1024 * 1024 });
    const old = new Date(Date.now() - 3600_000);
    fs.utimesSync(file, old, old);
    try {
      const api = await arborApi();
      const t0 = performance.now();
      await vscode.commands.executeCommand('arbor.openSessionFile', vscode.Uri.file(file));
      const index = await api.getSession(file);
      const loadMs = performance.now() - t0;
      const target = index.record(Math.floor(index.entryCount / 2)).id;
      const sizeBefore = fs.statSync(file).size;
      const t1 = performance.now();
      const reads = new ReadCounter(file);
      let readBytes: number;
      try {
        assert.strictEqual(await vscode.commands.executeCommand('arbor.setLabel', { file, entryId: target }, 'big-label'), 'big-label');
        await waitFor(() => index.labelOf(target) === 'big-label', 'the label in the held index');
      } finally {
        readBytes = reads.bytes;
        reads.dispose();
      }
      const labelMs = performance.now() - t1;
      assert.strictEqual((await indexLoads())(file), 1, 'indexed once');
      assert.ok(fs.statSync(file).size > sizeBefore);
      const last = JSON.parse(fs.readFileSync(file, 'utf8').trimEnd().split('\n').pop()!) as {
        type: string;
        targetId: string;
        label: string;
      };
      assert.deepStrictEqual([last.type, last.targetId, last.label], ['label', target, 'big-label']);
      // Bytes, not time (the machine is shared): appending one line and following it reads a fraction of the file.
      assert.ok(readBytes * 4 < sizeBefore, `Set Label read ${readBytes} bytes of a ${sizeBefore}-byte file`);
      console.log(
        `      Set Label on ${(sizeBefore / 1048576).toFixed(0)} MB: read ${readBytes} bytes, ${labelMs.toFixed(1)} ms (open + index ${loadMs.toFixed(0)} ms)`,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
