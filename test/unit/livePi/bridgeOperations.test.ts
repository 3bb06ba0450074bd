import { strict as assert } from 'node:assert';
import { BRIDGE_COMMAND, BridgeOperations } from '../../../src/piBridge/operations';
import { BridgeRequestError, validateRequest, type CompactRequest, type NavigateRequest } from '../../../src/engine/livePi/protocol';
import type {
  PiApi,
  PiCommandContext,
  PiContext,
  PiEntry,
  SessionBeforeCompactEvent,
  SessionBeforeTreeEvent,
} from '../../../src/piBridge/piApi';

/**
 * BridgeOperations (the bridge's logic inside Pi) against a fake Pi: the parts the real Pi cannot be driven
 * into deterministically (a leaf that moved between plan and write, a compaction Pi offers on another branch,
 * overlapping requests, a stray or late command run, the session closing under a queued navigation).
 */

/** A fake Pi session: a chain of entries, a leaf, idle or busy; compaction and navigation call back into the bridge's hooks as Pi does. */
class FakePi {
  entries: PiEntry[] = [];
  leaf: string | null = null;
  idle = true;
  sent: string[] = [];
  notices: string[] = [];
  labels: [string, string | undefined][] = [];
  /** Set to run sendUserMessage's command at once (as Pi does while idle) with this context. */
  runCommands = true;
  /** What the next compaction offers the bridge as Pi's branch (default: the path to the leaf). */
  branch: (() => PiEntry[]) | undefined;
  /** The target Pi's tree hook names (default: the one asked for). */
  treeTarget: string | undefined;
  /** The reason Pi gives its compaction, and what the bridge answered each. */
  compactReason = 'manual';
  compactAnswers: unknown[] = [];
  /** Another extension answering Pi's hooks after the bridge (Pi takes the last answer). */
  otherExtensionSummary: string | undefined;
  ops!: BridgeOperations;
  private n = 0;

  append(type: string, summary?: string): PiEntry {
    const e: PiEntry = { type, id: `e${++this.n}`, parentId: this.leaf, ...(summary === undefined ? {} : { summary }) };
    this.entries.push(e);
    this.leaf = e.id;
    return e;
  }

  path(): PiEntry[] {
    const out: PiEntry[] = [];
    for (let id = this.leaf; id;) {
      const e = this.entries.find((x) => x.id === id)!;
      out.unshift(e);
      id = e.parentId;
    }
    return out;
  }

  ctx(): PiCommandContext {
    return {
      sessionManager: {
        getSessionFile: () => '/tmp/fake.jsonl',
        getSessionId: () => 'sid',
        getCwd: () => '/tmp',
        getLeafId: () => this.leaf,
        getEntry: (id) => this.entries.find((e) => e.id === id),
        getEntries: () => [...this.entries],
      },
      model: { provider: 'fake', id: 'm' },
      hasUI: true,
      ui: { notify: (m) => this.notices.push(m) },
      isIdle: () => this.idle,
      getContextUsage: () => undefined,
      compact: (o) => {
        const event: SessionBeforeCompactEvent = {
          preparation: { firstKeptEntryId: 'x', tokensBefore: 1 },
          branchEntries: (this.branch ?? (() => this.path()))(),
          reason: this.compactReason,
        };
        const answer = this.ops.supplyCompaction(event) as { cancel?: boolean; compaction?: { summary: string } } | undefined;
        this.compactAnswers.push(answer);
        queueMicrotask(() => {
          if (answer?.cancel) return o?.onError?.(new Error('Compaction cancelled'));
          this.append('compaction', this.otherExtensionSummary ?? answer?.compaction?.summary ?? '(Pi summarized with its own model)');
          o?.onComplete?.({});
        });
      },
      waitForIdle: async () => undefined,
      navigateTree: async (targetId, options) => {
        const answer = this.ops.supplyBranchSummary({
          preparation: { targetId: this.treeTarget ?? targetId, oldLeafId: this.leaf, userWantsSummary: !!options?.summarize },
        } as SessionBeforeTreeEvent) as { cancel?: boolean; summary?: { summary: string } } | undefined;
        if (answer?.cancel) return { cancelled: true };
        this.leaf = this.entries.find((e) => e.id === targetId)!.id;
        if (options?.summarize)
          this.append('branch_summary', this.otherExtensionSummary ?? answer?.summary?.summary ?? '(Pi summarized with its own model)');
        return { cancelled: false };
      },
    };
  }

