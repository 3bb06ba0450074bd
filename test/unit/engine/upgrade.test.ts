/** Issue 13 item 7: `upgrade` keeps mode and owner, upgrades a symlink's target and keeps the link, and backs up a real copy. */
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fixturePath } from '../../support/fixtures';
import { loadSession } from '../../../src/engine/session/loadSession';
import { upgradeSessionFile } from '../../../src/engine/session/upgrade';
import { ArborUsageError } from '../../../src/engine/session/diagnostics';

async function v1Copy(dir?: string): Promise<string> {
  const d = dir ?? (await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-upgrade-')));
  const file = path.join(d, 'old.jsonl');
  await fsp.copyFile(fixturePath('sessions', 'v1-linear.jsonl'), file);
  return file;
}

describe('arbor upgrade keeps the file as it was, but version 3', () => {
  it('keeps a 0600 mode (on the file and on the backup)', async function () {
    if (process.platform === 'win32') this.skip();
    const file = await v1Copy();
    await fsp.chmod(file, 0o600);
    const r = await upgradeSessionFile(file);
    assert.equal((await fsp.stat(file)).mode & 0o777, 0o600);
    assert.equal((await fsp.stat(r.backup)).mode & 0o777, 0o600);
    assert.equal((await loadSession(file)).version, 3);
  });

  it('keeps the owner and group', async function () {
    if (process.platform === 'win32' || process.getuid?.() !== 0) this.skip(); // only root can give a file to another user
    const file = await v1Copy();
    await fsp.chown(file, 4242, 4343);
    const r = await upgradeSessionFile(file);
    for (const f of [file, r.backup]) {
      const st = await fsp.stat(f);
      assert.deepEqual([st.uid, st.gid], [4242, 4343], f);
    }
  });

  it('upgrades the target of a symbolic link and keeps the link', async function () {
    if (process.platform === 'win32') this.skip();
    const targetDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-upgrade-target-'));
    const target = await v1Copy(targetDir);
    const original = await fsp.readFile(target);
    const linkDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-upgrade-link-'));
    const link = path.join(linkDir, 'session.jsonl');
    await fsp.symlink(target, link);
    const r = await upgradeSessionFile(link);
    assert.ok((await fsp.lstat(link)).isSymbolicLink(), 'still a link');
    assert.equal(await fsp.readlink(link), target);
    assert.equal((await loadSession(target)).version, 3);
    // The backup is a real copy of the old bytes, not a link to the live file.
    const backup = await fsp.lstat(r.backup);
    assert.ok(backup.isFile());
    assert.deepEqual(await fsp.readFile(r.backup), original);
    assert.notEqual(backup.ino, (await fsp.stat(target)).ino);
    assert.deepEqual((await fsp.readdir(targetDir)).sort(), ['old.jsonl'], 'no temporary file left beside the target');
  });

  it('the backup is a real copy: it has its own inode and does not change with the upgraded file', async () => {
    const file = await v1Copy();
    const original = await fsp.readFile(file);
    const r = await upgradeSessionFile(file);
    const [a, b] = [await fsp.stat(file), await fsp.stat(r.backup)];
    assert.notEqual(a.ino, b.ino);
    assert.equal(b.nlink, 1);
    await fsp.appendFile(file, '\n');
    assert.deepEqual(await fsp.readFile(r.backup), original);
  });

  it('refuses (exit 2 from the CLI, nothing changed) a file with lines it cannot read, instead of dropping them from the new file', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-upgrade-'));
    const file = path.join(dir, 'bad.jsonl');
    await fsp.copyFile(fixturePath('sessions', 'v2-with-invalid-lines.jsonl'), file);
    const before = await fsp.readFile(file);
    await assert.rejects(
      upgradeSessionFile(file),
      (err: unknown) =>
        err instanceof ArborUsageError &&
        err.message.includes(`${file}:3: `) &&
        /\d+ lines Arbor cannot read/.test(err.message) &&
        /nothing was changed/.test(err.message),
    );
    assert.deepEqual(await fsp.readFile(file), before);
    assert.deepEqual((await fsp.readdir(dir)).sort(), ['bad.jsonl'], 'no backup, no temporary file');
  });
});
