import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { arbor } from '../../support/builtCli';
import { startFakeProvider, type FakeProviderServer } from '../../support/fakeProvider';
import { node22 } from '../../support/pi/piRpc';
import { PiWorkspace, someHistory } from '../../support/pi/piWorkspace';
import { line, rawExchange } from '../../support/pi/rawBridge';
import { listRegistry, type RegistryEntry } from '../../../src/engine/livePi/registry';
import { MAX_REQUEST_BYTES, MAX_DETAILS_DEPTH } from '../../../src/engine/livePi/protocol';
import { secretForms } from '../../../src/engine/secrets/redact';

/**
 * The bridge inside the real Pi 1.6 (`pi --mode rpc` against the local fake provider) under what a
 * user's day brings and what a hostile local client sends: bad tokens, oversized and malformed lines,
 * Pi busy in a run, a session switch, an agent folder too deep for a Unix socket, Pi quitting with a
 * client connected. Every refusal writes nothing and leaves Pi answering.
 */
describe('Pi bridge with the real Pi 1.6: hostile clients, Pi busy, session switch, registry', function () {
  let fake: FakeProviderServer;
  let w: PiWorkspace;

  const run = (args: string[], extra: NodeJS.ProcessEnv = {}) => arbor(args, { PI_CODING_AGENT_DIR: w.agentDir, ...extra });
  const entries = () =>
    fs
      .readFileSync(w.file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  before(async function () {
    if (!fs.existsSync(node22()))
      throw new Error(`Pi 1.6 needs Node 22+: ${node22()} is missing; run bash scripts/vscode-test/install.sh (or set ARBOR_NODE22_BIN)`);
    fake = await startFakeProvider();
  });
  after(async () => {
    await fake?.stop();
  });
  beforeEach(() => {
    fake.reset();
    fake.setFallback({ type: 'text', text: 'Done: I looked at it and changed nothing.' });
    w = new PiWorkspace(fake.openaiBaseURL);
  });
  afterEach(() => w.dispose());

  const startPi = () => w.startPi();

  async function installBridge(): Promise<void> {
    const r = await run(['pi-bridge', 'install', '--json']);
    assert.equal(r.code, 0, r.stderr);
  }

  /** The one live registry entry of this agent folder. */
  async function liveEntry(): Promise<RegistryEntry> {
    const listed = await listRegistry(w.agentDir);
    assert.equal(listed.length, 1, `one live bridge expected, got ${listed.length}`);
    return listed[0].entry;
  }

  /** Waits (for a state, bounded by the test's timeout) until `test` holds, re-checking whenever Pi reports something or the test asks again. */
  async function until<T>(what: string, test: () => Promise<T | undefined>): Promise<T> {
    for (;;) {
      const v = await test();
      if (v !== undefined) return v;
      // Pi answering a round trip is the next state to wait for (no timer).
      if (!w.pi) throw new Error(`no Pi while waiting for ${what}`);
      await w.pi.state();
    }
  }

  it(
    'refuses a wrong or missing token, oversized, unknown, wrong-version, malformed and ill-typed requests; nothing is ' +
      'written and Pi keeps answering',
    async () => {
      await installBridge();
      const p = await startPi();
      await someHistory(p, 2);
      const entry = await liveEntry();
      const before = fs.readFileSync(w.file);
      const leaf = String(entries().at(-1)!.id);
      const first = String(entries()[1].id);
      const token = entry.token;
      const label = { v: 1, token, op: 'label', entryId: first, label: 'written' };

      // Wrong / missing token: refused, the connection is closed, and a valid line after it on that connection is not run.
      for (const bad of [
        { ...label, token: 'f'.repeat(64) },
        { ...label, token: token.slice(0, -1) },
        { ...label, token: undefined },
        { ...label, token: 12 },
        [label],
      ]) {
        const r = await rawExchange(entry.endpoint, line(bad) + line(label), { lines: 2 });
        assert.equal(r.ended, true, 'the bridge closes a connection with a bad token');
        assert.equal(r.lines.length, 1);
        assert.equal(r.lines[0].ok, false);
        assert.equal((r.lines[0].error as { code: string }).code, 'unauthorized');
      }

      // Oversized line (valid token, one byte over the cap): refused and closed.
      const big = Buffer.from(JSON.stringify({ ...label, label: 'x'.repeat(MAX_REQUEST_BYTES) }).slice(0, MAX_REQUEST_BYTES + 1));
      const tooLarge = await rawExchange(entry.endpoint, Buffer.concat([big, Buffer.from('\n')]), { lines: 2 });
      assert.equal(tooLarge.ended, true);
      assert.equal((tooLarge.lines[0].error as { code: string }).code, 'too-large');

      // Each of these is answered with its code on a connection that stays usable.
      const nested = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
      const cases: [string, string, string][] = [
        ['unknown op', line({ v: 1, token, op: 'prompt', message: 'run rm -rf /' }), 'unknown-op'],
        ['op of the wrong type', line({ v: 1, token, op: { toString: 1 } }), 'unknown-op'],
        ['wrong protocol version', line({ v: 2, token, op: 'state' }), 'version'],
        ['no protocol version', line({ token, op: 'state' }), 'version'],
        ['malformed JSON', `{"v":1,"token":"${token}","op":"state"\n`, 'bad-request'],
        [
          'summary as an object',
          line({ v: 1, token, op: 'compact', expectedLeafId: leaf, summary: { text: 'S' }, firstKeptEntryId: first, tokensBefore: 1 }),
          'bad-request',
        ],
        [
          'tokensBefore as a string',
          line({ v: 1, token, op: 'compact', expectedLeafId: leaf, summary: 'S', firstKeptEntryId: first, tokensBefore: '1' }),
          'bad-request',
        ],
        [
          `details nested 5,000 levels (more than ${MAX_DETAILS_DEPTH})`,
          `{"v":1,"token":"${token}","op":"compact","expectedLeafId":"${leaf}","summary":"S",` +
            `"firstKeptEntryId":"${first}","tokensBefore":1,"details":${nested}}\n`,
          'bad-request',
        ],
        [
          'navigate summary.text as a number',
          line({ v: 1, token, op: 'navigate', expectedLeafId: leaf, targetId: first, summary: { text: 5 } }),
          'bad-request',
        ],
        ['label as a list', line({ ...label, label: ['x'] }), 'bad-request'],
        ['entry id of 10,000 characters', line({ ...label, entryId: 'x'.repeat(10_000) }), 'bad-request'],
        ['an entry Pi does not hold', line({ ...label, entryId: 'deadbeef' }), 'not-found'],
        [
          'a compaction planned at another leaf',
          line({ v: 1, token, op: 'compact', expectedLeafId: first, summary: 'S', firstKeptEntryId: first, tokensBefore: 1 }),
          'stale',
        ],
      ];
      for (const [what, data, code] of cases) {
        const r = await rawExchange(entry.endpoint, data + line({ v: 1, token, op: 'state', id: 'after' }), { lines: 2 });
        assert.equal(r.lines.length, 2, `${what}: two answers on one connection`);
        assert.equal(r.lines[0].ok, false, what);
        assert.equal((r.lines[0].error as { code: string }).code, code, `${what}: ${JSON.stringify(r.lines[0].error)}`);
        assert.equal(r.lines[1].ok, true, `${what}: the connection still answers`);
        assert.equal(r.lines[1].id, 'after');
      }

      // A client that sends its request and closes its side still gets the answer, then the bridge closes.
      const halfClosed = await rawExchange(entry.endpoint, line({ v: 1, token, op: 'state', id: 'h' }), { halfClose: true, lines: 2 });
      assert.equal(halfClosed.ended, true);
      assert.deepEqual(
        halfClosed.lines.map((l) => [l.ok, l.id]),
        [[true, 'h']],
      );

      assert.deepEqual(fs.readFileSync(w.file), before, 'nothing was written');
      const state = await rawExchange(entry.endpoint, line({ v: 1, token, op: 'state' }));
      assert.equal(state.lines[0].ok, true);
      assert.equal((state.lines[0].result as { leafId: string }).leafId, leaf);
      assert.equal((await p.state()).isStreaming, false, 'Pi answers its own RPC too');
      const count = entries().length;
      await p.prompt('Still there?');
      assert.equal(
        entries()
          .slice(count)
          .find((e) => e.type === 'message')!.parentId,
        leaf,
        "Pi's next prompt continues from its leaf",
      );
    },
  );

  it('Pi busy in a run: compact, navigate and label refuse with a clear message and write nothing; after an abort they go through', async () => {
    await installBridge();
    const p = await startPi();
    await someHistory(p, 4);
    const target = String(entries().filter((e) => e.type === 'message')[1].id);
    fake.script({ type: 'stall', text: 'Let me think about', pieces: 2 });
    const stalled = fake.nextStall();
    await p.command('prompt', { message: 'A long task.' });
    await stalled;
    const status = await run(['pi-bridge', 'status', w.file, '--json']);
    assert.equal(JSON.parse(status.stdout).live.idle, false);
    const size = fs.statSync(w.file).size;
    const refusals = [
      await run(['compact', '--allow-larger', w.file, '--estimator', 'chars', '--pi-wait', '1']),
      await run(['navigate', w.file, '--to', target, '--pi-wait', '1']),
      await run(['label', w.file, '--entry', target, '--label', 'busy?', '--pi-wait', '1']),
    ];
    for (const r of refusals) {
      assert.equal(r.code, 1, r.stderr);
      // compact and navigate wait for Pi before planning (Arbor says so at once); label lets the bridge wait.
      assert.match(r.stderr, /^arbor: Pi \(pid \d+\) is working; Arbor will (plan|write) when it stops/m);
      assert.match(
        r.stderr,
        new RegExp(
          'through the running Pi: (Pi \\(pid \\d+\\) was still working after 1 s; nothing was planned or written|' +
            'Pi is busy .* did not become idle within 1 s; nothing was changed)',
        ),
      );
    }
    assert.equal(fs.statSync(w.file).size, size, 'nothing was written while Pi was busy');
    // Pi answers abort once it is idle again; the bound below is only how long the bridge may wait, not a timing assertion.
    await p.command('abort');
    const label = await run(['label', w.file, '--entry', target, '--label', 'after the abort', '--pi-wait', '60', '--json']);
    assert.equal(label.code, 0, label.stderr);
    assert.equal(JSON.parse(label.stdout).via, 'pi');
    const nav = await run(['navigate', w.file, '--to', target, '--pi-wait', '60', '--json']);
    assert.equal(nav.code, 0, nav.stderr);
    assert.equal(JSON.parse(nav.stdout).via, 'pi');
  });

  it('a session switch withdraws the old announcement and announces the new file; status OLDFILE no longer reports a live Pi', async () => {
    await installBridge();
    const p = await startPi();
    await someHistory(p, 1);
    const [{ file: oldRegistryFile, entry: old }] = await listRegistry(w.agentDir);
    assert.equal(old.sessionFile, w.file);
    await p.command('new_session');
    const fresh = await until('a new announcement', async () => {
      const listed = await listRegistry(w.agentDir);
      return listed.length === 1 && listed[0].entry.sessionFile !== w.file ? listed[0].entry : undefined;
    });
    assert.equal(fresh.pid, p.pid);
    assert.notEqual(fresh.token, old.token);
    assert.equal(fs.existsSync(old.endpoint), false, 'the old socket is gone');
    assert.equal(fs.existsSync(oldRegistryFile), false, 'the old registry file is gone');
    const status = JSON.parse((await run(['pi-bridge', 'status', w.file, '--json'])).stdout);
    assert.equal(status.live, null);
    assert.deepEqual(status.piWithoutBridge, [], 'the bridged Pi now holding another file is not taken for an unbridged one');
    const text = await run(['pi-bridge', 'status', w.file]);
    assert.match(text.stdout, /no running Pi holds/);
    // And back: switch_session to the old file announces it again.
    await p.command('switch_session', { sessionPath: w.file });
    const back = await until('the old file announced again', async () => {
      const listed = await listRegistry(w.agentDir);
      return listed.length === 1 && listed[0].entry.sessionFile === w.file ? listed[0].entry : undefined;
    });
    assert.equal(back.pid, p.pid);
    assert.equal(JSON.parse((await run(['pi-bridge', 'status', w.file, '--json'])).stdout).live.pid, p.pid);
  });

  it('an agent folder too deep for a Unix socket path works end to end (socket in a private folder under the temporary folder)', async () => {
    const deep = path.join(w.agent.dir, 'a-rather-long-folder-name-for-the-agent'.repeat(3));
    fs.mkdirSync(deep);
    for (const f of ['models.json', 'settings.json']) fs.copyFileSync(path.join(w.agent.dir, f), path.join(deep, f));
    w.agentDir = deep;
    await installBridge();
    const p = await startPi();
    await someHistory(p, 2);
    const entry = await liveEntry();
    assert.ok(entry.endpoint.startsWith(os.tmpdir()), entry.endpoint);
    assert.ok(Buffer.byteLength(entry.endpoint) <= 100);
    assert.equal(fs.statSync(path.dirname(entry.endpoint)).mode & 0o777, 0o700);
    assert.equal(fs.lstatSync(entry.endpoint).mode & 0o777, 0o600);
    const r = await run(['label', w.file, '--entry', String(entries()[1].id), '--label', 'deep', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).via, 'pi');
    await p.stop();
    assert.equal(fs.existsSync(entry.endpoint), false, 'Pi removed its socket when it quit');
  });

  it('Pi with the bridge exits by itself when its input closes, even with a client connected; its announcement and socket go with it', async () => {
    await installBridge();
    const p = await startPi();
    const entry = await liveEntry();
    // A client that connected and said nothing.
    const idle = await import('node:net').then((net) => net.createConnection(entry.endpoint));
    await new Promise((resolve) => idle.once('connect', resolve));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      p.child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    p.child.stdin!.end();
    const { code, signal } = await exited;
    idle.destroy();
    assert.equal(signal, null, 'Pi was not killed');
    assert.equal(code, 0);
    assert.deepEqual(await listRegistry(w.agentDir), []);
    assert.equal(fs.existsSync(entry.endpoint), false);
  });

  it('arbor pi-bridge status: no Pi, a live bridged Pi, a Pi without the bridge (text and --json)', async () => {
    await startPi();
    await someHistory(w.pi!, 1);
    const unbridged = await run(['pi-bridge', 'status', w.file]);
    assert.equal(unbridged.code, 0, unbridged.stderr);
    assert.match(unbridged.stdout, /^bridge: not installed \(arbor pi-bridge install puts it in .*arbor-bridge\.js\)$/m);
    assert.match(unbridged.stdout, /^one Pi holds .*session\.jsonl:$/m);
    assert.match(unbridged.stdout, new RegExp(`^  Pi without the bridge, pid ${w.pi!.pid} \\(.*; runs in .*\\)$`, 'm'));
    assert.match(unbridged.stdout, /^Arbor will not write to .* while it runs/m);
    const uj = JSON.parse((await run(['pi-bridge', 'status', w.file, '--json'])).stdout);
    assert.deepEqual(Object.keys(uj).sort(), ['arborWrites', 'installed', 'live', 'piWithoutBridge', 'pis', 'unanswered']);
    assert.equal(uj.arborWrites, 'refused');
    assert.equal(uj.live, null);
    assert.deepEqual(
      uj.piWithoutBridge.map((x: { pid: number }) => x.pid),
      [w.pi!.pid],
    );
    await w.pi!.stop();
    w.pi = undefined;

    const none = await run(['pi-bridge', 'status', w.file]);
    assert.match(none.stdout, /^no running Pi holds .*: Arbor writes to the file$/m);
    assert.deepEqual(JSON.parse((await run(['pi-bridge', 'status', w.file, '--json'])).stdout).piWithoutBridge, []);

    await installBridge();
    // A new file: Pi 1.6 given an existing session file outside its sessions folder moves it into that folder.
    w.file = path.join(w.agent.dir, 'second.jsonl');
    const p = await startPi();
    await someHistory(p, 1);
    const live = await run(['pi-bridge', 'status', w.file]);
    assert.equal(live.code, 0, live.stderr);
    assert.match(live.stdout, /^bridge: installed, \S+ \(/m);
    assert.match(
      live.stdout,
      new RegExp(`^  live Pi with the bridge: pid ${p.pid}, Pi 1\\.6\\.\\d+, idle, leaf \\S+, model fake/fake-model`, 'm'),
    );
    const lj = JSON.parse((await run(['pi-bridge', 'status', w.file, '--json'])).stdout);
    assert.equal(lj.installed.kind, 'current');
    assert.equal(lj.arborWrites, 'pi');
    for (const k of ['pid', 'piVersion', 'bridgeVersion', 'sessionFile', 'sessionId', 'cwd', 'leafId', 'idle', 'model', 'contextUsage'])
      assert.ok(k in lj.live, `live.${k}`);
    assert.equal(lj.live.pid, p.pid);
    assert.equal(lj.live.idle, true);
    assert.ok(!('token' in lj.live), 'the token is never printed');
    const all = await run(['pi-bridge', 'status']);
    assert.match(all.stdout, new RegExp(`second\\.jsonl: pid ${p.pid}, Pi`));
    assert.ok(!all.stdout.includes((await liveEntry()).token));
  });

  it('a summary echoing the API key reaches the file through Pi redacted (compaction and branch summary)', async () => {
    await installBridge();
    const p = await startPi();
    await someHistory(p, 4);
    const key = `sk-bridge-${randomBytes(18).toString('hex')}`;
    const keyEnv = { OPENAI_API_KEY: key };
    fake.script({ type: 'echoKey', text: '## Goal\n- Keep the parser fast' });
    const c = await run(
      ['compact', '--allow-larger', w.file, '--provider', 'openai', '--base-url', fake.openaiBaseURL, '--estimator', 'chars', '--json'],
      keyEnv,
    );
    assert.equal(c.code, 0, c.stderr);
    assert.equal(JSON.parse(c.stdout).via, 'pi');
    const target = String(entries().filter((e) => e.type === 'message')[1].id);
    fake.script({ type: 'echoKey', text: '## Goal\n- Keep the parser fast' });
    const n = await run(
      ['navigate', w.file, '--to', target, '--summarize', '--provider', 'openai', '--base-url', fake.openaiBaseURL, '--json'],
      keyEnv,
    );
    assert.equal(n.code, 0, n.stderr);
    assert.equal(JSON.parse(n.stdout).via, 'pi');
    const written = entries().filter((e) => e.type === 'compaction' || e.type === 'branch_summary');
    assert.deepEqual(
      written.map((e) => e.type),
      ['compaction', 'branch_summary'],
    );
    for (const e of written) assert.match(String(e.summary), /- raw: \[redacted\]/);
    const text = fs.readFileSync(w.file, 'utf8');
    for (const form of secretForms(key))
      assert.ok(!text.includes(form), `the session file holds a form of the key (${form.slice(0, 10)}…)`);
    const messages = JSON.stringify(await p.messages());
    for (const form of secretForms(key)) assert.ok(!messages.includes(form), "Pi's memory holds a form of the key");
  });
});
