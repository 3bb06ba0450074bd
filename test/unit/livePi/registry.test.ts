import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { arbor } from '../../support/builtCli';
import { liveBridges } from '../../../src/engine/livePi/findLivePi';
import {
  REGISTRY_FORMAT,
  bridgeFolder,
  endpointPath,
  listRegistry,
  writeRegistryEntry,
  type RegistryEntry,
} from '../../../src/engine/livePi/registry';

/**
 * The bridge registry (`<agent folder>/arbor-bridge/`): private files in a private folder; what is not
 * private, not ours, or whose process is gone is passed over (and a dead process's entry cleaned).
 */
const posix = process.platform !== 'win32';

function entry(over: Partial<RegistryEntry> = {}): RegistryEntry {
  return {
    format: REGISTRY_FORMAT,
    pid: process.pid,
    piVersion: '1.6.0',
    bridgeVersion: 'test',
    sessionFile: '/tmp/s.jsonl',
    sessionId: 'sid',
    cwd: '/tmp',
    endpoint: '/tmp/nowhere.sock',
    token: 'f'.repeat(64),
    startedAt: new Date(0).toISOString(),
    ...over,
  };
}

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

/** Leaves a socket at `endpoint` with nothing listening (its process killed): returns that process's pid, now dead. */
async function leftSocket(endpoint: string): Promise<number> {
  const child = spawn(
    process.execPath,
    ['-e', `require('net').createServer().listen(${JSON.stringify(endpoint)}, () => process.kill(process.pid, 'SIGKILL'))`],
    { stdio: 'ignore' },
  );
  await new Promise((resolve) => child.once('exit', resolve));
  assert.ok(fs.lstatSync(endpoint).isSocket(), `${endpoint} was left`);
  return child.pid!;
}

