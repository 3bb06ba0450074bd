/** `arbor restore` as a transaction (issue 20 item 1): backups, --undo, a restore followed by another, lossy reads never written. */
import * as assert from 'node:assert/strict';
import { promises as fsp, existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { planRestore, restoreSteps } from '../../../src/engine/files/restoreRun';
import { json, run, withTempAgentDir } from '../../support/cliInProcess';
import { loadSession } from '../../../src/engine/session/loadSession';
import { fixturePath } from '../../support/fixtures';
import { projectAfterSession } from '../../support/filesProject';
import { leftoverTemps, snapshot } from '../../support/restoreProject';
import { readRestoreRecord } from '../../../src/engine/files/restoreRecords';

const oracle = (name: string) => fixturePath('pi-oracle', 'fixtures', `${name}.jsonl`);

describe('arbor restore: backups, --undo, restore after restore', () => {
  const dirs: string[] = [];
  withTempAgentDir(
    () => fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-agent-')),
    (d) => dirs.push(d),
  );
  afterEach(async () => {
    for (const d of dirs.splice(0)) await fsp.rm(d, { recursive: true, force: true });
  });
  const project = async (session: string) => {
    const p = await projectAfterSession(session);
    dirs.push(p.dir);
    return p;
  };
  const session = oracle('04-split-turn');
  const target = 'a241a739';

  it('backs up every file it changes, and --undo puts them back (a created-then-deleted file too); undo after undo does nothing', async () => {
    const p = await project(session);
    const after = await snapshot(p.dir);
    const done = await json(['restore', session, '--to', target, '--cwd', p.dir, '--delete-created']);
    assert.equal(done.deleted.length, 1);
    const manifest = await readRestoreRecord(done.backup);
    assert.equal(manifest.state, 'complete');
    assert.equal(manifest.files.length, done.restored.length + done.deleted.length);
    for (const f of manifest.files)
      assert.equal(await fsp.readFile(path.join(done.backup, f.backup!), 'utf8'), after.get(f.path), `backup of ${f.path}`);
    const restored = await snapshot(p.dir);
    assert.notDeepEqual(restored, after);

    const undo = await json(['restore', session, '--undo', '--cwd', p.dir]);
    assert.equal(undo.undone, true);
    assert.deepEqual([...undo.restored].sort(), [...done.restored, ...done.deleted].sort());
    assert.deepEqual(await snapshot(p.dir), after, 'every file as before the restore');
    const again = await json(['restore', session, '--undo', '--cwd', p.dir]);
    assert.equal(again.undone, false);
    assert.match(again.reason, /already undone/);
    assert.deepEqual(await snapshot(p.dir), after, 'a second undo changed nothing');
    const text = await run(['restore', session, '--undo', '--cwd', p.dir]);
    assert.equal(text.code, 0);
    assert.match(text.out, /^nothing to undo: the last restore .* was already undone/m);
    assert.deepEqual(await leftoverTemps(p.dir), []);
  });

  it('after a restore, restore --to the old leaf writes the files back (not "nothing to restore"); undo then goes back to the first restore', async () => {
    const p = await project(session);
    const after = await snapshot(p.dir);
    const leaf = (await loadSession(session)).leafId!;
    await json(['restore', session, '--to', target, '--cwd', p.dir, '--delete-created']);
    const atTarget = await snapshot(p.dir);
    const back = await run(['restore', session, '--to', leaf, '--cwd', p.dir]);
    assert.equal(back.code, 0, back.err);
    assert.doesNotMatch(back.out, /nothing to restore/);
    assert.match(back.out, /^restore docs\/guide-2\.md$/m);
    assert.equal(
      (await snapshot(p.dir)).get('docs/guide-2.md'),
      after.get('docs/guide-2.md'),
      'edited on the leaf path: back as the session left it',
    );
    const twice = await json(['restore', session, '--to', leaf, '--cwd', p.dir]);
    assert.deepEqual([twice.restored, twice.deleted], [[], []], 'the second time, nothing left to write');
    assert.ok(
      twice.skipped.every((s: any) => /not verified/.test(s.reason)),
      JSON.stringify(twice.skipped),
    );
    const undo = await json(['restore', session, '--undo', '--cwd', p.dir]);
    assert.equal(undo.undone, true);
    assert.deepEqual(await snapshot(p.dir), atTarget, 'undo puts back the last restore only');
    const none = await run(['restore', session, '--to', target, '--cwd', p.dir]);
    assert.match(none.out, /nothing to restore/);
  });

  it('--undo re-verifies: a file changed since the restore is left alone with the reason', async () => {
    const p = await project(session);
    await json(['restore', session, '--to', target, '--cwd', p.dir]);
    const guide2 = path.join(p.dir, 'docs/guide-2.md');
    await fsp.appendFile(guide2, 'user edit\n');
    const undo = await json(['restore', session, '--undo', '--cwd', p.dir]);
    assert.equal(undo.skipped.length, 1);
    assert.equal(undo.skipped[0].path, 'docs/guide-2.md');
    const where = /^changed on disk since the restore wrote it; left as it is; its bytes before the restore are in (.+)$/.exec(
      undo.skipped[0].reason,
    );
    assert.ok(where, undo.skipped[0].reason);
    assert.doesNotMatch(await fsp.readFile(where[1], 'utf8'), /user edit/, 'the named backup holds the bytes before the restore');
    assert.match(await fsp.readFile(guide2, 'utf8'), /user edit\n$/);
    assert.deepEqual((await run(['restore', session, '--undo', '--to', target])).code, 2, '--undo takes no --to');
  });

  it('a restore killed midway is undone first, automatically, by the next restore (which says so); --dry-run only says it is pending', async () => {
    const p = await project(session);
    const after = await snapshot(p.dir);
    const index = await loadSession(session);
    const plan = await planRestore(index, index.indexOf(target), { root: p.dir, session });
    const { steps } = restoreSteps(plan.decisions, { deleteHint: '' });
    assert.ok(steps.length >= 2);
    const input = path.join(p.dir, '..', `${path.basename(p.dir)}-kill.json`);
    dirs.push(input);
    await fsp.writeFile(
      input,
      JSON.stringify({
        steps,
        root: plan.root,
        session,
        agentDir: process.env.PI_CODING_AGENT_DIR,
        kill: { point: 'replaced', path: steps[0].path },
      }),
    );
    const child = spawnSync(process.execPath, [path.join(__dirname, '..', '..', 'support', 'restoreKillChild.js'), input]);
    assert.equal(child.signal, 'SIGKILL', String(child.stderr));
    assert.notDeepEqual(await snapshot(p.dir), after, 'the killed run changed a file');
    const dry = await run(['restore', session, '--to', target, '--cwd', p.dir, '--dry-run']);
    assert.match(dry.out, /^an interrupted restore \(.*\) is undone first when you restore \(or: arbor restore --undo\)$/m);
    const text = await run(['restore', session, '--to', target, '--cwd', p.dir]);
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, /^an interrupted restore \(.*\) did not finish; undoing what it changed$/m);
    assert.match(text.out, new RegExp(`^put back ${steps[0].path.replace(/[.]/g, '\\.')}$`, 'm'));
    const undo = await json(['restore', session, '--undo', '--cwd', p.dir]);
    assert.equal(undo.undone, true);
    assert.deepEqual(await snapshot(p.dir), after, 'undo of the new restore: every file as before both');
    assert.deepEqual(await leftoverTemps(p.dir), []);
  });

  it('nothing to undo when no restore was made; the message says so', async () => {
    const p = await project(session);
    const r = await json(['restore', session, '--undo', '--cwd', p.dir]);
    assert.deepEqual(r, { undone: false, reason: 'no restore of this session in this working directory to undo' });
  });

  it('content the session saw only as lossy text (a binary file Pi read, an image it could not process) is not determined and never written', async () => {
    const bin = fixturePath('files', 'binary-read.jsonl');
    const p = await project(bin);
    assert.deepEqual(p.written, ['broken.png', 'logo.bin', 'notes.txt']);
    const r = await json(['restore', bin, '--to', 'bin00005', '--cwd', p.dir]);
    assert.deepEqual(r.restored, ['notes.txt']);
    assert.equal(await fsp.readFile(path.join(p.dir, 'notes.txt'), 'utf8'), 'old notes\n');
    const reasons = Object.fromEntries(r.skipped.map((s: any) => [s.path, s.reason]));
    assert.match(reasons['logo.bin'], /not determined by the session: the session saw it only as lossy text \(bytes that are not UTF-8/);
    assert.match(reasons['broken.png'], /not determined by the session: the session saw it only as an image/);
    assert.equal(await fsp.readFile(path.join(p.dir, 'logo.bin'), 'utf8'), 'text now\n');
    const files = await json(['files', bin, '--leaf', 'bin00005']);
    assert.deepEqual(files.files, [], 'reads change nothing');
    assert.ok(!existsSync(path.join(p.dir, 'logo.bin.arbor')));
  });
});
