/** `arbor files` and `arbor restore` (in process) on projects re-created from real Pi sessions. */
import * as assert from 'node:assert/strict';
import { promises as fsp, existsSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { json, run, withTempAgentDir } from '../../support/cliInProcess';
import { loadSession } from '../../../src/engine/session/loadSession';
import { historyToEntry, sessionFiles } from '../../../src/engine/files/sessionFiles';
import { fixturePath } from '../../support/fixtures';
import { projectAfterSession } from '../../support/filesProject';

const oracle = (name: string) => fixturePath('pi-oracle', 'fixtures', `${name}.jsonl`);

/** Every file of the session that has a determined content at `entryId`, as the target state. */
async function stateAt(sessionFile: string, entryId: string, paths: string[]): Promise<Map<string, string | null>> {
  const index = await loadSession(sessionFile);
  const files = sessionFiles(index);
  const h = historyToEntry(index, index.indexOf(entryId), files, { track: paths.map((p) => `/home/user/project/${p}`) });
  const out = new Map<string, string | null>();
  for (const p of paths) {
    const c = h.files.get(`/home/user/project/${p}`)!.final;
    out.set(p, c.state === 'known' ? c.text : c.state === 'absent' ? null : undefined!);
  }
  return out;
}

describe('arbor files / arbor restore', () => {
  const dirs: string[] = [];
  const agentDir = withTempAgentDir(
    () => fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-agent-')),
    (d) => dirs.push(d),
  );
  afterEach(async () => {
    for (const d of dirs.splice(0)) await fsp.rm(d, { recursive: true, force: true });
  });
  const project = async (name: string) => {
    const p = await projectAfterSession(oracle(name));
    dirs.push(p.dir);
    return p;
  };

  it('files: the changes on the path to the leaf and what the session knows of each file', async () => {
    const r = await json(['files', oracle('03-tree')]);
    assert.deepEqual(
      r.files.map((f: any) => [f.path, f.changes.map((c: any) => `${c.kind}@${c.entryId}`), f.knownContent]),
      [
        ['src/math.js', ['edit@cf16be66', 'edit@37ff4a18'], false],
        ['test/math.test.js', ['edit@79fad624'], false],
        ['src/index.js', ['edit@2ff3d203'], false],
      ],
    );
    assert.match(r.files[0].reason, /node -e .* names it/);
    const ops = await json(['files', oracle('03-tree'), '--leaf', '55f6a1d0']);
    assert.deepEqual(
      ops.files.map((f: any) => f.path),
      ['src/ops.js'],
    );
    const text = await run(['files', oracle('03-tree')]);
    assert.match(text.out, /^src\/math\.js {2}\(2 changes; content not determined: /m);
    assert.match(text.out, /^ {2}edit {2}cf16be66$/m);
    assert.equal((await run(['files', oracle('03-tree'), '--leaf', 'nope'])).code, 2);
  });

  it('restore round trip: files as after the leaf → restore to an earlier entry → files as at that entry (04-split-turn)', async () => {
    const p = await project('04-split-turn');
    assert.deepEqual(p.written, ['docs/AUDIT.md', 'docs/guide-2.md', 'docs/guide-5.md', 'docs/guide-8.md']);
    const target = 'a241a739';
    const dry = await json(['restore', oracle('04-split-turn'), '--to', target, '--cwd', p.dir, '--dry-run']);
    assert.deepEqual(dry.restored.sort(), ['docs/guide-2.md', 'docs/guide-5.md', 'docs/guide-8.md']);
    assert.deepEqual(dry.deleted, []);
    assert.deepEqual(
      dry.skipped.map((s: any) => s.path),
      ['docs/AUDIT.md'],
    );
    assert.match(dry.skipped[0].reason, /--delete-created/);
    const before = await fsp.readFile(path.join(p.dir, 'docs/guide-2.md'), 'utf8');
    const done = await json(['restore', oracle('04-split-turn'), '--to', target, '--cwd', p.dir, '--delete-created']);
    assert.notEqual(await fsp.readFile(path.join(p.dir, 'docs/guide-2.md'), 'utf8'), before, 'the dry run wrote nothing, the real run did');
    assert.ok(done.backup.startsWith(path.join(agentDir(), 'arbor', 'restore-backups') + path.sep), done.backup);
    assert.deepEqual(done, { restored: dry.restored, skipped: [], deleted: ['docs/AUDIT.md'], dryRun: false, backup: done.backup });
    const want = await stateAt(oracle('04-split-turn'), target, p.written);
    for (const [rel, content] of want) {
      if (content === null) assert.ok(!existsSync(path.join(p.dir, rel)), `${rel} deleted`);
      else assert.equal(await fsp.readFile(path.join(p.dir, rel), 'utf8'), content, rel);
    }
    const again = await json(['restore', oracle('04-split-turn'), '--to', target, '--cwd', p.dir]);
    assert.deepEqual(again, { restored: [], skipped: [], deleted: [], dryRun: false }, 'a second restore finds nothing to do');
  });

  it('restore skips a file changed on disk after the session, and files whose content the session does not determine', async () => {
    const p = await project('04-split-turn');
    await fsp.appendFile(path.join(p.dir, 'docs/guide-5.md'), 'a line the user added\n');
    const r = await json(['restore', oracle('04-split-turn'), '--to', 'a241a739', '--cwd', p.dir]);
    assert.deepEqual(r.restored.sort(), ['docs/guide-2.md', 'docs/guide-8.md']);
    assert.deepEqual(
      r.skipped.find((s: any) => s.path === 'docs/guide-5.md'),
      { path: 'docs/guide-5.md', reason: 'changed on disk since the session last wrote it' },
    );
    assert.match(await fsp.readFile(path.join(p.dir, 'docs/guide-5.md'), 'utf8'), /a line the user added/);

    const tree = await project('03-tree');
    const t = await json(['restore', oracle('03-tree'), '--to', '9ae2613d', '--cwd', tree.dir]);
    assert.deepEqual(t.restored, []);
    const math = t.skipped.find((s: any) => s.path === 'src/math.js');
    assert.match(math.reason, /current content is not determined by the session: command `node -e .* names it/);
  });

  it('restore refuses to write through a symbolic link that leaves the working directory', async () => {
    const p = await project('04-split-turn');
    const outside = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-outside-'));
    dirs.push(outside);
    await fsp.rename(path.join(p.dir, 'docs'), path.join(outside, 'docs'));
    await fsp.symlink(path.join(outside, 'docs'), path.join(p.dir, 'docs'));
    const r = await json(['restore', oracle('04-split-turn'), '--to', 'a241a739', '--cwd', p.dir]);
    assert.deepEqual(r.restored, []);
    assert.ok(
      r.skipped.every((s: any) => /symbolic link/.test(s.reason) || /--delete-created/.test(s.reason)),
      JSON.stringify(r.skipped),
    );
    const usage = await run(['restore', oracle('04-split-turn')]);
    assert.equal(usage.code, 2);
  });

  it('issue 38 item 9: a socket where a file is restored is skipped with a clear reason, no /proc/self/fd path', async function () {
    if (process.platform === 'win32') this.skip();
    const p = await project('04-split-turn');
    const sock = path.join(p.dir, 'docs/guide-5.md');
    await fsp.rm(sock);
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(sock, resolve));
    try {
      const r = await json(['restore', oracle('04-split-turn'), '--to', 'a241a739', '--cwd', p.dir]);
      const skipped = r.skipped.find((s: any) => s.path === 'docs/guide-5.md');
      assert.ok(skipped, JSON.stringify(r));
      assert.match(skipped.reason, /socket/);
      assert.doesNotMatch(JSON.stringify(r), /\/proc\//);
      assert.ok((await fsp.lstat(sock)).isSocket(), 'the socket is left alone');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
