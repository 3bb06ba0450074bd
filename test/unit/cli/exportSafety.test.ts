/** `arbor export --out` never writes a session (issue 20 item 2) and streams its output (item 5, export half). */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main';
import { loadSession } from '../../../src/engine/session/loadSession';
import { exportBranch, exportPieces } from '../../../src/engine/export/exportBranch';
import { fixturePath } from '../../support/fixtures';
import { json, run } from '../../support/cliInProcess';
import { cli } from '../../support/builtCli';

const fixture = fixturePath('pi-oracle', 'fixtures', '03-tree.jsonl');

describe('arbor export --out: never a session, --force, --json, streamed', () => {
  let dir = '';
  let session = '';
  let original = '';
  beforeEach(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-export-'));
    session = path.join(dir, 'session.jsonl');
    original = await fsp.readFile(fixture, 'utf8');
    await fsp.writeFile(session, original);
  });
  afterEach(() => fsp.rm(dir, { recursive: true, force: true }));

  const unchanged = async () => assert.equal(await fsp.readFile(session, 'utf8'), original, 'the session is untouched');
  const noTemps = async (d: string) =>
    assert.deepEqual(
      (await fsp.readdir(d)).filter((n) => n.includes('.arbor-')),
      [],
      'no temporary file left',
    );

  it('refuses a symbolic link, a hard link and a symlinked folder leading to the session, even with --force', async () => {
    await fsp.symlink(session, path.join(dir, 'link.md'));
    await fsp.link(session, path.join(dir, 'hard.md'));
    await fsp.symlink(dir, path.join(dir, 'folder-link'));
    for (const out of [
      path.join(dir, 'link.md'),
      path.join(dir, 'hard.md'),
      path.join(dir, 'folder-link', 'session.jsonl'),
      path.join(dir, 'folder-link', 'hard.md'),
      session,
    ]) {
      for (const force of [[], ['--force']]) {
        const r = await run(['export', session, '--out', out, ...force]);
        assert.equal(r.code, 2, `${out} ${force}`);
        assert.match(r.err, /session file itself|read as a session/, r.err);
      }
    }
    await unchanged();
    await noTemps(dir);
  });

  it('refuses a .jsonl path and an existing file that starts like a Pi session', async () => {
    const other = path.join(dir, 'other.md');
    await fsp.writeFile(other, '{"type":"session","version":3,"id":"x","cwd":"/"}\n');
    const r = await run(['export', session, '--out', other, '--force']);
    assert.equal(r.code, 2);
    assert.match(r.err, /is a Pi session file/);
    assert.match((await run(['export', session, '--out', path.join(dir, 'new.jsonl')])).err, /read as a session by Arbor and Pi/);
  });

  it('issue 38 item 3: a session is recognised by parsing its first line, whatever the key order and spacing (--force too)', async () => {
    for (const name of ['reordered-header.txt', 'spaced-header.txt']) {
      const other = path.join(dir, `${name}.md`);
      const text = await fsp.readFile(fixturePath('export-targets', name), 'utf8');
      await fsp.writeFile(other, text);
      const r = await run(['export', session, '--out', other, '--force']);
      assert.equal(r.code, 2, `${name}: ${r.err}`);
      assert.match(r.err, /is a Pi session file: refusing to overwrite it/);
      assert.equal(await fsp.readFile(other, 'utf8'), text, `${name} untouched`);
    }
    // A first line that only starts like a header (prose) is not a session: --force replaces it.
    const prose = path.join(dir, 'prose.md');
    await fsp.copyFile(fixturePath('export-targets', 'prose-prefix.txt'), prose);
    const r = await run(['export', session, '--out', prose, '--force']);
    assert.equal(r.code, 0, r.err);
    assert.match(await fsp.readFile(prose, 'utf8'), /^# /);
    await noTemps(dir);
  });

  it('issue 38 item 3: --out through a link to /proc/self/fd/1 or /dev/stdout (stdout a file) is refused; the link stays', async function () {
    if (process.platform !== 'linux') this.skip();
    const captured = path.join(dir, 'stdout.txt');
    for (const to of ['/proc/self/fd/1', '/dev/stdout', '/dev/null']) {
      const link = path.join(dir, 'link.md');
      await fsp.rm(link, { force: true });
      await fsp.symlink(to, link);
      for (const out of [link, to]) {
        const fd = await fsp.open(captured, 'w');
        const child = spawn(process.execPath, [cli, 'export', session, '--out', out, '--force'], { stdio: ['ignore', fd.fd, 'pipe'] });
        let err = '';
        child.stderr!.on('data', (d) => (err += d));
        const code = await new Promise((resolve) => child.once('close', resolve));
        await fd.close();
        assert.equal(code, 2, `${out} -> ${to}: ${err}`);
        assert.match(err, /is a device or an open descriptor, not a file: leave out --out to write to stdout/);
        assert.doesNotMatch(err, /ENXIO|EACCES|EPERM/);
        assert.equal(await fsp.readFile(captured, 'utf8'), '', 'nothing written through the descriptor either');
      }
      assert.equal((await fsp.lstat(link)).isSymbolicLink(), true, `${link} is still a link`);
      assert.equal(await fsp.readlink(link), to);
    }
    await noTemps(dir);
    await unchanged();
  });

  it('issue 38 item 3: --out through a link to a regular file writes that file by rename beside it; the link stays; a folder link is refused', async () => {
    const elsewhere = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-export-elsewhere-'));
    try {
      const target = path.join(elsewhere, 'real.md');
      await fsp.writeFile(target, 'old\n');
      const link = path.join(dir, 'link.md');
      await fsp.symlink(target, link);
      const refused = await run(['export', session, '--out', link]);
      assert.equal(refused.code, 2);
      assert.match(refused.err, /exists: pass --force to replace it/);
      const before = await fsp.stat(target);
      const r = await run(['export', session, '--out', link, '--force']);
      assert.equal(r.code, 0, r.err);
      assert.equal((await fsp.lstat(link)).isSymbolicLink(), true, 'the link stays a link');
      assert.equal(await fsp.readFile(target, 'utf8'), await exportBranch(await loadSession(session), { format: 'md', title: 'session' }));
      assert.notEqual((await fsp.stat(target)).ino, before.ino, 'replaced by rename beside the target');
      const dangling = path.join(dir, 'dangling.md');
      await fsp.symlink(path.join(elsewhere, 'new.md'), dangling);
      assert.equal((await run(['export', session, '--out', dangling])).code, 2, 'a dangling link exists: --force needed');
      assert.equal((await run(['export', session, '--out', dangling, '--force'])).code, 0);
      assert.equal((await fsp.lstat(dangling)).isSymbolicLink(), true);
      assert.match(await fsp.readFile(path.join(elsewhere, 'new.md'), 'utf8'), /^# /);
      const folderLink = path.join(dir, 'folder.md');
      await fsp.symlink(elsewhere, folderLink);
      const folder = await run(['export', session, '--out', folderLink, '--force']);
      assert.equal(folder.code, 2);
      assert.match(folder.err, /leads to .*, which exists and is not a regular file/);
      await noTemps(dir);
      await noTemps(elsewhere);
      await unchanged();
    } finally {
      await fsp.rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('an existing file is replaced only with --force, atomically (a new file takes the name)', async () => {
    const out = path.join(dir, 'out.md');
    await fsp.writeFile(out, 'mine\n');
    const r = await run(['export', session, '--out', out]);
    assert.equal(r.code, 2);
    assert.match(r.err, /exists: pass --force to replace it/);
    assert.equal(await fsp.readFile(out, 'utf8'), 'mine\n');
    const before = await fsp.stat(out);
    const forced = await run(['export', session, '--out', out, '--force']);
    assert.equal(forced.code, 0, forced.err);
    const text = await fsp.readFile(out, 'utf8');
    assert.equal(text, await exportBranch(await loadSession(session), { format: 'md', title: 'session' }));
    assert.notEqual((await fsp.stat(out)).ino, before.ino, 'replaced by rename, not written in place');
    await noTemps(dir);
    await unchanged();
  });

  it('--out into a missing folder says the folder does not exist; --json gives what was written, and needs --out', async () => {
    const r = await run(['export', session, '--out', path.join(dir, 'nope', 'x.md')]);
    assert.equal(r.code, 2);
    assert.match(r.err, /the folder .*nope does not exist/);
    const meta = await json(['export', session, '--out', path.join(dir, 'x.html'), '--format', 'html']);
    assert.deepEqual(Object.keys(meta), ['out', 'format', 'leaf', 'bytes']);
    assert.equal(meta.bytes, (await fsp.stat(path.join(dir, 'x.html'))).size);
    assert.equal(meta.format, 'html');
    const bare = await run(['export', session, '--json']);
    assert.equal(bare.code, 2);
    assert.match(bare.err, /--json needs --out/);
  });

  it('streams: the document comes in pieces of at most one entry, stdout in bounded runs, the same text as in one string', async () => {
    // A long branch: 03-tree's entries, repeated as a chain of 3,000 messages of ~2 KB.
    const lines = [JSON.stringify({ type: 'session', version: 3, id: 'big', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w' })];
    let parent: string | null = null;
    for (let i = 0; i < 3000; i++) {
      const id = `e${i.toString(16).padStart(7, '0')}`;
      lines.push(
        JSON.stringify({
          type: 'message',
          id,
          parentId: parent,
          timestamp: '2026-01-01T00:00:01.000Z',
          message: { role: i % 2 ? 'assistant' : 'user', content: [{ type: 'text', text: `${i} ${'word '.repeat(400)}` }] },
        }),
      );
      parent = id;
    }
    const big = path.join(dir, 'big.jsonl');
    await fsp.writeFile(big, `${lines.join('\n')}\n`);
    const index = await loadSession(big); // no sync reads allowed: export loads its batches itself
    let count = 0;
    let longest = 0;
    let whole = '';
    for await (const piece of exportPieces(index, { format: 'md' })) {
      count++;
      longest = Math.max(longest, piece.length);
      whole += piece;
    }
    assert.equal(count, 3001, 'the head and one piece per entry');
    assert.ok(longest < 4096, `no piece larger than one entry (${longest})`);
    assert.equal(whole, await exportBranch(index, { format: 'md' }));
    const runs: number[] = [];
    let printed = '';
    const code = await runCli(['export', big], {
      out: (t) => {
        runs.push(t.length);
        printed += t;
      },
      err: () => undefined,
    });
    assert.equal(code, 0);
    assert.ok(runs.length > 50, `${runs.length} runs`);
    assert.ok(Math.max(...runs) < (1 << 16) + 4096, `runs bounded (${Math.max(...runs)})`);
    assert.equal(printed, await exportBranch(index, { format: 'md', title: 'big' }));
  });
});
