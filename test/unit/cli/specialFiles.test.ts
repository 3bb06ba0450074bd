/** Issue 13 item 5: only regular files are sessions; a FIFO or a directory is refused at once (exit 2, path named). */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { builtCli, runBuiltCli } from '../../support/cliProcess';

const commands: string[][] = [
  ['tree'],
  ['context'],
  ['summary'],
  ['navigate', '--to', 'a1'],
  ['upgrade'],
  ['plan-compaction'],
  ['plan-branch', '--to', 'a1'],
  ['compact', '--provider', 'offline'],
];

describe('arbor CLI on paths that are not regular files', function () {
  let dir: string;
  let fifo: string;
  before(async function () {
    assert.ok(existsSync(builtCli), `${builtCli} is missing: run npm run build first`);
    if (process.platform === 'win32') this.skip(); // no FIFOs on Windows
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-special-'));
    fifo = path.join(dir, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
  });

  for (const [name, ...extra] of commands) {
    it(`${name} on a FIFO exits 2 at once, naming the path`, async () => {
      const r = await runBuiltCli([name, fifo, ...extra], { killAfterMs: 15000 });
      assert.equal(r.killed, false, `arbor ${name} hung on a FIFO`);
      assert.equal(r.code, 2, r.stderr);
      assert.ok(r.stderr.includes(fifo), r.stderr);
      assert.match(r.stderr, /FIFO/);
    });

    it(`${name} on a directory exits 2, naming the path`, async () => {
      const r = await runBuiltCli([name, dir, ...extra], { killAfterMs: 15000 });
      assert.equal(r.killed, false);
      assert.equal(r.code, 2, r.stderr);
      assert.ok(r.stderr.includes(`${dir}: is a directory`), r.stderr);
    });
  }

  it('a character device (/dev/zero, endless) is refused, not read', async function () {
    if (!existsSync('/dev/zero')) this.skip();
    const r = await runBuiltCli(['tree', '/dev/zero'], { killAfterMs: 15000 });
    assert.equal(r.killed, false);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /\/dev\/zero: is a character device/);
  });
});