describe('bridge registry', () => {
  let agentDir: string;
  beforeEach(() => {
    agentDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-registry-'));
  });
  afterEach(() => fs.rmSync(agentDir, { recursive: true, force: true }));

  it('writes entries mode 0600 in a 0700 folder, and lists them', async function () {
    if (!posix) this.skip();
    const file = await writeRegistryEntry(agentDir, 'me', entry());
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(bridgeFolder(agentDir)).mode & 0o777, 0o700);
    assert.deepEqual(
      (await listRegistry(agentDir)).map((e) => e.entry.pid),
      [process.pid],
    );
  });

  it("passes over and removes an entry whose process is gone, with its socket when that is this host's, in the bridge's folder", async function () {
    if (!posix) this.skip();
    const sock = path.join(bridgeFolder(agentDir), 'dead.sock');
    await writeRegistryEntry(agentDir, 'live', entry());
    const dead = await leftSocket(sock);
    const file = await writeRegistryEntry(agentDir, 'dead', entry({ pid: dead, endpoint: sock, host: os.hostname() }));
    assert.deepEqual(
      (await listRegistry(agentDir)).map((e) => path.basename(e.file)),
      ['live.json'],
    );
    assert.equal(fs.existsSync(file), false);
    assert.equal(fs.existsSync(sock), false);
  });

  it("issue 38 item 5: a stale entry's endpoint stays unless it is this host's socket in the bridge's folder (the entry is dropped)", async function () {
    if (!posix) this.skip();
    const dir = bridgeFolder(agentDir);
    await writeRegistryEntry(agentDir, 'live', entry());
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-registry-outside-'));
    try {
      const host = os.hostname();
      const regular = path.join(dir, 'regular.sock');
      fs.writeFileSync(regular, 'not a socket');
      const elsewhere = path.join(outside, 'elsewhere.sock');
      const atRoot = path.join(agentDir, 'at-root.sock');
      const otherHost = path.join(dir, 'other-host.sock');
      const noHost = path.join(dir, 'no-host.sock');
      const cases: [string, Partial<RegistryEntry>][] = [
        ['regular', { endpoint: regular, host }],
        ['elsewhere', { endpoint: elsewhere, pid: await leftSocket(elsewhere), host }],
        ['at-root', { endpoint: atRoot, pid: await leftSocket(atRoot), host }],
        ['other-host', { endpoint: otherHost, pid: await leftSocket(otherHost), host: `not-${host}` }],
        ['no-host', { endpoint: noHost, pid: await leftSocket(noHost) }],
        ['dotted', { endpoint: path.join(dir, '..', 'at-root.sock'), host }],
      ];
      const dead = await deadPid();
      const files = [];
      for (const [name, over] of cases) files.push(await writeRegistryEntry(agentDir, name, entry({ pid: dead, ...over })));
      assert.deepEqual(
        (await listRegistry(agentDir)).map((e) => path.basename(e.file)),
        ['live.json'],
      );
      for (const f of files) assert.equal(fs.existsSync(f), false, `${f}: the stale entry is dropped`);
      assert.equal(fs.readFileSync(regular, 'utf8'), 'not a socket');
      for (const sock of [elsewhere, atRoot, otherHost, noHost]) assert.ok(fs.lstatSync(sock).isSocket(), `${sock} is kept`);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('passes over an entry others can read, one owned by another user, one that is a link, and one that does not parse', async function () {
    if (!posix) this.skip();
    const dir = bridgeFolder(agentDir);
    const readable = await writeRegistryEntry(agentDir, 'readable', entry());
    fs.chmodSync(readable, 0o644);
    const linked = path.join(dir, 'linked.json');
    const target = await writeRegistryEntry(agentDir, 'target', entry());
    fs.renameSync(target, path.join(agentDir, 'elsewhere.json'));
    fs.symlinkSync(path.join(agentDir, 'elsewhere.json'), linked);
    fs.writeFileSync(path.join(dir, 'broken.json'), '{"format": 1, "pid": ', { mode: 0o600 });
    fs.writeFileSync(path.join(dir, 'wrong.json'), JSON.stringify({ ...entry(), pid: 'me', token: 12 }), { mode: 0o600 });
    if (process.getuid?.() === 0) {
      const foreign = await writeRegistryEntry(agentDir, 'foreign', entry());
      fs.chownSync(foreign, 65534, 65534);
    }
    assert.deepEqual(await listRegistry(agentDir), []);
    assert.equal(fs.existsSync(readable), true, 'an entry that is not trusted is not removed either');
  });

  it('a registry folder that is a link, or can be reached by others, announces nothing; the bridge refuses to use it', async function () {
    if (!posix) this.skip();
    const real = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-registry-real-'));
    try {
      const realAgent = path.join(real, 'agent');
      await writeRegistryEntry(realAgent, 'me', entry());
      assert.equal((await listRegistry(realAgent)).length, 1);
      fs.symlinkSync(bridgeFolder(realAgent), bridgeFolder(agentDir));
      assert.deepEqual(await listRegistry(agentDir), []);
      await assert.rejects(writeRegistryEntry(agentDir, 'other', entry()), /is not a folder/);
      fs.chmodSync(bridgeFolder(realAgent), 0o755);
      assert.deepEqual(await listRegistry(realAgent), []);
    } finally {
      fs.rmSync(real, { recursive: true, force: true });
    }
  });

  it('puts the socket in a private folder right under the temporary folder when the agent folder path is too long', () => {
    if (!posix) return;
    const short = endpointPath('/home/u/.pi/agent', 'p-1');
    assert.equal(short.endpoint, '/home/u/.pi/agent/arbor-bridge/p-1.sock');
    const long = endpointPath(`/home/u/${'x'.repeat(120)}`, `${process.pid}-abcdefabcdef`);
    assert.equal(path.dirname(long.endpoint), long.folder);
    assert.equal(path.dirname(long.folder!), os.tmpdir());
    assert.ok(Buffer.byteLength(long.endpoint) <= 100, long.endpoint);
    assert.notEqual(endpointPath(`/home/v/${'x'.repeat(120)}`, 'n').folder, long.folder, 'one folder per agent folder');
  });

  it('an entry of a live pid whose endpoint nothing listens on (the pid was reused) is removed when looked for', async () => {
    const gone = await writeRegistryEntry(agentDir, 'reused', entry({ endpoint: path.join(agentDir, 'no-such.sock') }));
    assert.deepEqual(await liveBridges(agentDir), []);
    assert.equal(fs.existsSync(gone), false);
  });

  it('arbor pi-bridge status removes a stale entry and reports no live Pi', async function () {
    const file = await writeRegistryEntry(agentDir, 'stale', entry({ pid: await deadPid() }));
    const r = await arbor(['pi-bridge', 'status'], { PI_CODING_AGENT_DIR: agentDir });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^bridge: not installed/m);
    assert.match(r.stdout, /^no running Pi with the bridge$/m);
    assert.equal(fs.existsSync(file), false);
    const j = await arbor(['pi-bridge', 'status', '--json'], { PI_CODING_AGENT_DIR: agentDir });
    assert.deepEqual(JSON.parse(j.stdout).live, []);
    assert.equal(JSON.parse(j.stdout).installed.kind, 'absent');
  });
});
