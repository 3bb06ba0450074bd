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
import { json, run } from '../../support/cliInProcess';
import { streamedCopy } from '../../support/streamedCopy';
import { openSession } from '../../../src/cli/sessionArgs';
import { loadSession } from '../../../src/engine/session/loadSession';
import { EntryNotLoadedError } from '../../../src/engine/session/entryNotLoaded';
import type { SessionIndex } from '../../../src/engine/session/sessionIndex';

const SESSIONS = [
  fixturePath('sessions', 'hostile', 'base.jsonl'),
  fixturePath('workspace', '.pi', 'sessions', '2026-11-29T19-36-32-277Z_01a228cf-1f14-7375-95f5-91ee6b4355fc.jsonl'),
];
/**
 * Lines the streaming index holds as entries but the tree's load did not describe (nested deeper than the entry shape
 * checks allow, so they do not parse as entries): their rows come from the index, loaded first. Streamed, it reads differently from the small file
 * (the fast validation), so its output is checked, not compared.
 */
const DEEP = fixturePath('sessions', 'hostile', 'deep-nesting.jsonl');

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

  it('no code reads a line synchronously (the transitional opt-in is gone)', () => {
    const src = path.join(repoRoot, 'src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    for (const f of files)
      assert.doesNotMatch(readFileSync(path.join(src, f), 'utf8'), /allowSyncLineReads|syncLineReads|SyncLineReader|withoutSyncReads/, f);
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
      const first = whole.record(0).id;
      const user = firstUserMessage(whole);
      const commands = [
        ['tree'],
        ['tree', '--json'],
        ['context'],
        ['context', '--json'],
        ['files', '--json'],
        ['summary'],
        ['export'],
        ['restore', '--to', mid, '--dry-run', '--json', '--cwd', path.join(sub, 'no-project')],
        ['plan-branch', '--to', first],
        ['plan-branch', '--to', mid, '--json'],
        ['plan-branch', '--to', first, '--budget', '60', '--json'],
        ['plan-branch', '--to', user, '--budget', '0', '--json', '--estimator', 'chars'],
      ];
      for (const c of commands) {
        const a = await run([c[0], small, ...c.slice(1)]);
        const b = await run([c[0], streamed, ...c.slice(1)]);
        assert.equal(b.code, 0, `${c.join(' ')}: ${b.err}`);
        assert.equal(b.out, a.out.split('/x1/').join('/x2/'), c.join(' '));
      }
    });

    it(`navigate writes the same jump on a streamed copy of ${path.basename(original)} (the branch loaded a batch at a time)`, async () => {
      const sub = await fsp.mkdtemp(path.join(dir, 'nav-'));
      const small = path.join(sub, path.basename(original));
      await fsp.copyFile(original, small);
      const streamed = await streamedCopy(original, await fsp.mkdtemp(path.join(sub, 's-')));
      const whole = await loadSession(small);
      const saved = process.env.PI_CODING_AGENT_DIR;
      process.env.PI_CODING_AGENT_DIR = path.join(sub, 'no-pi');
      try {
        for (const to of [whole.record(0).id, firstUserMessage(whole)]) {
          const args = ['--to', to, '--summarize', '--label', 'back'];
          // Each jump on a fresh copy: new ids and the clock differ, what the jump says and summarizes does not.
          const a = await json(['navigate', small, ...args]);
          const b = await json(['navigate', streamed, ...args]);
          assert.equal(b.moved, true);
          for (const key of ['newLeafId', 'editorText', 'retention', 'via'] as const) assert.deepEqual(b[key], a[key], key);
          assert.equal(b.summaryEntry.summary, a.summaryEntry.summary);
          assert.deepEqual(b.summaryEntry.details, a.summaryEntry.details);
          assert.deepEqual(
            b.entries.map((e: { type: string }) => e.type),
            a.entries.map((e: { type: string }) => e.type),
          );
          await fsp.copyFile(original, small);
          await fsp.rm(streamed);
          await streamedCopy(original, path.dirname(streamed));
        }
      } finally {
        if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
        else process.env.PI_CODING_AGENT_DIR = saved;
      }
    });
  }
});

/** The first user message of a session: a jump there hands its text back (its line loaded for the landing). */
function firstUserMessage(index: SessionIndex): string {
  for (let i = 0; i < index.entryCount; i++) {
    const rec = index.record(i);
    if (rec.type === 'message' && rec.role === 'user') return rec.id;
  }
  throw new Error(`${index.file} has no user message`);
}
