import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { BRIDGE_COMMAND, BridgeOperations } from '../../../src/piBridge/operations';
import { BridgeServer } from '../../../src/piBridge/server';
import type { BridgeRequest } from '../../../src/engine/livePi/protocol';
import type { PiApi, PiCommandContext, PiContext, PiEntry } from '../../../src/piBridge/piApi';
import { line, rawExchange } from '../../support/pi/rawBridge';

/**
 * A request whose client has gone (a cancel, Ctrl-C, a killed process) is dropped by the bridge and never
 * written later; a connection that never finishes its request line is closed.
 */

const TOKEN = 'c'.repeat(64);

/** Waits until `state()` holds; fails (rather than hangs) when it has not after a generous bound. */
async function until(state: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!state()) {
    if (Date.now() > deadline) assert.fail(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A small busy-or-idle Pi: labels and navigations are recorded; sendUserMessage's command runs only when told. */
class BusyPi {
  idle = false;
  entries: PiEntry[] = [1, 2, 3].map((n) => ({ type: 'message', id: `e${n}`, parentId: n === 1 ? null : `e${n - 1}` }));
  leaf: string | null = 'e3';
  labels: [string, string | undefined][] = [];
  sent: string[] = [];
  notices: string[] = [];
  navigatedTo: string[] = [];
  ops!: BridgeOperations;

  ctx(): PiCommandContext {
    return {
      sessionManager: {
        getSessionFile: () => '/tmp/busy.jsonl',
        getSessionId: () => 'sid',
        getCwd: () => '/tmp',
        getLeafId: () => this.leaf,
        getEntry: (id) => this.entries.find((e) => e.id === id),
        getEntries: () => [...this.entries],
      },
      model: undefined,
      hasUI: true,
      ui: { notify: (m) => this.notices.push(m) },
      isIdle: () => this.idle,
      getContextUsage: () => undefined,
      compact: () => assert.fail('no compaction in these tests'),
      waitForIdle: async () => undefined,
      navigateTree: async (targetId) => {
        this.navigatedTo.push(targetId);
        this.leaf = targetId;
        return { cancelled: false };
      },
    };
  }

  api(): PiApi {
    return {
      on: () => undefined,
      registerCommand: () => undefined,
      sendUserMessage: (text: string) => void this.sent.push(text),
      setLabel: (id: string, label: string | undefined) => void this.labels.push([id, label]),
      appendEntry: () => undefined,
    } as unknown as PiApi;
  }

  /** The turn ends: Pi is idle and says so. */
  settle(): void {
    this.idle = true;
    this.ops.wakeIdle();
  }
}

describe('the bridge drops a request whose client is gone', () => {
  let dir: string;
  let server: BridgeServer;
  let pi: BusyPi;
  let endpoint: string;
  const handled: string[] = [];

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-cancel-'));
    endpoint = path.join(dir, 'b', 'x.sock');
    pi = new BusyPi();
    pi.ops = new BridgeOperations(pi.api(), () => pi.ctx() as PiContext, { pid: 1, piVersion: '1.6.0', bridgeVersion: 'test' });
    handled.length = 0;
    server = new BridgeServer({
      endpoint,
      folder: path.dirname(endpoint),
      token: TOKEN,
      requestLineMs: 300,
      handle: async (r: BridgeRequest, signal) => {
        handled.push(r.op);
        if (r.op === 'label') return pi.ops.label(r, signal);
        if (r.op === 'navigate') return pi.ops.navigate(r, signal);
        return pi.ops.state();
      },
    });
    await server.listen();
  });

  afterEach(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Connects, sends `request`, resolves once the bridge has taken it (it waits for Pi), and returns the socket. */
  async function sendAndHold(request: object): Promise<net.Socket> {
    const socket = net.createConnection(endpoint);
    socket.on('error', () => undefined);
    const taken = handled.length;
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(line({ v: 1, token: TOKEN, ...request }));
    await until(() => handled.length > taken, 'the bridge took the request');
    return socket;
  }

  /** A later request from another client, answered: every earlier request has been run or dropped. */
  async function labelAndWait(entryId: string, label: string): Promise<Record<string, unknown>> {
    const r = await rawExchange(endpoint, line({ v: 1, token: TOKEN, op: 'label', entryId, label, waitMs: 5000 }));
    return r.lines[0];
  }

  it('a label waiting for a busy Pi whose client is killed is never written when Pi becomes idle', async () => {
    const socket = await sendAndHold({ op: 'label', entryId: 'e2', label: 'too-late', waitMs: 30_000 });
    socket.destroy(); // the client process ends (Ctrl-C): its socket closes
    // The bridge notices the client gone while Pi is still busy.
    await until(() => server.connections === 0, 'the bridge dropped the connection');
    pi.settle();
    const next = await labelAndWait('e1', 'after');
    assert.equal(next.ok, true, JSON.stringify(next));
    assert.deepEqual(pi.labels, [['e1', 'after']], 'the cancelled label was never written');
  });

  it('a client that closes its sending side while its label waits for a busy Pi gets a refusal and nothing is written', async () => {
    const answer = rawExchange(endpoint, line({ v: 1, token: TOKEN, op: 'label', entryId: 'e2', label: 'dropped', waitMs: 30_000 }), {
      halfClose: true,
    });
    await until(() => handled.length > 0, 'the bridge took the request');
    const r = await answer;
    assert.equal(r.lines[0]?.ok, false, JSON.stringify(r));
    assert.match(String((r.lines[0]?.error as { message?: string })?.message), /waited for Pi; nothing was changed/);
    pi.settle();
    assert.equal((await labelAndWait('e1', 'after')).ok, true);
    assert.deepEqual(pi.labels, [['e1', 'after']]);
  });

  it('a half-closed client (`… | nc -U`) still gets a label written and answered when Pi is idle', async () => {
    pi.idle = true;
    const r = await rawExchange(endpoint, line({ v: 1, token: TOKEN, op: 'label', entryId: 'e2', label: 'kept' }), { halfClose: true });
    assert.equal(r.lines[0]?.ok, true, JSON.stringify(r));
    assert.deepEqual(pi.labels, [['e2', 'kept']]);
  });

  it('a navigation whose client is gone before Pi runs its command is dropped: the command later does nothing, silently', async () => {
    pi.idle = true;
    const socket = await sendAndHold({ op: 'navigate', expectedLeafId: 'e3', targetId: 'e1', waitMs: 30_000 });
    await until(() => pi.sent.length > 0, 'the bridge sent its command');
    socket.destroy();
    await until(() => server.connections === 0, 'the bridge dropped the connection');
    await pi.ops.runCommand(pi.sent[0].slice(BRIDGE_COMMAND.length + 2), pi.ctx());
    assert.deepEqual(pi.navigatedTo, [], 'Pi did not move');
    assert.deepEqual(pi.notices, [], 'nothing shown in Pi for the dropped command');
  });

  it('a connection that never finishes its request line is closed (requestLineMs), holding nothing open', async () => {
    const r = await rawExchange(endpoint, '{"v":1,"token":"', { lines: 1 });
    assert.equal(r.ended, true);
    assert.deepEqual(r.lines, []);
    await until(() => server.connections === 0, 'the bridge dropped the connection');
    assert.deepEqual(handled, []);
  });
});
