/** `arbor export --out` never writes a session (issue 20 item 2) and streams its output (item 5, export half). */
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main';
import { loadSession } from '../../../src/engine/session/loadSession';
import { exportBranch, exportPieces } from '../../../src/engine/export/exportBranch';
import { fixturePath } from '../../support/fixtures';
import { json, run } from '../../support/cliInProcess';

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
