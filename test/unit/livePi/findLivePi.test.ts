import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { findLivePi } from '../../../src/engine/livePi/findLivePi';
import { resolveWriteRoute } from '../../../src/engine/livePi/writeRoute';
import { BridgeError } from '../../../src/engine/livePi/client';
import { endpointPath, REGISTRY_FORMAT, writeRegistryEntry } from '../../../src/engine/livePi/registry';

/** A bridge that announced a session but never answers (hung Pi, or starved on a loaded machine) is not taken for "no bridge". */
describe('findLivePi: an announced bridge that does not answer', () => {
  let dir: string;
  let server: net.Server;
  const sockets = new Set<net.Socket>();

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-unanswered-'));
    const { endpoint } = endpointPath(dir, 'silent');
    fs.mkdirSync(path.dirname(endpoint), { recursive: true, mode: 0o700 });
    server = net.createServer((s) => {
      sockets.add(s); // accepts, reads, never answers
      s.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(endpoint, resolve));
    await writeRegistryEntry(dir, 'silent', {
      format: REGISTRY_FORMAT,
      pid: process.pid, // alive: not stale
      piVersion: '1.6.0',
      bridgeVersion: 'test',
      sessionFile: path.join(dir, 'held.jsonl'),
      sessionId: 's',
      cwd: dir,
      endpoint,
      token: 'f'.repeat(64),
      startedAt: new Date().toISOString(),
    });
  });

  afterEach(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is reported as unanswered (not as a Pi without the bridge), and a write is refused with that reason', async () => {
    const file = path.join(dir, 'held.jsonl');
    const live = await findLivePi(file, { agentDir: dir, cwd: dir, timeoutMs: 300 });
    assert.equal(live.kind, 'unanswered');
    assert.equal(live.kind === 'unanswered' && live.entry.pid, process.pid);
    await assert.rejects(
      resolveWriteRoute(file, { agentDir: dir, cwd: dir }),
      (err: unknown) => err instanceof BridgeError && /did not answer; nothing was written|did not answer \(/.test(err.message),
    );
    // Another session is not held by it.
    assert.equal((await findLivePi(path.join(dir, 'other.jsonl'), { agentDir: dir, timeoutMs: 300 })).kind, 'none');
  });
});
