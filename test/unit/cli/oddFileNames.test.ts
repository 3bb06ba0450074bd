/**
 * Issue 20, item 8: a file name with a backslash (legal on Linux) or a
 * no-break space names that file, never another. Tool paths follow Pi (its
 * tools read U+00A0 as a space: `nb\u00a0space.txt` is written as
 * `nb space.txt`); a backslash stays part of the name on POSIX.
 */
import * as assert from 'node:assert/strict';
import { promises as fsp, existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { json, run, withTempAgentDir } from '../../support/cliInProcess';
import { fixturePath } from '../../support/fixtures';
import { projectAfterSession } from '../../support/filesProject';
import { sessionsDirFor } from '../../../src/engine/session/discovery';

const FIXTURE = fixturePath('files', 'odd-names.jsonl');
const posix = process.platform !== 'win32';

describe('file names with a backslash or a no-break space (issue 20)', function () {
  if (!posix) return;
  const dirs: string[] = [];
  const agentDir = withTempAgentDir(
    () => fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-agent-')),
    (d) => dirs.push(d),
  );
  afterEach(async () => {
    for (const d of dirs.splice(0)) await fsp.rm(d, { recursive: true, force: true });
  });

  it('arbor files keeps `dir\\name.txt` apart from `dir/name.txt`, and reads U+00A0 in a tool path as Pi does', async () => {
    const r = await json(['files', FIXTURE]);
    assert.deepEqual(
      r.files.map((f: any) => [f.path, f.changes.map((c: any) => c.entryId)]),
      [
        ['dir\\name.txt', ['a0000001', 'a0000002']],
        ['dir/name.txt', ['a0000001']],
        ['nb space.txt', ['a0000002']],
        ['back\\slash.txt', ['a0000002']],
      ],
    );
  });

  it('arbor restore writes the file named with a backslash, not the one in a folder of that name', async () => {
    const p = await projectAfterSession(FIXTURE);
    dirs.push(p.dir);
    const read = (rel: string) => fsp.readFile(path.join(p.dir, rel), 'utf8');
    assert.equal(await read('dir\\name.txt'), 'second\n');
    assert.equal(await read('dir/name.txt'), 'other\n');
    const done = await json(['restore', FIXTURE, '--to', 'r0000002', '--cwd', p.dir, '--delete-created']);
    assert.deepEqual(done.restored, ['dir\\name.txt']);
    assert.deepEqual([...done.deleted].sort(), ['back\\slash.txt', 'nb space.txt']);
    assert.equal(await read('dir\\name.txt'), 'first\n');
    assert.equal(await read('dir/name.txt'), 'other\n', 'the file in the folder "dir" is not touched');
    assert.ok(!existsSync(path.join(p.dir, 'back\\slash.txt')));
    assert.ok(!existsSync(path.join(p.dir, 'back', 'slash.txt')));
    assert.ok(existsSync(path.join(p.dir, 'dir', 'name.txt')));
  });

  for (const name of ['odd\u00a0name.jsonl', 'odd\\name.jsonl', 'trailing\u00a0.jsonl', '\u00a0leading.jsonl']) {
    it(`a session file named ${JSON.stringify(name)}: tree, files, restore and sessions name that file`, async () => {
      const cwd = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-odd-cwd-'));
      dirs.push(cwd);
      const text = (await fsp.readFile(FIXTURE, 'utf8')).replace('"cwd":"/home/user/project"', `"cwd":${JSON.stringify(cwd)}`);
      const folder = sessionsDirFor(cwd, { PI_CODING_AGENT_DIR: agentDir() });
      await fsp.mkdir(folder, { recursive: true });
      const file = path.join(folder, name);
      await fsp.writeFile(file, text);
      // A decoy whose name is the odd one normalized: it must never be read.
      const decoy = path.join(
        folder,
        name
          .replace(/\u00a0/g, ' ')
          .replace(/\\/g, '_')
          .trim() || 'decoy.jsonl',
      );
      if (decoy !== file) await fsp.writeFile(decoy, 'not a session\n');

      const tree = await json(['tree', file]);
      assert.equal(tree.leafId, 'a0000003');
      const files = await json(['files', file]);
      assert.equal(files.files.length, 4);
      const dry = await json(['restore', file, '--to', 'r0000002', '--cwd', cwd, '--dry-run']);
      assert.equal(dry.dryRun, true);
      const listed = await json(['sessions', '--cwd', cwd]);
      const paths = (listed.sessions ?? listed).map((s: any) => s.file ?? s.path);
      assert.ok(paths.includes(file), JSON.stringify(paths));
      assert.equal((await run(['tree', `${file}x`])).code !== 0, true, 'a name that is not there is not found by a near one');
    });
  }
});
