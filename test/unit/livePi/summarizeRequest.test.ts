/**
 * Issue 33 item 2, the protocol: the `summarize` request is checked like every
 * other (its kind, its fields, a bound on its instructions), and a bridge
 * installed before it existed answers `unknown-op`, which Arbor turns into
 * "reinstall the bridge" (a bridge that answers so is simulated here: a
 * socket speaking the protocol of the old version).
 */
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { BridgeRequestError, MAX_INSTRUCTIONS_CHARS, PROTOCOL_VERSION, validateRequest } from '../../../src/engine/livePi/protocol';
import { BridgeError, requestSummary } from '../../../src/engine/livePi/client';
import type { RegistryEntry } from '../../../src/engine/livePi/registry';

const base = { v: PROTOCOL_VERSION, token: 't', op: 'summarize', expectedLeafId: 'leaf1' };

function refused(raw: unknown, code: string, message: RegExp): void {
  assert.throws(
    () => validateRequest(raw),
    (err: unknown) => err instanceof BridgeRequestError && err.code === code && message.test(err.message),
  );
}

describe('the bridge request "summarize" (issue 33)', () => {
  it('takes a compaction or a branch with its target; instructions are bounded and trimmed', () => {
    assert.deepEqual(validateRequest({ ...base, kind: 'compaction', customInstructions: '  keep numbers  ' }), {
      v: PROTOCOL_VERSION,
      token: 't',
      op: 'summarize',
      kind: 'compaction',
      expectedLeafId: 'leaf1',
      customInstructions: 'keep numbers',
      waitMs: undefined,
    });
    const branch = validateRequest({ ...base, kind: 'branch', targetId: 'e7', replaceInstructions: true, customInstructions: 'x' });
    assert.equal(branch.op === 'summarize' && branch.targetId, 'e7');
    assert.equal(branch.op === 'summarize' && branch.replaceInstructions, true);
    refused({ ...base, kind: 'everything' }, 'bad-request', /"kind" must be "compaction" or "branch"/);
    refused({ ...base, kind: 'branch' }, 'bad-request', /"targetId"/);
    refused(
      { ...base, kind: 'compaction', customInstructions: 'x'.repeat(MAX_INSTRUCTIONS_CHARS + 1) },
      'bad-request',
      /customInstructions/,
    );
    refused({ ...base, kind: 'compaction', customInstructions: 7 }, 'bad-request', /customInstructions/);
    refused({ ...base, kind: 'branch', targetId: 'e7', replaceInstructions: 'yes' }, 'bad-request', /replaceInstructions/);
    refused({ ...base, kind: 'compaction', expectedLeafId: '' }, 'bad-request', /expectedLeafId/);
  });

  it('an older bridge that does not know it: Arbor says to reinstall the bridge', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-old-bridge-'));
    const endpoint = path.join(dir, 'b.sock');
    const seen: string[] = [];
    const server = net.createServer((socket) => {
      socket.once('data', (chunk) => {
        seen.push(chunk.toString('utf8'));
        const error = {
          code: 'unknown-op',
          message: 'unknown operation "summarize"; this bridge knows state, compact, navigate and label',
        };
        socket.end(`${JSON.stringify({ v: PROTOCOL_VERSION, ok: false, error })}\n`);
      });
    });
    await new Promise<void>((resolve) => server.listen(endpoint, resolve));
    try {
      const entry = { endpoint, token: 'secret-token', pid: 1, bridgeVersion: '0.0.9' } as RegistryEntry;
      await assert.rejects(requestSummary(entry, { kind: 'compaction', expectedLeafId: 'leaf1' }), (err: unknown) => {
        assert.ok(err instanceof BridgeError);
        assert.equal(err.code, 'unknown-op');
        assert.match(err.message, /version 0\.0\.9\) cannot write summaries with Pi's model; reinstall it/);
        return true;
      });
      const sent = JSON.parse(seen[0]) as Record<string, unknown>;
      assert.equal(sent.op, 'summarize');
      assert.equal(sent.token, 'secret-token', 'the same token check as every request');
    } finally {
      server.close();
      await fsp.rm(dir, { recursive: true, force: true });
    }
  });
});
