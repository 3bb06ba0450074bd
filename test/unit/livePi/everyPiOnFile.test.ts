import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { arbor, cli } from '../../support/builtCli';
import { startFakeProvider, type FakeProviderServer } from '../../support/fakeProvider';
import { node22, PiRpc } from '../../support/pi/piRpc';
import { PiWorkspace, someHistory } from '../../support/pi/piWorkspace';

/**
 * Every Pi on a session file, with the real Pi 1.6 in RPC mode: a Pi without the bridge started from another
 * folder, a bridged and an unbridged Pi on one file, two bridged Pis. Arbor lists them all and refuses to write
 * (exit 3, each pid named) unless forced; a forced write says so and names the Pis it leaves behind. And a cancel
 * cancels: a label waiting for a busy Pi whose `arbor` is killed is never written.
 */
describe('every Pi on a session, with the real Pi 1.6', function () {
  let fake: FakeProviderServer;
  let w: PiWorkspace;
  const others: PiRpc[] = [];
  const run = (args: string[]) => arbor(args, { PI_CODING_AGENT_DIR: w.agentDir });
  const entries = () =>
    fs
      .readFileSync(w.file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const firstMessageId = () => String(entries().find((e) => e.type === 'message')!.id);

  before(async function () {
    if (!fs.existsSync(node22())) throw new Error(`Pi 1.6 needs Node 22+: ${node22()} is missing`);
    fake = await startFakeProvider();
    fake.setFallback({ type: 'text', text: 'Done: I looked at it and changed nothing.' });
  });
  after(async () => {
    await fake?.stop();
  });
  const folders: string[] = [];
  beforeEach(() => {
    w = new PiWorkspace(fake.openaiBaseURL);
    // Outside the agent folder: Pi 1.6 moves a session file it finds in its agent folder into its sessions folder.
    w.file = path.join(elsewhere(), 'session.jsonl');
  });
  afterEach(async () => {
    fake.setFallback({ type: 'text', text: 'Done: I looked at it and changed nothing.' });
    for (const p of others.splice(0)) await p.stop();
    await w.dispose();
    for (const f of folders.splice(0)) fs.rmSync(f, { recursive: true, force: true });
  });

  async function installBridge(): Promise<void> {
    const r = await run(['pi-bridge', 'install', '--json']);
    assert.equal(r.code, 0, r.stderr);
  }

  /** Another Pi on the workspace's session file, from `cwd`, with or without extensions (the bridge). */
  async function anotherPi(options: { cwd: string; bridge: boolean }): Promise<PiRpc> {
    const p = new PiRpc({
      agentDir: w.agentDir,
      cwd: options.cwd,
      sessionFile: w.file,
      args: options.bridge ? [] : ['--no-extensions'],
    });
    others.push(p);
    await p.state();
    return p;
  }

  function elsewhere(): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-pi-elsewhere-'));
    folders.push(dir);
    return dir;
  }

  it('a Pi without the bridge started on the file from another folder is found: status names it, a write is refused (exit 3)', async () => {
    // The session is made by a first Pi in the project, which then quits.
    const first = await w.startPi();
    await someHistory(first, 2);
    await first.stop();
    w.pi = undefined;
    const p = await anotherPi({ cwd: elsewhere(), bridge: false });
    const status = await run(['pi-bridge', 'status', w.file, '--json']);
    assert.equal(status.code, 0, status.stderr);
    const s = JSON.parse(status.stdout);
    assert.deepEqual(
      s.pis.map((x: { pid: number; bridged: boolean }) => [x.pid, x.bridged]),
      [[p.pid, false]],
    );
    assert.equal(s.arborWrites, 'refused');
    const before = fs.readFileSync(w.file, 'utf8');
    const label = await run(['label', w.file, '--entry', firstMessageId(), '--label', 'x']);
    assert.equal(label.code, 3, label.stderr);
    assert.match(label.stderr, new RegExp(`pid ${p.pid} \\(without the bridge`));
    assert.match(label.stderr, /Nothing was written/);
    assert.equal(fs.readFileSync(w.file, 'utf8'), before, 'nothing written');
  });

  it('a bridged and an unbridged Pi on one file: both listed, writes refused naming both; --force goes through the bridge, naming the other', async () => {
    await installBridge();
    const bridged = await w.startPi();
    await someHistory(bridged, 2);
    const plain = await anotherPi({ cwd: elsewhere(), bridge: false });
    const status = await run(['pi-bridge', 'status', w.file]);
    assert.match(status.stdout, /^2 Pis hold /m);
    assert.match(status.stdout, new RegExp(`live Pi with the bridge: pid ${bridged.pid},`));
    assert.match(status.stdout, new RegExp(`Pi without the bridge, pid ${plain.pid} `));
    const before = fs.readFileSync(w.file, 'utf8');
    const refused = await run(['label', w.file, '--entry', firstMessageId(), '--label', 'x', '--json']);
    assert.equal(refused.code, 3, refused.stderr);
    assert.match(
      refused.stderr,
      new RegExp(`2 Pis hold .*pid ${bridged.pid} \\(with Arbor's bridge\\).*pid ${plain.pid} \\(without the bridge`),
    );
    assert.equal(fs.readFileSync(w.file, 'utf8'), before, 'nothing written');

    const forced = await run(['label', w.file, '--entry', firstMessageId(), '--label', 'x', '--force', '--json']);
    assert.equal(forced.code, 0, forced.stderr);
    const out = JSON.parse(forced.stdout);
    assert.equal(out.via, 'pi');
    assert.equal(out.piPid, bridged.pid);
    assert.equal(out.forced, true);
    assert.deepEqual(out.orphanedBy, [plain.pid]);
    const text = await run(['label', w.file, '--entry', firstMessageId(), '--label', 'y', '--force']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`forced \\(--force\\): written although Pi pid ${plain.pid} holds this session`));
  });

  it('two bridged Pis on one file: writes are refused naming both', async () => {
    await installBridge();
    const one = await w.startPi();
    await someHistory(one, 1);
    const two = await anotherPi({ cwd: w.project, bridge: true });
    const s = JSON.parse((await run(['pi-bridge', 'status', w.file, '--json'])).stdout);
    assert.deepEqual(s.pis.map((x: { pid: number }) => x.pid).sort(), [one.pid, two.pid].sort());
    const r = await run(['label', w.file, '--entry', firstMessageId(), '--label', 'x']);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, new RegExp(`pid ${one.pid} \\(with Arbor's bridge\\)`));
    assert.match(r.stderr, new RegExp(`pid ${two.pid} \\(with Arbor's bridge\\)`));
  });

  it('Ctrl-C on a label waiting for a busy Pi: Pi never writes it when its turn ends', async () => {
    await installBridge();
    const p = await w.startPi();
    await someHistory(p, 1);
    const target = firstMessageId();
    // A turn that stays busy until it is aborted (every model request hangs, whatever Pi asks first).
    fake.setFallback({ type: 'hang' });
    const asked = fake.requests.length;
    await p.command('prompt', { message: 'A long task.' });
    await fake.waitForRequests(asked + 1);
    assert.equal(JSON.parse((await run(['pi-bridge', 'status', w.file, '--json'])).stdout).live.idle, false);
    // `arbor label … --pi-wait 30` waits for Pi; the user presses Ctrl-C.
    const child = spawn(process.execPath, [cli, 'label', w.file, '--entry', target, '--label', 'cancelled', '--pi-wait', '30'], {
      env: { ...process.env, PI_CODING_AGENT_DIR: w.agentDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    // It has reached Pi's bridge once it says it is waiting for Pi.
    let exited = false;
    child.once('exit', () => (exited = true));
    while (!/Pi \(pid \d+\) is working/.test(stderr)) {
      assert.ok(!exited, `arbor exited before waiting: ${stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill('SIGINT');
    await new Promise((resolve) => child.once('exit', resolve));
    assert.deepEqual(
      entries().filter((e) => e.type === 'label'),
      [],
      `nothing written while Pi works (arbor said: ${stderr})`,
    );
    // The turn ends; Pi is idle.
    const settled = p.seen;
    await p.command('abort');
    await p.waitFor((r) => r.type === 'agent_settled', settled);
    // A later label through the bridge is answered: the cancelled one, queued before it, has been dropped by now.
    const later = await run(['label', w.file, '--entry', target, '--label', 'later', '--json']);
    assert.equal(later.code, 0, later.stderr);
    const labels = entries()
      .filter((e) => e.type === 'label')
      .map((e) => e.label);
    assert.deepEqual(labels, ['later'], 'the cancelled label was never written');
  });
});
