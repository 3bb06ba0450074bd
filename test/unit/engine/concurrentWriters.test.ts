/**
 * Issue 13 item 6: appending never tears another writer's line, and Arbor's
 * own writers (any number of processes) attach to one leaf only once.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fixturePath, repoRoot } from '../../support/fixtures';
import { builtCli, runBuiltCli } from '../../support/cliProcess';
import { loadSession } from '../../../src/engine/session/loadSession';
import { appendEntries, StaleSessionError } from '../../../src/engine/session/writer';
import { DEFAULT_INCOMPLETE_LINE_QUIET_MS, quietMsFromSeconds } from '../../../src/engine/session/incompleteLine';
import { lockPathFor, SessionLockedError, userLockFolder, userLockPathFor, withSessionLock } from '../../../src/engine/session/writeLock';

async function tempSession(name = '03-tree.jsonl'): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-conc-'));
  const file = path.join(dir, name);
  await fsp.copyFile(fixturePath('pi-oracle', 'fixtures', name), file);
  return file;
}

/** Starts the split-line writer and resolves once its first half is on disk. */
async function splitWriter(
  file: string,
  parentId: string,
  mode: 'finish' | 'die' | 'drip' | `pause:${number}`,
): Promise<{ child: ChildProcess; exited: Promise<void> }> {
  const child = spawn(process.execPath, [path.join(repoRoot, 'test', 'support', 'splitLineWriter.js'), file, parentId, mode], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  return { child, exited };
}

function parsedLines(text: string): { ok: Record<string, unknown>[]; bad: string[] } {
  const ok: Record<string, unknown>[] = [];
  const bad: string[] = [];
  for (const line of text.split('\n').filter((l) => l.trim())) {
    try {
      ok.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      bad.push(line);
    }
  }
  return { ok, bad };
}

describe('concurrent writers', function () {
  it('another process writes half a line, then the rest while Arbor appends: both entries intact', async () => {
    const file = await tempSession();
    const index = await loadSession(file);
    const leaf = index.leafId!;
    const writer = await splitWriter(file, leaf, 'finish');
    // Arbor starts appending with the half line on disk; the other writer finishes it a moment later.
    const appended = appendEntries(index, [{ type: 'custom', customType: 'arbor' }], {
      incompleteLine: { quietMs: 30_000, maxWaitMs: 60_000 },
    });
    setTimeout(() => writer.child.stdin!.write('go\n'), 300);
    const [mine] = await appended;
    await writer.exited;
    const { ok, bad } = parsedLines(await fsp.readFile(file, 'utf8'));
    assert.deepEqual(bad, []);
    const other = ok.find((e) => e.id === 'split001');
    assert.ok(other, "the other writer's entry is intact");
    assert.equal(mine.parentId, 'split001', 'Arbor continued the leaf the other writer finished');
    assert.equal(ok[ok.length - 1].id, mine.id);
    const reloaded = await loadSession(file);
    assert.deepEqual(reloaded.diagnostics, []);
    assert.equal(reloaded.leafId, mine.id);
  });

  for (const pauseMs of [400, 1500]) {
    it(`a writer that pauses ${pauseMs} ms mid-line is not taken for dead (default quiet window): its line is whole, Arbor's entry follows it`, async () => {
      const file = await tempSession();
      const leaf = (await loadSession(file)).leafId!;
      const writer = await splitWriter(file, leaf, `pause:${pauseMs}`);
      // Loaded with the half line on disk: from here the file is quiet until the writer wakes up.
      const index = await loadSession(file);
      assert.ok(index.hasIncompleteLine);
      const [mine] = await appendEntries(index, [{ type: 'custom', customType: 'arbor' }]);
      await writer.exited;
      const { ok, bad } = parsedLines(await fsp.readFile(file, 'utf8'));
      assert.deepEqual(bad, [], 'no torn line');
      assert.ok(ok.some((e) => e.id === 'split001'));
      assert.equal(mine.parentId, 'split001');
      assert.deepEqual((await loadSession(file)).diagnostics, []);
    });
  }

  it('the quiet window is a setting: a host sets it, an append may pass its own, seconds from a setting are checked', () => {
    assert.equal(DEFAULT_INCOMPLETE_LINE_QUIET_MS >= 2000, true);
    assert.equal(quietMsFromSeconds('2.5'), 2500);
    assert.equal(quietMsFromSeconds(0), 0);
    for (const bad of ['x', -1, Infinity, '1e9', {}, null]) assert.equal(quietMsFromSeconds(bad), undefined, String(bad));
  });

  it('the CLI refuses an ARBOR_INCOMPLETE_LINE_QUIET_SECONDS that is not a number of seconds (exit 2)', async () => {
    const file = await tempSession();
    const r = await runBuiltCli(['tree', file], { env: { ARBOR_INCOMPLETE_LINE_QUIET_SECONDS: 'soon' } });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /ARBOR_INCOMPLETE_LINE_QUIET_SECONDS must be a number of seconds/);
  });

  it('a writer that died mid-line: its torn line stays as it is, Arbor appends on a new line (as before)', async () => {
    const file = await tempSession();
    const writer = await splitWriter(file, (await loadSession(file)).leafId!, 'die');
    await writer.exited;
    const index = await loadSession(file);
    const before = await fsp.readFile(file);
    const [mine] = await appendEntries(index, [{ type: 'custom', customType: 'after-dead-writer' }]);
    const after = await fsp.readFile(file);
    assert.deepEqual(after.subarray(0, before.length), before);
    assert.equal(after.subarray(before.length).toString('utf8'), `\n${JSON.stringify(mine)}\n`);
    const reloaded = await loadSession(file);
    assert.equal(reloaded.leafId, mine.id);
    assert.equal(reloaded.diagnostics.length, 1, 'the torn line is reported, not repaired');
  });

  it('a line that keeps changing and never ends is waited for, then refused with nothing written', async () => {
    const file = await tempSession();
    const index = await loadSession(file);
    const writer = await splitWriter(file, index.leafId!, 'drip');
    try {
      await assert.rejects(
        appendEntries(index, [{ type: 'custom', customType: 'never' }], { incompleteLine: { quietMs: 400, maxWaitMs: 1500 } }),
        (err: unknown) =>
          err instanceof StaleSessionError && /another process is writing its last line/.test(err.message) && err.message.includes(file),
      );
    } finally {
      writer.child.kill();
      await writer.exited;
    }
    assert.ok(!(await fsp.readFile(file, 'utf8')).includes('"never"'));
    assert.equal(existsSync(lockPathFor(file)), false, 'the lock is released after the refusal');
  });

  it('N concurrent `arbor compact` processes on one file write exactly one compaction', async () => {
    assert.ok(existsSync(builtCli), 'run npm run build first');
    const file = await tempSession();
    const leaf = (await loadSession(file)).leafId;
    const runs = await Promise.all(
      Array.from({ length: 6 }, () =>
        runBuiltCli(['compact', file, '--provider', 'offline', '--keep-recent-tokens', '1000', '--json'], { killAfterMs: 90_000 }),
      ),
    );
    const { ok, bad } = parsedLines(await fsp.readFile(file, 'utf8'));
    assert.deepEqual(bad, []);
    const compactions = ok.filter((e) => e.type === 'compaction');
    assert.equal(compactions.length, 1, runs.map((r) => r.stderr).join('\n'));
    assert.equal(compactions[0].parentId, leaf);
    assert.equal(runs.filter((r) => r.code === 0 && r.stdout.includes('"entry"')).length, 1);
    // The others were refused as stale or found the session already compacted; none failed otherwise.
    for (const r of runs) assert.ok(r.code === 0 || (r.code === 1 && /since it was planned/.test(r.stderr)), `${r.code} ${r.stderr}`);
    assert.equal(existsSync(lockPathFor(file)), false);
  });

  it('two hard-link names of one session take one lock (by device and inode): a writer through one waits for the holder through the other', async () => {
    const file = await tempSession();
    const other = path.join(path.dirname(file), 'another-name.jsonl');
    await fsp.link(file, other);
    assert.equal(lockPathFor(other), lockPathFor(file));
    const index = await loadSession(other);
    await withSessionLock(file, async () => {
      await assert.rejects(
        withSessionLock(other, async () => undefined, { waitMs: 200 }),
        (err: unknown) => err instanceof SessionLockedError && err.message.includes(other),
      );
      await assert.rejects(appendEntries(index, [{ type: 'custom', customType: 'x' }], { lock: { waitMs: 200 } }), SessionLockedError);
    });
    assert.equal(existsSync(lockPathFor(file)), false);
  });

  it("two hard links to one session in different folders exclude each other (the user's lock by device and inode)", async () => {
    const file = await tempSession();
    const otherDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-conc-other-'));
    const other = path.join(otherDir, 'linked.jsonl');
    await fsp.link(file, other);
    assert.notEqual(lockPathFor(other), lockPathFor(file), 'the locks beside the two names differ');
    assert.equal(userLockPathFor(other), userLockPathFor(file));
    const index = await loadSession(other);
    const size = (await fsp.stat(file)).size;
    await withSessionLock(file, async () => {
      await assert.rejects(
        withSessionLock(other, async () => undefined, { waitMs: 200 }),
        (err: unknown) => err instanceof SessionLockedError && err.message.includes(other),
      );
      await assert.rejects(appendEntries(index, [{ type: 'custom', customType: 'x' }], { lock: { waitMs: 200 } }), SessionLockedError);
    });
    assert.equal((await fsp.stat(file)).size, size, 'nothing written through the other name');
    assert.equal(existsSync(userLockPathFor(file)!), false, 'released');
    const mode = (await fsp.stat(userLockFolder())).mode & 0o777;
    assert.equal(mode, 0o700, 'the user lock folder is private');
  });

  it('N concurrent `arbor compact` processes through hard links in different folders write exactly one compaction', async () => {
    assert.ok(existsSync(builtCli), 'run npm run build first');
    const file = await tempSession();
    const names = [file];
    for (let k = 0; k < 2; k++) {
      const name = path.join(await fsp.mkdtemp(path.join(os.tmpdir(), `arbor-conc-link${k}-`)), 'session.jsonl');
      await fsp.link(file, name);
      names.push(name);
    }
    const leaf = (await loadSession(file)).leafId;
    const runs = await Promise.all(
      Array.from({ length: 6 }, (_, k) =>
        runBuiltCli(['compact', names[k % names.length], '--provider', 'offline', '--keep-recent-tokens', '1000', '--json'], {
          killAfterMs: 90_000,
        }),
      ),
    );
    const { ok, bad } = parsedLines(await fsp.readFile(file, 'utf8'));
    assert.deepEqual(bad, []);
    const compactions = ok.filter((e) => e.type === 'compaction');
    assert.equal(compactions.length, 1, runs.map((r) => r.stderr).join('\n'));
    assert.equal(compactions[0].parentId, leaf);
    for (const r of runs) assert.ok(r.code === 0 || (r.code === 1 && /since it was planned/.test(r.stderr)), `${r.code} ${r.stderr}`);
    assert.equal(existsSync(userLockPathFor(file)!), false);
  });

  it('the lock is released when the append fails or is aborted', async () => {
    const file = await tempSession();
    const index = await loadSession(file);
    await assert.rejects(
      appendEntries(index, [{ type: 'custom', customType: 'x' }], {
        beforeWrite: () => {
          assert.ok(existsSync(lockPathFor(file)), 'held while writing');
          throw new Error('failed just before the write');
        },
      }),
      /failed just before the write/,
    );
    assert.equal(existsSync(lockPathFor(file)), false);
    const controller = new AbortController();
    await assert.rejects(
      appendEntries(index, [{ type: 'custom', customType: 'x' }], {
        beforeWrite: () => controller.abort(),
        signal: controller.signal,
      }).then(() => controller.signal.throwIfAborted()),
    );
    assert.equal(existsSync(lockPathFor(file)), false);
    // An abort while waiting for another holder leaves that holder's lock alone.
    const aborter = new AbortController();
    await withSessionLock(file, async () => {
      const waiting = appendEntries(index, [{ type: 'custom', customType: 'y' }], { signal: aborter.signal });
      setTimeout(() => aborter.abort(), 100);
      await assert.rejects(waiting);
      assert.ok(existsSync(lockPathFor(file)));
    });
    assert.equal(existsSync(lockPathFor(file)), false);
  });

  it('a lock left by a dead process is broken; one held by a live process is waited for, then refused', async () => {
    const file = await tempSession();
    const index = await loadSession(file);
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => dead.on('exit', resolve));
    await fsp.writeFile(
      lockPathFor(file),
      JSON.stringify({ pid: dead.pid, host: os.hostname(), since: new Date().toISOString(), token: 'dead' }),
    );
    const [written] = await appendEntries(index, [{ type: 'custom', customType: 'after-stale-lock' }]);
    assert.equal(index.leafId, written.id);
    assert.equal(existsSync(lockPathFor(file)), false);

    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      await fsp.writeFile(
        lockPathFor(file),
        JSON.stringify({ pid: live.pid, host: os.hostname(), since: new Date().toISOString(), token: 'live' }),
      );
      const size = (await fsp.stat(file)).size;
      await assert.rejects(
        appendEntries(index, [{ type: 'custom', customType: 'blocked' }], { lock: { waitMs: 300 } }),
        (err: unknown) => err instanceof SessionLockedError && err.message.includes(`process ${live.pid}`) && err.message.includes(file),
      );
      assert.equal((await fsp.stat(file)).size, size);
      assert.ok(existsSync(lockPathFor(file)), 'a live holder keeps its lock');
    } finally {
      live.kill();
      await fsp.rm(lockPathFor(file), { force: true });
    }
  });

  it('an unreadable lock file that stays unchanged is taken as stale', async () => {
    const file = await tempSession();
    const index = await loadSession(file);
    await fsp.writeFile(lockPathFor(file), '');
    await appendEntries(index, [{ type: 'custom', customType: 'after-empty-lock' }], { lock: { unreadableMs: 200 } });
    assert.equal(existsSync(lockPathFor(file)), false);
  });
});
