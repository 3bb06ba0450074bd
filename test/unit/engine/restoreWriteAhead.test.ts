/**
 * Restore is write-ahead (issue 38 item 1): a kill after each step of each
 * file, an injected ENOSPC at each step, and a real full disk (a tiny tmpfs
 * for the backups, at every size where the restore fails) each leave a
 * journal from which undo puts back every file byte for byte, with no
 * temporary file left in the working directory.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { runRestore, undoLastRestore } from '../../../src/engine/files/restoreRun';
import type { RestorePoint, RestoreStep } from '../../../src/engine/files/restoreTransaction';
import { readRestoreRecord } from '../../../src/engine/files/restoreRecords';
import { leftoverTemps, snapshot, tempDirsPerTest } from '../../support/restoreProject';
import type { KillChildInput } from '../../support/restoreKillChild';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const POINTS: RestorePoint[] = ['backed-up', 'temp-written', 'intent', 'replaced'];
const killChild = path.join(__dirname, '..', '..', 'support', 'restoreKillChild.js');

/** A project of old files and the steps that restore it to new ones: a replace, a new file in new folders, a delete, another replace. */
async function project(dir: string, size = 0): Promise<RestoreStep[]> {
  const pad = (s: string) => s + 'x'.repeat(size) + '\n';
  await fsp.writeFile(path.join(dir, 'a.txt'), pad('a old'));
  await fsp.writeFile(path.join(dir, 'c.txt'), pad('c old'));
  await fsp.writeFile(path.join(dir, 'd.txt'), pad('d old'));
  return [
    { path: 'a.txt', action: 'write', text: pad('a new'), onDisk: sha(pad('a old')) },
    { path: 'new/deep/b.txt', action: 'write', text: pad('b new'), onDisk: null },
    { path: 'c.txt', action: 'delete', onDisk: sha(pad('c old')) },
    { path: 'd.txt', action: 'write', text: pad('d new'), onDisk: sha(pad('d old')) },
  ];
}

/** Many old files of `size` bytes each and the steps that replace them all. */
async function bigProject(dir: string, files: number, size: number): Promise<RestoreStep[]> {
  const steps: RestoreStep[] = [];
  for (let i = 0; i < files; i++) {
    const old = `f${i} old\n`.padEnd(size, 'o');
    await fsp.writeFile(path.join(dir, `f${i}.txt`), old);
    steps.push({ path: `f${i}.txt`, action: 'write', text: `f${i} new\n`.padEnd(size, 'n'), onDisk: sha(old) });
  }
  return steps;
}

function runKillChild(
  input: KillChildInput,
  inputFile: string,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; err: string }> {
  return fsp.writeFile(inputFile, JSON.stringify(input)).then(
    () =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [killChild, inputFile], { stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        child.stderr.on('data', (d) => (err += d));
        child.on('exit', (code, signal) => resolve({ code, signal, err }));
      }),
  );
}