  api(): PiApi {
    return {
      on: () => undefined,
      registerCommand: () => undefined,
      sendUserMessage: (text: string) => {
        this.sent.push(text);
        if (this.runCommands) queueMicrotask(() => void this.ops.runCommand(text.slice(BRIDGE_COMMAND.length + 2), this.ctx()));
      },
      setLabel: (id: string, label: string | undefined) => {
        this.labels.push([id, label]);
        this.append('label');
      },
      appendEntry: () => void this.append('custom'),
    } as PiApi;
  }
}

function setup(): FakePi {
  const pi = new FakePi();
  pi.ops = new BridgeOperations(pi.api(), () => pi.ctx() as PiContext, { pid: 1, piVersion: '1.6.0', bridgeVersion: 'test' });
  for (let i = 0; i < 4; i++) pi.append('message');
  return pi;
}

const base = { v: 1, token: 't' };
const compactReq = (pi: FakePi, over: Partial<CompactRequest> = {}): CompactRequest => ({
  ...base,
  op: 'compact',
  expectedLeafId: pi.leaf!,
  summary: 'S',
  firstKeptEntryId: 'e3',
  tokensBefore: 10,
  ...over,
});
const navReq = (pi: FakePi, over: Partial<NavigateRequest> = {}): NavigateRequest => ({
  ...base,
  op: 'navigate',
  expectedLeafId: pi.leaf,
  targetId: 'e2',
  ...over,
});

async function refusal(p: Promise<unknown>): Promise<BridgeRequestError> {
  const err = await p.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof BridgeRequestError, String(err));
  return err;
}

