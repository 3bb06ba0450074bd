/** Issue 13 item 5 in the engine: every way in to a session file refuses FIFOs, devices and directories without blocking. */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { oracleCases } from '../../support/fixtures';
import { loadSession } from '../../../src/engine/session/loadSession';
import { streamSession } from '../../../src/engine/session/streamSession';
import { loadTailPreview } from '../../../src/engine/session/tailPreview';
import { readAppended } from '../../../src/engine/session/tail';
import { appendEntries } from '../../../src/engine/session/writer';
import { upgradeSessionFile } from '../../../src/engine/session/upgrade';
import { listSessions } from '../../../src/engine/session/discovery';
import { loadPiSettings, SettingsError } from '../../../src/engine/settings/piSettings';
import { lockPathFor } from '../../../src/engine/session/writeLock';
import { searchSession } from '../../../src/engine/search/searchSession';
import { NotRegularFileError, openRegularFile, openRegularFileSync } from '../../../src/engine/session/sessionFile';

describe('session files: only regular files are opened', function () {
  let dir: string;
  let fifo: string;
  before(async function () {
    if (process.platform === 'win32') this.skip();
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-special-engine-'));
    fifo = path.join(dir, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
  });

  const isRefusal = (target: () => string, kind: RegExp) => (err: unknown) => {
    assert.ok(err instanceof NotRegularFileError, String(err));
    assert.ok(err.message.startsWith(`${target()}: is `), err.message);
    assert.match(err.message, kind);
    return true;
  };

  for (const validation of ['full', 'fast', 'auto'] as const) {
    it(`loadSession (${validation}) refuses a FIFO and a directory`, async () => {
      await assert.rejects(
        loadSession(fifo, { validation }),
        isRefusal(() => fifo, /FIFO/),
      );
      await assert.rejects(
        loadSession(dir, { validation }),
        isRefusal(() => dir, /directory/),
      );
    });
  }

  it('streamSession, loadTailPreview, upgrade and the open helpers refuse a FIFO', async () => {
    await assert.rejects(streamSession(fifo), NotRegularFileError);
    await assert.rejects(loadTailPreview(fifo, { bytes: 1024 }), NotRegularFileError);
    await assert.rejects(upgradeSessionFile(fifo), NotRegularFileError);
    await assert.rejects(openRegularFile(fifo, 'a'), NotRegularFileError);
    assert.throws(() => openRegularFileSync(fifo), NotRegularFileError);
    assert.throws(() => openRegularFileSync('/dev/null'), /character device/);
  });

  it('a session replaced by a FIFO after loading: tail reads and appends refuse, nothing blocks', async () => {
    const file = path.join(dir, 'swapped.jsonl');
    await fsp.copyFile(oracleCases()[0].sessionFile, file);
    const index = await loadSession(file);
    await fsp.rm(file);
    execFileSync('mkfifo', [file]);
    await assert.rejects(readAppended(index), NotRegularFileError);
    await assert.rejects(appendEntries(index, [{ type: 'custom', customType: 'x' }]), NotRegularFileError);
  });

  it('discovery lists no FIFO, directory or device, even one named *.jsonl', async () => {
    const sessions = path.join(dir, 'sessions');
    await fsp.mkdir(path.join(sessions, 'folder.jsonl'), { recursive: true });
    execFileSync('mkfifo', [path.join(sessions, 'fifo.jsonl')]);
    await fsp.copyFile(oracleCases()[0].sessionFile, path.join(sessions, 'real.jsonl'));
    const listed = await listSessions(sessions);
    assert.deepEqual(
      listed.map((s) => path.basename(s.file)),
      ['real.jsonl'],
    );
  });

  it('<cwd>/.pi/settings.json as a FIFO or a device: a clear settings error at once (no hang, no 1 GB read)', async () => {
    for (const [name, make] of [
      ['fifo', (p: string) => execFileSync('mkfifo', [p])],
      ['device', (p: string) => execFileSync('ln', ['-s', '/dev/zero', p])],
    ] as const) {
      const cwd = path.join(dir, `project-${name}`);
      await fsp.mkdir(path.join(cwd, '.pi'), { recursive: true });
      const settings = path.join(cwd, '.pi', 'settings.json');
      make(settings);
      await assert.rejects(loadPiSettings({ cwd, env: { PI_CODING_AGENT_DIR: path.join(dir, 'no-agent') } }), (err: unknown) => {
        assert.ok(err instanceof SettingsError, String(err));
        assert.match((err as Error).message, /not a regular file/);
        assert.ok((err as Error).message.includes(settings), (err as Error).message);
        return true;
      });
    }
  });

  it("the session's lock file as a FIFO or a device: the append is refused with a clear error, nothing written", async () => {
    for (const [name, make] of [
      ['fifo', (p: string) => execFileSync('mkfifo', [p])],
      ['device', (p: string) => execFileSync('ln', ['-s', '/dev/zero', p])],
    ] as const) {
      const file = path.join(dir, `locked-${name}.jsonl`);
      await fsp.copyFile(oracleCases()[0].sessionFile, file);
      make(lockPathFor(file));
      const before = await fsp.readFile(file);
      const index = await loadSession(file);
      await assert.rejects(
        appendEntries(index, [{ type: 'custom', customType: 'x' }]),
        (err: unknown) => err instanceof NotRegularFileError && err.message.includes(lockPathFor(file)),
      );
      assert.deepEqual(await fsp.readFile(file), before);
    }
  });

  it('search refuses a FIFO (no hang)', async () => {
    await assert.rejects(
      searchSession(fifo, { query: 'x', onHit: () => undefined }),
      isRefusal(() => fifo, /FIFO/),
    );
  });
});