describe('restore is write-ahead: a kill, a failure or a full disk at any step leaves an undoable journal', function () {
  const mounts: string[] = [];
  afterEach(() => {
    for (const m of mounts.splice(0)) execFileSync('umount', [m]);
  });
  const mkdtemp = tempDirsPerTest();
  const session = '/nonexistent/sessions/write-ahead.jsonl';

  it('a SIGKILL after each step of each file: --undo puts every file back byte for byte and leaves no temporary file', async () => {
    let kills = 0;
    for (const [i, point] of POINTS.flatMap((p) => [0, 1, 2, 3].map((n) => [n, p] as const))) {
      const root = await mkdtemp('arbor-wa-root-');
      const agentDir = await mkdtemp('arbor-wa-agent-');
      const steps = await project(root);
      const before = await snapshot(root);
      const r = await runKillChild(
        { steps, root, session, agentDir, kill: { point, path: steps[i].path } },
        path.join(agentDir, 'input.json'),
      );
      const what = `killed at ${point} of ${steps[i].path}`;
      if (r.signal !== 'SIGKILL') {
        // The point does not exist for this kind of step (no backup of a new file, no temporary file for a delete).
        assert.equal(r.code, 0, `${what}: ${r.err}`);
        assert.ok(
          (point === 'backed-up' && steps[i].onDisk === null) || (point === 'temp-written' && steps[i].action === 'delete'),
          `${what}: the point never came`,
        );
        continue;
      }
      kills++;
      const env = { PI_CODING_AGENT_DIR: agentDir };
      const undo = await undoLastRestore({ root, session, env });
      if (undo.undone) assert.equal(undo.interrupted, true, what);
      else assert.match(undo.reason, /no restore of this session/, `${what}: only a journal naming nothing may be passed over`);
      assert.deepEqual(await snapshot(root), before, `${what}: every file as before`);
      assert.deepEqual(await leftoverTemps(root), [], `${what}: no temporary file left`);
      assert.ok(!existsSync(path.join(root, 'new')), `${what}: the folders it made are gone`);
      if (undo.undone) assert.equal(undo.skipped.length, 0, `${what}: ${JSON.stringify(undo.skipped)}`);
    }
    assert.equal(kills, 14, 'every point of every step was reached once');
  });

  it('an interrupted restore is undone before an older completed one, and the next undo then undoes the older one', async () => {
    const root = await mkdtemp('arbor-wa-root-');
    const agentDir = await mkdtemp('arbor-wa-agent-');
    const env = { PI_CODING_AGENT_DIR: agentDir };
    const steps = await project(root);
    const original = await snapshot(root);
    const first = await runRestore(steps, { root, session, env });
    assert.equal(first.failure, undefined);
    const afterFirst = await snapshot(root);
    const again: RestoreStep[] = [...afterFirst].map(([p, text]) => ({
      path: p,
      action: 'write',
      text: `${text}again\n`,
      onDisk: sha(text),
    }));
    const r = await runKillChild(
      { steps: again, root, session, agentDir, kill: { point: 'replaced', path: again[1].path } },
      path.join(agentDir, 'input.json'),
    );
    assert.equal(r.signal, 'SIGKILL', r.err);
    const undo = await undoLastRestore({ root, session, env });
    assert.ok(undo.undone && undo.interrupted, JSON.stringify(undo));
    assert.deepEqual(await snapshot(root), afterFirst, 'the interrupted run is undone: the files as the completed one left them');
    const older = await undoLastRestore({ root, session, env });
    assert.ok(older.undone && !older.interrupted, JSON.stringify(older));
    assert.deepEqual(await snapshot(root), original);
  });

  it('an injected ENOSPC at each step of each file: rolled back at once, every file as before, no temporary file, nothing left to undo', async () => {
    for (const [i, point] of POINTS.flatMap((p) => [0, 1, 2, 3].map((n) => [n, p] as const))) {
      const root = await mkdtemp('arbor-wa-root-');
      const env = { PI_CODING_AGENT_DIR: await mkdtemp('arbor-wa-agent-') };
      const steps = await project(root);
      const before = await snapshot(root);
      let fired = false;
      const r = await runRestore(steps, {
        root,
        session,
        env,
        hooks: {
          at: (p, file) => {
            if (p !== point || file !== steps[i].path) return;
            fired = true;
            throw Object.assign(new Error('ENOSPC: no space left on device, write (injected)'), { code: 'ENOSPC' });
          },
        },
      });
      const what = `ENOSPC at ${point} of ${steps[i].path}`;
      if (!fired) continue;
      assert.equal(r.failure?.path, steps[i].path, what);
      assert.deepEqual(r.failure?.notRolledBack, [], what);
      assert.deepEqual(await snapshot(root), before, `${what}: every file as before`);
      assert.deepEqual(await leftoverTemps(root), [], what);
      if (r.backupDir) assert.equal((await readRestoreRecord(r.backupDir)).state, 'rolled-back', what);
      const undo = await undoLastRestore({ root, session, env });
      if (undo.undone) assert.deepEqual([undo.written, undo.deleted], [[], []], what);
      assert.deepEqual(await snapshot(root), before, `${what}: after undo`);
    }
  });

  it('the backups on a tiny filesystem, at every size where the restore fails: every file as before, undo has nothing left to do', async function () {
    const files = 10;
    const size = 24 * 1024;
    let failures = 0;
    let completes = 0;
    for (let kb = 8; kb <= 320; kb += 8) {
      const root = await mkdtemp('arbor-wa-root-');
      const agentDir = await mkdtemp('arbor-wa-tmpfs-');
      try {
        execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${kb}k,mode=0700`, 'tmpfs', agentDir], { stdio: 'pipe' });
      } catch (err) {
        assert.fail(`mounting a tmpfs (as root) failed, so the full-disk test cannot run: ${(err as Error).message}`);
      }
      mounts.push(agentDir);
      const env = { PI_CODING_AGENT_DIR: agentDir };
      const steps = await bigProject(root, files, size);
      const before = await snapshot(root);
      let r: Awaited<ReturnType<typeof runRestore>> | undefined;
      let thrown: Error | undefined;
      try {
        r = await runRestore(steps, { root, session, env });
      } catch (err) {
        thrown = err as Error;
      }
      const what = `backups on a ${kb} KB filesystem`;
      if (thrown) {
        assert.match(thrown.message, /^nothing was restored: the restore's journal could not be written under .*ENOSPC/, what);
        assert.deepEqual(await snapshot(root), before, what);
        failures++;
      } else if (r!.failure) {
        failures++;
        assert.match(r!.failure.error, /ENOSPC/, what);
        assert.deepEqual(r!.failure.notRolledBack, [], what);
        assert.deepEqual(await snapshot(root), before, `${what}: rolled back, byte for byte`);
        const undo = await undoLastRestore({ root, session, env });
        if (undo.undone) assert.deepEqual([undo.written, undo.deleted, undo.skipped], [[], [], []], `${what}: ${JSON.stringify(undo)}`);
      } else {
        completes++;
        assert.equal(r!.written.length, files, what);
        const undo = await undoLastRestore({ root, session, env });
        assert.ok(undo.undone && !undo.failure, `${what}: ${JSON.stringify(undo)}`);
      }
      assert.deepEqual(await snapshot(root), before, `${what}: every file as before`);
      assert.deepEqual(await leftoverTemps(root), [], what);
      execFileSync('umount', [mounts.pop()!]);
    }
    assert.ok(failures >= 20, `the restore failed at ${failures} sizes`);
    assert.ok(completes >= 1, 'and completed once the backups fit');
  });
});
