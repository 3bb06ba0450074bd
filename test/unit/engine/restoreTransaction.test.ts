/**
 * The restore transaction against a tree that changes during the run
 * (issue 20 item 1): hooks between the last verification and the replace
 * make each race deterministic.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fsp, existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSession } from '../../../src/engine/session/loadSession';
import { planRestore, restoreSteps, runRestore, undoLastRestore } from '../../../src/engine/files/restoreRun';
import { applyRestore } from '../../../src/engine/files/restoreTransaction';
import { hashHandle, HASH_BLOCK } from '../../../src/engine/files/fileHash';
import { fixturePath } from '../../support/fixtures';
import { projectAfterSession } from '../../support/filesProject';
import { leftoverTemps, snapshot } from '../../support/restoreProject';
import { readRestoreRecord } from '../../../src/engine/files/restoreRecords';

const session = fixturePath('pi-oracle', 'fixtures', '04-split-turn.jsonl');
const target = 'a241a739';
const sha = (t: string | Buffer) => createHash('sha256').update(t).digest('hex');

describe('restore transaction: re-verified, no-follow, backed up, rolled back', () => {
  const dirs: string[] = [];
  let env: NodeJS.ProcessEnv = {};
  beforeEach(async () => {
    const agent = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-agent-'));
    dirs.push(agent);
    env = { PI_CODING_AGENT_DIR: agent };
  });
  afterEach(async () => {
    for (const d of dirs.splice(0)) await fsp.rm(d, { recursive: true, force: true });
  });

  async function setup(deleteCreated = true) {
    const p = await projectAfterSession(session);
    dirs.push(p.dir);
    const index = await loadSession(session);
    const plan = await planRestore(index, index.indexOf(target), { root: p.dir, session, env });
    const { steps } = restoreSteps(plan.decisions, { deleteCreated, deleteHint: '' });
    return { dir: p.dir, root: plan.root, steps, before: await snapshot(p.dir) };
  }

  it('a folder swapped for a symbolic link between verification and write: nothing outside the working directory is written or deleted', async () => {
    const { dir, root, steps } = await setup();
    const outside = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-outside-'));
    dirs.push(outside);
    let swapped = false;
    const r = await runRestore(steps, {
      root,
      session,
      env,
      hooks: {
        beforeReplace: async () => {
          if (swapped) return;
          swapped = true;
          await fsp.rename(path.join(dir, 'docs'), path.join(outside, 'docs'));
          await fsp.symlink(path.join(outside, 'docs'), path.join(dir, 'docs'));
        },
      },
    });
    assert.deepEqual([r.written, r.deleted], [[], []], JSON.stringify(r));
    assert.equal(r.skipped.length, steps.length);
    assert.match(r.skipped[0].reason, /folder on the way \(docs\) was moved or replaced during the restore/);
    for (const s of r.skipped.slice(1)) assert.match(s.reason, /symbolic link/);
    const after = await projectAfterSession(session, await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-expected-')));
    dirs.push(after.dir);
    assert.deepEqual(
      await snapshot(outside),
      await snapshot(after.dir),
      'the moved folder holds exactly what it held: nothing written, nothing deleted',
    );
    assert.deepEqual(await leftoverTemps(outside), []);
    assert.equal(r.backupDir, undefined, 'nothing changed: no backup kept');
  });

  it('a user edit between the check and the write is kept: the file is skipped with the reason', async () => {
    const { dir, root, steps } = await setup(false);
    const first = steps[0].path;
    const r = await runRestore(steps, {
      root,
      session,
      env,
      hooks: { beforeReplace: (p) => (p === first ? fsp.appendFile(path.join(dir, first), 'typed by the user\n') : undefined) },
    });
    assert.deepEqual(r.skipped, [{ path: first, reason: 'changed on disk during the restore (after it was verified); left as it is' }]);
    assert.match(await fsp.readFile(path.join(dir, first), 'utf8'), /typed by the user\n$/);
    assert.equal(r.written.length, steps.length - 1);
    assert.deepEqual(await leftoverTemps(dir), []);
    const manifest = await readRestoreRecord(r.backupDir!);
    assert.deepEqual(
      manifest.files.map((f: { path: string }) => f.path),
      r.written,
      'the skipped file has no backup record',
    );
  });

  it('a file changed after planning (before its turn) is skipped: hashed again right before', async () => {
    const { dir, root, steps } = await setup(false);
    await fsp.writeFile(path.join(dir, steps[1].path), 'rewritten after the plan\n');
    const r = await runRestore(steps, { root, session, env });
    assert.deepEqual(r.skipped, [{ path: steps[1].path, reason: 'changed on disk since the restore was planned; left as it is' }]);
    assert.equal(await fsp.readFile(path.join(dir, steps[1].path), 'utf8'), 'rewritten after the plan\n');
  });

  it('a failing write midway rolls back what was written and reports it; nothing after it is tried; undo has nothing to do', async () => {
    const { dir, root, steps, before } = await setup();
    assert.ok(steps.length >= 3);
    const failAt = steps[2].path;
    const r = await runRestore(steps, {
      root,
      session,
      env,
      hooks: {
        beforeReplace: (p) => {
          if (p === failAt) throw Object.assign(new Error('EIO: i/o error, simulated'), { code: 'EIO' });
        },
      },
    });
    assert.deepEqual(r.failure, {
      path: failAt,
      error: 'EIO: i/o error, simulated',
      rolledBack: [steps[1].path, steps[0].path],
      notRolledBack: [],
    });
    assert.deepEqual(r.written, [steps[0].path, steps[1].path], 'what was written before the failure, reported');
    assert.deepEqual(await snapshot(dir), before, 'every file as before');
    assert.deepEqual(await leftoverTemps(dir), []);
    const manifest = await readRestoreRecord(r.backupDir!);
    assert.equal(manifest.state, 'rolled-back');
    const undo = await undoLastRestore({ root, session, env });
    assert.equal(undo.undone, false);
    assert.match((undo as { reason: string }).reason, /rolled back: nothing to undo/);
  });

  it('a missing file is created (a new file never overwrites one that appeared), its new folders too; undo removes both', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-create-'));
    dirs.push(dir);
    const steps = [
      { path: 'new/deep/file.txt', action: 'write' as const, text: 'made\n', onDisk: null },
      { path: 'raced.txt', action: 'write' as const, text: 'mine?\n', onDisk: null },
    ];
    const r = await runRestore(steps, {
      root: dir,
      session,
      env,
      hooks: { beforeReplace: (p) => (p === 'raced.txt' ? fsp.writeFile(path.join(dir, 'raced.txt'), 'appeared\n') : undefined) },
    });
    assert.deepEqual(r.written, ['new/deep/file.txt']);
    assert.deepEqual(r.skipped, [
      { path: 'raced.txt', reason: 'changed on disk during the restore (after it was verified); left as it is' },
    ]);
    assert.equal(await fsp.readFile(path.join(dir, 'raced.txt'), 'utf8'), 'appeared\n');
    const undo = await undoLastRestore({ root: dir, session, env });
    assert.equal(undo.undone, true);
    assert.ok(!existsSync(path.join(dir, 'new')), 'the created folders are gone');
    assert.deepEqual([...(await snapshot(dir)).keys()], ['raced.txt']);
  });

  it('never follows a link at the last component: a file swapped for a link to outside is not written through', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-link-'));
    const outside = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-outside-'));
    dirs.push(dir, outside);
    await fsp.writeFile(path.join(dir, 'a.txt'), 'old\n');
    await fsp.writeFile(path.join(outside, 'secret.txt'), 'keep\n');
    const r = await applyRestore([{ path: 'a.txt', action: 'write', text: 'new\n', onDisk: sha('old\n') }], {
      root: dir,
      hooks: {
        beforeReplace: async () => {
          await fsp.unlink(path.join(dir, 'a.txt'));
          await fsp.symlink(path.join(outside, 'secret.txt'), path.join(dir, 'a.txt'));
        },
      },
    });
    assert.deepEqual(r.written, []);
    assert.equal(await fsp.readFile(path.join(outside, 'secret.txt'), 'utf8'), 'keep\n');
    assert.deepEqual(await leftoverTemps(dir), []);
    const planned = await applyRestore([{ path: 'a.txt', action: 'delete', onDisk: sha('keep\n') }], { root: dir });
    assert.match(planned.skipped[0].reason, /symbolic link/);
    assert.ok(existsSync(path.join(outside, 'secret.txt')));
  });

  it('hashes as a stream: reads of at most one block, any size, the same hash', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-hash-'));
    dirs.push(dir);
    const file = path.join(dir, 'big.bin');
    const data = Buffer.alloc(HASH_BLOCK * 3 + 12345, 7);
    await fsp.writeFile(file, data);
    const h = await fsp.open(file, 'r');
    let largest = 0;
    let reads = 0;
    const counting = new Proxy(h, {
      get(t, k) {
        if (k === 'read')
          return (buf: Buffer, off: number, len: number, pos: number) => {
            reads++;
            largest = Math.max(largest, len);
            return t.read(buf, off, len, pos);
          };
        const v = Reflect.get(t, k);
        return typeof v === 'function' ? v.bind(t) : v;
      },
    });
    try {
      const r = await hashHandle(counting);
      assert.deepEqual(r, { sha256: sha(data), size: data.length });
      assert.equal(largest, HASH_BLOCK);
      assert.equal(reads, 5);
    } finally {
      await h.close();
    }
  });
});
