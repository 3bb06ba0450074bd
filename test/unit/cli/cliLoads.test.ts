/**
 * Issue #22 item 3: the CLI's commands load the entries they read (cli/entryLoads.ts); openSession's index never reads
 * a line synchronously. A streamed session (blank lines push it over the streaming limit, which changes nothing it
 * holds) gives the same output as the small one it pads: an entry a converted command reads without loading it
 * throws EntryNotLoadedError instead.
 */
import * as assert from 'node:assert/strict';
import { promises as fsp, readdirSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fixturePath, repoRoot } from '../../support/fixtures';
import { run } from '../../support/cliInProcess';
import { openSession } from '../../../src/cli/sessionArgs';
import { AUTO_FULL_LIMIT, loadSession } from '../../../src/engine/session/loadSession';
import { EntryNotLoadedError } from '../../../src/engine/session/entryNotLoaded';

const SESSIONS = [
  fixturePath('sessions', 'hostile', 'base.jsonl'),
  fixturePath('workspace', '.pi', 'sessions', '2026-11-29T19-36-32-277Z_01a228cf-1f14-7375-95f5-91ee6b4355fc.jsonl'),
];
/**
 * Lines the streaming index holds as entries but the tree's row makers did not describe (too deeply nested for the
 * plain-line reader): their rows come from the index, loaded first. Streamed, it reads differently from the small file
 * (the fast validation), so its output is checked, not compared.
 */
const DEEP = fixturePath('sessions', 'hostile', 'deep-nesting.jsonl');

/** The commands that read lines synchronously still (TRANSITIONAL), each opting in itself; docs/ARCHITECTURE.md lists them. */
const OPTED_IN = ['checkSummary.ts', 'compact.ts', 'navigate.ts', 'planBranch.ts', 'planCompaction.ts'];

/** A copy of `file` followed by blank lines, over the streaming limit (blank lines are skipped: the session is the same). */
async function streamedCopy(file: string, dir: string): Promise<string> {
  const out = path.join(dir, path.basename(file));
  const text = await fsp.readFile(file);
  assert.equal(text[text.length - 1], 0x0a, `${file} ends with a line break`);
  const blank = Buffer.from(`${' '.repeat(64 * 1024 - 1)}\n`);
  const copies = Math.ceil(AUTO_FULL_LIMIT / blank.length) + 1;
  await fsp.writeFile(out, Buffer.concat([text, ...Array.from({ length: copies }, () => blank)]));
  return out;
}

describe('CLI entry loads (issue #22 item 3)', function () {
  this.timeout(120_000);
  let dir: string;
  before(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-cliloads-'));
  });
  after(async () => {
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it('openSession gives an index that never reads a line synchronously', async () => {
    const file = await streamedCopy(SESSIONS[0], await fsp.mkdtemp(path.join(dir, 'open-')));
    const index = await openSession(file);
    let message = -1;
    for (let i = 0; i < index.entryCount && message < 0; i++) if (!index.isLoaded(i)) message = i;
    assert.ok(message >= 0, 'the streamed copy has a message line on disk');
    assert.throws(() => index.entry(message), EntryNotLoadedError);
    const lease = await index.load([message]);
    assert.equal(index.entry(message).id, index.record(message).id);
    lease.release();
  });

  it('only the commands not converted yet opt into sync line reads, each by itself', () => {
    const commands = path.join(repoRoot, 'src', 'cli', 'commands');
    const optedIn = readdirSync(commands).filter((f) => /syncLineReads: 'transitional'/.test(readFileSync(path.join(commands, f), 'utf8')));
    assert.deepEqual(optedIn.sort(), OPTED_IN);
    assert.doesNotMatch(
      readFileSync(path.join(repoRoot, 'src', 'cli', 'sessionArgs.ts'), 'utf8'),
      /loadSession\([^)]*\)\.allowSyncLineReads/,
    );
  });

  it('arbor tree loads the rows it makes from the index (a streamed deep-nesting.jsonl)', async () => {
    const streamed = await streamedCopy(DEEP, await fsp.mkdtemp(path.join(dir, 'deep-')));
    for (const args of [
      ['tree', streamed],
      ['tree', streamed, '--json'],
    ]) {
      const r = await run(args);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /e0000004/);
      assert.doesNotMatch(r.err, /not loaded/);
    }
  });

  for (const original of SESSIONS) {
    it(`converted commands print the same on a streamed copy of ${path.basename(original)}`, async () => {
      // Same name, sibling folders x1 and x2 (export prints the path, escaped).
      const sub = await fsp.mkdtemp(path.join(dir, 'cmd-'));
      await fsp.mkdir(path.join(sub, 'x1'));
      await fsp.mkdir(path.join(sub, 'x2'));
      const small = path.join(sub, 'x1', path.basename(original));
      await fsp.copyFile(original, small);
      const streamed = await streamedCopy(original, path.join(sub, 'x2'));
      const whole = await loadSession(small);
      assert.ok(whole.isLoaded(whole.entryCount - 1), 'the small copy is read whole');
      const mid = whole.record(Math.floor(whole.entryCount / 2)).id;
      const commands = [
        ['tree'],
        ['tree', '--json'],
        ['context'],
        ['context', '--json'],
        ['files', '--json'],
        ['summary'],
        ['export'],
        ['restore', '--to', mid, '--dry-run', '--json', '--cwd', path.join(sub, 'no-project')],
      ];
      for (const c of commands) {
        const a = await run([c[0], small, ...c.slice(1)]);
        const b = await run([c[0], streamed, ...c.slice(1)]);
        assert.equal(b.code, 0, `${c.join(' ')}: ${b.err}`);
        assert.equal(b.out, a.out.split('/x1/').join('/x2/'), c.join(' '));
      }
    });
  }
});
