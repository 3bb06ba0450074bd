/**
 * Restore's lows of issue 38 item 9: a FIFO as a restore's record never
 * hangs, names that start with dots are restored, the owner is kept, a file
 * that vanishes in a race is a skip with what vanished, and backups are
 * pruned by count and age with one default.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fsp, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { runRestore, undoLastRestore } from '../../../src/engine/files/restoreRun';
import { sessionBackupsDir } from '../../../src/engine/files/restoreJournal';
import { backupRetentionFromEnv, DEFAULT_BACKUP_RETENTION, pruneRestoreBackups } from '../../../src/engine/files/backupRetention';
import { repoRoot } from '../../support/fixtures';
import { leftoverTemps, tempDirsPerTest } from '../../support/restoreProject';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const session = '/nonexistent/sessions/edges.jsonl';

describe('restore edges: FIFO records, dot names, owners, vanishing files, pruning', () => {
  const mkdtemp = tempDirsPerTest();
  const setup = async () => {
    const root = await mkdtemp('arbor-edge-root-');
    const env = { PI_CODING_AGENT_DIR: await mkdtemp('arbor-edge-agent-') };
    return { root, env };
  };

  it('a FIFO as the newest restore journal or manifest: undo refuses it at once, naming it, and never opens it for reading', async () => {
    for (const name of ['journal.jsonl', 'manifest.json']) {
      const { root, env } = await setup();
      await fsp.writeFile(path.join(root, 'a.txt'), 'old\n');
      const done = await runRestore([{ path: 'a.txt', action: 'write', text: 'new\n', onDisk: sha('old\n') }], { root, session, env });
      const fifoDir = path.join(sessionBackupsDir(session, env), '9999-newer');
      await fsp.mkdir(fifoDir, { recursive: true });
      execFileSync('mkfifo', [path.join(fifoDir, name)]);
      const undo = await undoLastRestore({ root, session, env });
      assert.equal(undo.undone, false);
      assert.match(
        (undo as { reason: string }).reason,
        /newer restore cannot be read .*is a FIFO \(named pipe\), not a regular file/,
        name,
      );
      assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'new\n', 'nothing undone past the unreadable record');
      // A new restore is not blocked by it either.
      const next = await runRestore([{ path: 'a.txt', action: 'write', text: 'newer\n', onDisk: sha('new\n') }], { root, session, env });
      assert.deepEqual(next.written, ['a.txt']);
      assert.ok(done.backupDir);
    }
  });

  it('names that start with dots (`..notes.txt`, `...txt`) are restored and undone like any other', async () => {
    const { root, env } = await setup();
    await fsp.writeFile(path.join(root, '..notes.txt'), 'old notes\n');
    const r = await runRestore(
      [
        { path: '..notes.txt', action: 'write', text: 'new notes\n', onDisk: sha('old notes\n') },
        { path: '...txt', action: 'write', text: 'dots\n', onDisk: null },
      ],
      { root, session, env },
    );
    assert.deepEqual([r.written, r.skipped], [['..notes.txt', '...txt'], []]);
    assert.equal(readFileSync(path.join(root, '..notes.txt'), 'utf8'), 'new notes\n');
    const undo = await undoLastRestore({ root, session, env });
    assert.ok(undo.undone);
    assert.deepEqual(await fsp.readdir(root), ['..notes.txt']);
    assert.equal(readFileSync(path.join(root, '..notes.txt'), 'utf8'), 'old notes\n');
  });

  it('a file owned by another user keeps its owner and group through restore and undo (as root); a user who may not is told', async () => {
    const { root, env } = await setup();
    const file = path.join(root, 'theirs.txt');
    await fsp.writeFile(file, 'old\n');
    await fsp.chown(file, 4321, 4322);
    await fsp.chmod(file, 0o640);
    const r = await runRestore([{ path: 'theirs.txt', action: 'write', text: 'new\n', onDisk: sha('old\n') }], { root, session, env });
    assert.deepEqual([r.written, r.notes], [['theirs.txt'], []]);
    let st = await fsp.stat(file);
    assert.deepEqual([st.uid, st.gid, st.mode & 0o777], [4321, 4322, 0o640]);
    const undo = await undoLastRestore({ root, session, env });
    assert.ok(undo.undone && !undo.notes.length);
    st = await fsp.stat(file);
    assert.deepEqual([st.uid, st.gid, st.mode & 0o777, readFileSync(file, 'utf8')], [4321, 4322, 0o640, 'old\n']);
    // A user who may not give the file away: the restore says so (run as an unprivileged user in a child process).
    const child = path.join(repoRoot, 'out', 'test', 'support', 'restoreAsUser.js');
    await fsp.chown(root, 4321, 4322);
    await fsp.writeFile(file, 'old\n');
    await fsp.chown(file, 4321, 4322);
    await fsp.chmod(file, 0o666);
    await fsp.chmod(root, 0o777);
    const agent = await mkdtemp('arbor-edge-agent-user-');
    await fsp.chmod(agent, 0o777);
    const out = execFileSync(process.execPath, [child, root, agent, session, '5555'], { encoding: 'utf8' });
    const notes = JSON.parse(out) as { path: string; note: string }[];
    assert.deepEqual(notes, [
      {
        path: 'theirs.txt',
        note: 'owner not kept (user 4321 is now 5555, group 4322 is now 5555): only root may give a file to another owner',
      },
    ]);
  });

  it('a temporary file removed by another program during the restore is a skip saying so, not an I/O error; the run goes on', async () => {
    const { root, env } = await setup();
    await fsp.writeFile(path.join(root, 'b.txt'), 'b\n');
    await fsp.writeFile(path.join(root, 'c.txt'), 'c\n');
    const r = await runRestore(
      [
        { path: 'b.txt', action: 'write', text: 'B\n', onDisk: sha('b\n') },
        { path: 'c.txt', action: 'write', text: 'C\n', onDisk: sha('c\n') },
      ],
      {
        root,
        session,
        env,
        hooks: {
          beforeReplace: async (p) => {
            if (p === 'b.txt') for (const t of await leftoverTemps(root)) await fsp.unlink(path.join(root, t));
          },
        },
      },
    );
    assert.equal(r.failure, undefined, JSON.stringify(r.failure));
    assert.deepEqual(r.skipped, [
      { path: 'b.txt', reason: 'its temporary file was removed by another program during the restore; left as it is' },
    ]);
    assert.deepEqual(r.written, ['c.txt']);
    assert.equal(readFileSync(path.join(root, 'b.txt'), 'utf8'), 'b\n');
    const undo = await undoLastRestore({ root, session, env });
    assert.ok(undo.undone && !undo.failure, JSON.stringify(undo));
    assert.deepEqual([undo.written, undo.skipped], [['c.txt'], []], 'the skipped file has no intent left in the journal');
    assert.equal(readFileSync(path.join(root, 'c.txt'), 'utf8'), 'c\n');
  });

  it('backups are pruned by count and by age (one default, the environment and package.json agree); a restore not put back is kept', async () => {
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
    const props = pkg.contributes.configuration.properties;
    assert.equal(props['arbor.restore.keepBackups'].default, DEFAULT_BACKUP_RETENTION.count);
    assert.equal(props['arbor.restore.keepBackupDays'].default, DEFAULT_BACKUP_RETENTION.days);
    assert.deepEqual(backupRetentionFromEnv({}), DEFAULT_BACKUP_RETENTION);
    assert.deepEqual(backupRetentionFromEnv({ ARBOR_RESTORE_KEEP_BACKUPS: '3', ARBOR_RESTORE_KEEP_BACKUP_DAYS: '0' }), {
      count: 3,
      days: 0,
    });
    assert.throws(
      () => backupRetentionFromEnv({ ARBOR_RESTORE_KEEP_BACKUPS: 'many' }),
      /ARBOR_RESTORE_KEEP_BACKUPS: "many" is not a whole number/,
    );

    const { root, env } = await setup();
    let text = 'v0\n';
    await fsp.writeFile(path.join(root, 'a.txt'), text);
    const made: string[] = [];
    for (let i = 1; i <= 5; i++) {
      const next = `v${i}\n`;
      const r = await runRestore([{ path: 'a.txt', action: 'write', text: next, onDisk: sha(text) }], {
        root,
        session,
        env,
        retention: { count: 3, days: 0 },
      });
      made.push(r.backupDir!);
      text = next;
    }
    const left = async () =>
      (await fsp.readdir(sessionBackupsDir(session, env))).map((n) => path.join(sessionBackupsDir(session, env), n)).sort();
    assert.deepEqual(await left(), made.slice(2), 'the newest 3 kept');
    // By age: a week from now, with 3 days kept, all go but the one named.
    const removed = await pruneRestoreBackups({ retention: { count: 0, days: 3 }, env, now: Date.now() + 7 * 86_400_000, keep: made[4] });
    assert.deepEqual(removed.sort(), made.slice(2, 4));
    assert.deepEqual(await left(), [made[4]]);
    // An interrupted restore whose files are not put back is never pruned.
    const journal = path.join(made[4], 'journal.jsonl');
    const lines = readFileSync(journal, 'utf8')
      .split('\n')
      .filter((l) => l && !l.includes('"t":"end"'));
    await fsp.writeFile(journal, lines.map((l) => l.replace(/"pid":\d+/, '"pid":999999999')).join('\n') + '\n');
    assert.deepEqual(await pruneRestoreBackups({ retention: { count: 0, days: 3 }, env, now: Date.now() + 7 * 86_400_000 }), []);
  });
});