describe('BridgeOperations (the bridge inside Pi) with a fake Pi', () => {
  it('refuses a write planned at another leaf (stale), writing nothing', async () => {
    const pi = setup();
    const before = pi.entries.length;
    const planned = pi.leaf!;
    pi.append('message'); // Pi moved on after Arbor planned
    assert.equal((await refusal(pi.ops.compact(compactReq(pi, { expectedLeafId: planned })))).code, 'stale');
    assert.equal((await refusal(pi.ops.navigate(navReq(pi, { expectedLeafId: planned })))).code, 'stale');
    assert.equal(pi.entries.length, before + 1);
    assert.deepEqual(pi.sent, [], 'no command was sent for a stale navigation');
  });

  it('a leaf that moves between the request and the command run is still refused as stale', async () => {
    const pi = setup();
    pi.runCommands = false;
    const p = pi.ops.navigate(navReq(pi));
    while (pi.sent.length === 0) await new Promise((r) => setImmediate(r));
    pi.append('message');
    await pi.ops.runCommand(pi.sent[0].slice(BRIDGE_COMMAND.length + 2), pi.ctx());
    assert.equal((await refusal(p)).code, 'stale');
  });

  it('a compaction whose firstKeptEntryId is not on the branch Pi offers is cancelled inside Pi and reported stale', async () => {
    const pi = setup();
    pi.branch = () => pi.path().filter((e) => e.id !== 'e3');
    const before = pi.entries.length;
    const err = await refusal(pi.ops.compact(compactReq(pi)));
    assert.equal(err.code, 'stale');
    assert.match(err.message, /e3 is not on Pi's current branch/);
    assert.equal(pi.entries.length, before);
    // The bridge does not answer a later compaction of Pi's own (its pending request is over).
    assert.equal(
      pi.ops.supplyCompaction({ preparation: { firstKeptEntryId: 'e3', tokensBefore: 1 }, branchEntries: pi.path(), reason: 'manual' }),
      undefined,
    );
  });

  it("answers only Pi's manual compaction it asked for, with exactly the approved fields", async () => {
    const pi = setup();
    await pi.ops.compact(compactReq(pi, { summary: 'exactly this', details: { readFiles: ['a'] } }));
    assert.deepEqual(pi.compactAnswers, [
      { compaction: { summary: 'exactly this', firstKeptEntryId: 'e3', tokensBefore: 10, details: { readFiles: ['a'] } } },
    ]);
    // Pi's own compactions (automatic, or none pending) are left alone.
    pi.compactReason = 'threshold';
    await pi.ops.compact(compactReq(pi)).catch(() => undefined);
    assert.equal(pi.compactAnswers[1], undefined);
    assert.equal(
      pi.ops.supplyCompaction({ preparation: { firstKeptEntryId: 'e3', tokensBefore: 1 }, branchEntries: pi.path(), reason: 'manual' }),
      undefined,
    );
  });

  it('runs requests one at a time, in arrival order', async () => {
    const pi = setup();
    const order: string[] = [];
    let releaseFirst!: () => void;
    const first = pi.ops.serial(async () => {
      order.push('first start');
      await new Promise<void>((r) => (releaseFirst = r));
      order.push('first end');
    });
    const second = pi.ops.serial(async () => {
      order.push('second');
      throw new Error('second fails');
    });
    const third = pi.ops.serial(async () => void order.push('third'));
    while (!releaseFirst) await new Promise((r) => setImmediate(r));
    assert.deepEqual(order, ['first start']);
    releaseFirst();
    await first;
    await assert.rejects(second, /second fails/);
    await third;
    assert.deepEqual(order, ['first start', 'first end', 'second', 'third']);
  });

  it('serializes real writes: a label sent while a navigation waits for its command runs after it', async () => {
    const pi = setup();
    pi.runCommands = false;
    const nav = pi.ops.navigate(navReq(pi));
    const label = pi.ops.label({ ...base, op: 'label', entryId: 'e1', label: 'x' });
    while (pi.sent.length === 0) await new Promise((r) => setImmediate(r));
    assert.deepEqual(pi.labels, [], 'the label waits behind the navigation');
    await pi.ops.runCommand(pi.sent[0].slice(BRIDGE_COMMAND.length + 2), pi.ctx());
    const navResult = await nav;
    const labelResult = await label;
    assert.equal(pi.leaf, labelResult.leafId);
    assert.deepEqual(pi.labels, [['e1', 'x']]);
    assert.equal(navResult.entryIds.length, 0, "a move without a summary writes nothing (as Pi's own /tree): Pi holds the leaf in memory");
  });

  it('a command run with an unknown nonce only notifies and changes nothing', async () => {
    const pi = setup();
    const before = JSON.stringify(pi.entries);
    await pi.ops.runCommand('not-a-nonce', pi.ctx());
    await pi.ops.runCommand('', pi.ctx());
    assert.equal(JSON.stringify(pi.entries), before);
    assert.equal(pi.notices.length, 2);
    assert.match(pi.notices[0], /nothing for it to do/);
  });

  it('close() rejects queued navigations, and their command, run later, does nothing', async () => {
    const pi = setup();
    pi.runCommands = false;
    const nav = pi.ops.navigate(navReq(pi));
    while (pi.sent.length === 0) await new Promise((r) => setImmediate(r));
    pi.ops.close();
    const err = await refusal(nav);
    assert.equal(err.code, 'failed');
    assert.match(err.message, /closed the session/);
    const leaf = pi.leaf;
    await pi.ops.runCommand(pi.sent[0].slice(BRIDGE_COMMAND.length + 2), pi.ctx());
    assert.equal(pi.leaf, leaf);
  });

  it('a navigation Pi does not take (sendUserMessage throws) fails at once and leaves nothing queued', async () => {
    const pi = setup();
    const api = pi.api();
    api.sendUserMessage = () => {
      throw new Error('Agent is streaming');
    };
    const ops = new BridgeOperations(api, () => pi.ctx(), { pid: 1, piVersion: '1.6.0', bridgeVersion: 'test' });
    const err = await refusal(ops.navigate(navReq(pi)));
    assert.equal(err.code, 'failed');
    assert.match(err.message, /Agent is streaming/);
  });

  it('refuses as busy when Pi does not become idle within the wait, and goes on once Pi settles', async () => {
    const pi = setup();
    pi.idle = false;
    const err = await refusal(pi.ops.label({ ...base, op: 'label', entryId: 'e1', label: 'x', waitMs: 0 }));
    assert.equal(err.code, 'busy');
    assert.deepEqual(pi.labels, []);
    const later = pi.ops.label({ ...base, op: 'label', entryId: 'e1', label: 'y', waitMs: 60_000 });
    pi.idle = true;
    pi.ops.wakeIdle();
    await later;
    assert.deepEqual(pi.labels, [['e1', 'y']]);
  });

  it('an entry Pi does not hold is not-found', async () => {
    const pi = setup();
    assert.equal((await refusal(pi.ops.label({ ...base, op: 'label', entryId: 'nope', label: 'x' }))).code, 'not-found');
    assert.equal((await refusal(pi.ops.compact(compactReq(pi, { firstKeptEntryId: 'nope' })))).code, 'not-found');
    assert.equal((await refusal(pi.ops.navigate(navReq(pi, { targetId: 'nope' })))).code, 'not-found');
  });

  it("a jump with a summary hands Pi exactly the approved text; a hook event that is not as planned is cancelled, never left to Pi's model", async () => {
    const pi = setup();
    const r = await pi.ops.navigate(navReq(pi, { summary: { text: 'approved jump' } }));
    assert.equal(pi.entries.find((e) => e.id === r.entryIds[0])!.summary, 'approved jump');
    pi.treeTarget = 'e1';
    const before = pi.entries.length;
    const err = await refusal(pi.ops.navigate(navReq(pi, { summary: { text: 'approved jump' } })));
    assert.match(err.message, /cancelled inside Pi/);
    assert.equal(pi.entries.length, before);
    // Not Arbor's jump (none pending): Pi's own /tree is left alone.
    assert.equal(pi.ops.supplyBranchSummary({ preparation: { targetId: 'e1', oldLeafId: null, userWantsSummary: true } }), undefined);
  });

  it("the bridge hooks never throw on an event of the wrong shape while Arbor's write is pending", async () => {
    const pi = setup();
    pi.branch = () => undefined as unknown as PiEntry[];
    const err = await refusal(pi.ops.compact(compactReq(pi)));
    assert.equal(err.code, 'stale');
    assert.deepEqual(pi.compactAnswers, [{ cancel: true }]);
  });

  it("a summary replaced by another extension answering Pi's hook after the bridge is reported, naming the entry", async () => {
    const pi = setup();
    pi.otherExtensionSummary = 'something else';
    const c = await refusal(pi.ops.compact(compactReq(pi, { summary: 'approved' })));
    assert.equal(c.code, 'failed');
    assert.match(c.message, new RegExp(`Pi wrote compaction ${pi.leaf} with a text other than the approved one`));
    const n = await refusal(pi.ops.navigate(navReq(pi, { summary: { text: 'approved' } })));
    assert.match(n.message, /Pi wrote branch summary e\d+ with a text other than the approved one/);
  });
});

describe('bridge protocol: request validation', () => {
  const ok = { v: 1, token: 'x'.repeat(64) };
  const code = (raw: unknown) => {
    try {
      validateRequest(raw);
    } catch (e) {
      return (e as BridgeRequestError).code;
    }
    return 'accepted';
  };
  const nested = (depth: number) => {
    let v: unknown = 'leaf';
    for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
    return v;
  };

  it('refuses wrong types and depths by field, version and op', () => {
    const compact = { ...ok, op: 'compact', expectedLeafId: 'a', summary: 'S', firstKeptEntryId: 'b', tokensBefore: 1 };
    assert.equal(code(compact), 'accepted');
    assert.equal(code({ ...compact, details: nested(60) }), 'accepted');
    assert.equal(code({ ...compact, details: nested(5000) }), 'bad-request');
    assert.equal(code({ ...compact, summary: { text: 'S' } }), 'bad-request');
    assert.equal(code({ ...compact, summary: '   ' }), 'bad-request');
    assert.equal(code({ ...compact, tokensBefore: '1' }), 'bad-request');
    assert.equal(code({ ...compact, tokensBefore: -1 }), 'bad-request');
    assert.equal(code({ ...compact, waitMs: 'soon' }), 'bad-request');
    assert.equal(code({ ...compact, expectedLeafId: ['a'] }), 'bad-request');
    assert.equal(code({ ...compact, firstKeptEntryId: 'x'.repeat(300) }), 'bad-request');
    const nav = { ...ok, op: 'navigate', expectedLeafId: null, targetId: 'a' };
    assert.equal(code(nav), 'accepted');
    assert.equal(code({ ...nav, summary: 'text' }), 'bad-request');
    assert.equal(code({ ...nav, summary: { text: 5 } }), 'bad-request');
    assert.equal(code({ ...nav, summary: { text: 'S', details: nested(5000) } }), 'bad-request');
    assert.equal(code({ ...nav, label: { x: 1 } }), 'bad-request');
    assert.equal(code({ ...ok, op: 'label', entryId: 'a', label: ['x'] }), 'bad-request');
    assert.equal(code({ ...ok, op: 'label', entryId: 'a', label: null }), 'accepted');
    assert.equal(code({ ...ok, op: 'prompt', message: 'hi' }), 'unknown-op');
    assert.equal(code({ ...ok, op: { toString: 1 } }), 'unknown-op');
    assert.equal(code({ ...ok, v: 2, op: 'state' }), 'version');
    assert.equal(code({ token: ok.token, op: 'state' }), 'version');
    assert.equal(code({ v: 1, op: 'state' }), 'unauthorized');
    assert.equal(code([ok]), 'bad-request');
    assert.equal(code(null), 'bad-request');
  });

  it('checks a 100,000-level nesting without recursion', () => {
    assert.equal(
      code({
        ...ok,
        op: 'compact',
        expectedLeafId: 'a',
        summary: 'S',
        firstKeptEntryId: 'b',
        tokensBefore: 1,
        details: JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`),
      }),
      'bad-request',
    );
  });
});
