import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { arbor } from '../../support/builtCli';
import { startFakeProvider, type FakeProviderServer } from '../../support/fakeProvider';
import { node22, PiRpc, type PiAgentFolder } from '../../support/pi/piRpc';
import { PiWorkspace, someHistory as history } from '../../support/pi/piWorkspace';
import { loadSession } from '../../../src/engine/session/loadSession';
import { bridgeFolder } from '../../../src/engine/livePi/registry';

/**
 * Arbor through a running Pi 1.6 (`pi --mode rpc`, the real agent, against the
 * local fake provider): the bridge installed by `arbor pi-bridge install` makes
 * Pi write Arbor's compaction, jump and labels itself, so Pi's memory
 * (`get_messages`, its next prompt's parent) follows.
 */
describe('Pi bridge with the real Pi 1.6 in RPC mode', function () {
  let fake: FakeProviderServer;
  let workspace: PiWorkspace;
  let agent: PiAgentFolder;
  let pi: PiRpc | undefined;
  let file: string;

  const env = () => ({ PI_CODING_AGENT_DIR: agent.dir });
  const run = (args: string[]) => arbor(args, env());
  const entries = () =>
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const byId = (id: string) => entries().find((e) => e.id === id);

  before(async function () {
    if (!fs.existsSync(node22()))
      throw new Error(`Pi 1.6 needs Node 22+: ${node22()} is missing; run bash scripts/vscode-test/install.sh (or set ARBOR_NODE22_BIN)`);
    fake = await startFakeProvider();
    fake.setFallback({ type: 'text', text: 'Done: I looked at it and changed nothing.' });
  });
  after(async () => {
    await fake?.stop();
  });

  beforeEach(() => {
    workspace = new PiWorkspace(fake.openaiBaseURL);
    agent = workspace.agent;
    file = workspace.file;
  });
  afterEach(async () => {
    await workspace.dispose();
    pi = undefined;
  });

  async function startPi(): Promise<PiRpc> {
    pi = await workspace.startPi();
    return pi;
  }

  async function installBridge(): Promise<void> {
    const r = await run(['pi-bridge', 'install', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).action, 'installed');
  }

  async function liveState(): Promise<Record<string, unknown>> {
    const r = await run(['pi-bridge', 'status', file, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const live = JSON.parse(r.stdout).live as Record<string, unknown> | null;
    assert.ok(live, `no live Pi for ${file}: ${r.stdout}`);
    return live;
  }

  const someHistory = (p: PiRpc, n = 4) => history(p, n);

  it('install is idempotent, replaces another version, and uninstall removes only its own file', async () => {
    await installBridge();
    const again = await run(['pi-bridge', 'install', '--json']);
    assert.equal(JSON.parse(again.stdout).action, 'unchanged');
    const installed = path.join(agent.dir, 'extensions', 'arbor-bridge.js');
    fs.writeFileSync(installed, fs.readFileSync(installed, 'utf8').replace(/^\/\/ arbor-pi-bridge \S+?:/, '// arbor-pi-bridge 0.0.1:'));
    const replaced = JSON.parse((await run(['pi-bridge', 'install', '--json'])).stdout);
    assert.equal(replaced.action, 'replaced');
    assert.equal(replaced.previousVersion, '0.0.1');
    assert.equal((await run(['pi-bridge', 'uninstall'])).code, 0);
    assert.equal(fs.existsSync(installed), false);
    fs.writeFileSync(installed, 'export default function () {}\n');
    const refused = await run(['pi-bridge', 'uninstall']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /not Arbor's bridge/);
    assert.equal(fs.existsSync(installed), true);
  });

  it('compacts through Pi: Pi writes the approved summary and its memory and next prompt follow', async () => {
    await installBridge();
    const p = await startPi();
    await someHistory(p);
    const state = await liveState();
    assert.equal(state.idle, true);
    const before = entries().length;
    const r = await run(['compact', '--allow-larger', file, '--estimator', 'chars', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.via, 'pi');
    const compaction = byId(out.entry.id)!;
    assert.equal(compaction.type, 'compaction');
    assert.equal(compaction.summary, out.entry.summary);
    assert.equal(compaction.parentId, state.leafId);
    assert.equal(entries().length, before + 1);
    // Pi's memory: the context now starts with the compaction summary.
    const messages = (await p.messages()).filter((m) => m.role !== 'system');
    assert.equal(messages[0].role, 'compactionSummary');
    assert.equal(messages[0].summary, out.entry.summary);
    assert.ok(
      !JSON.stringify(messages.filter((m) => m.role === 'user')).includes('Request number 1:'),
      "the summarized request is out of Pi's context",
    );
    // Pi's next prompt continues from the compaction.
    await p.prompt('And now the next thing.');
    const next = entries()
      .slice(before + 1)
      .find((e) => e.type === 'message');
    assert.ok(next);
    assert.equal(next.parentId, out.entry.id);
    // Tree view of the file agrees.
    const index = await loadSession(file);
    assert.ok(
      index
        .pathTo(index.leafIndex)
        .map((i) => index.record(i).id)
        .includes(out.entry.id),
    );
  });

  it("--provider pi: Pi's own model and credentials write the summary inside Pi; Pi writes it and holds it; no key leaves Pi", async () => {
    await installBridge();
    const p = await startPi();
    await someHistory(p);
    const state = await liveState();
    const before = entries().length;
    const asked = fake.requests.length;
    const written = '## Goal\nWritten by the fake model inside Pi for Arbor\n\n## Next Steps\n1. Continue';
    fake.script({ type: 'text', text: written, usage: { input: 900, output: 30 } });
    const r = await run([
      'compact',
      file,
      '--provider',
      'pi',
      '--allow-larger',
      '--estimator',
      'chars',
      '--instructions',
      'keep the numbers',
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.via, 'pi');
    assert.equal(out.provider, 'pi');
    assert.equal(out.model, 'fake/fake-model');
    // One model call, made by Pi (its compaction prompt, its key from models.json, Arbor's instructions).
    const calls = fake.requests.slice(asked);
    assert.equal(calls.length, 1);
    assert.equal(calls[0].headers.authorization, 'Bearer fake-key-for-tests');
    assert.match(calls[0].raw, /keep the numbers/);
    // Pi's text, with Pi's file blocks, is the entry Pi wrote; its usage is the model's.
    const compaction = byId(out.entry.id)!;
    assert.equal(compaction.type, 'compaction');
    assert.ok(String(compaction.summary).startsWith(written), String(compaction.summary));
    assert.equal(compaction.parentId, state.leafId);
    assert.equal((compaction.usage as { input: number }).input, 900);
    assert.equal(entries().length, before + 1);
    const messages = (await p.messages()).filter((m) => m.role !== 'system');
    assert.equal(messages[0].role, 'compactionSummary');
    assert.equal(messages[0].summary, compaction.summary);
    // The key stays inside Pi: not in Arbor's output, nor in the session file.
    for (const text of [r.stdout, r.stderr, fs.readFileSync(file, 'utf8')]) assert.ok(!text.includes('fake-key-for-tests'));
  });

  it("navigate --summarize --provider pi: Pi's own branch summarization writes the summary; Pi writes the jump with it", async () => {
    await installBridge();
    const p = await startPi();
    await someHistory(p);
    const state = await liveState();
    const firstUser = entries().find((e) => e.type === 'message' && (e.message as { role: string }).role === 'user')!;
    const asked = fake.requests.length;
    const text = 'Branch left: the four requests were answered; nothing is open.';
    fake.script({ type: 'text', text, usage: { input: 700, output: 20 } });
    const r = await run([
      'navigate',
      file,
      '--to',
      String(firstUser.id),
      '--summarize',
      '--provider',
      'pi',
      '--instructions',
      'name the requests',
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.via, 'pi');
    const calls = fake.requests.slice(asked);
    assert.equal(calls.length, 1, 'one model call, made by Pi');
    assert.equal(calls[0].headers.authorization, 'Bearer fake-key-for-tests');
    assert.match(calls[0].raw, /name the requests/);
    const summary = byId(out.summaryEntry.id)!;
    assert.equal(summary.type, 'branch_summary');
    assert.equal(summary.fromId, state.leafId);
    assert.ok(String(summary.summary).includes(text), String(summary.summary));
    assert.deepEqual(Object.keys(summary.details as object).sort(), ['modifiedFiles', 'readFiles']);
    for (const t of [r.stdout, r.stderr, fs.readFileSync(file, 'utf8')]) assert.ok(!t.includes('fake-key-for-tests'));
  });

  it("--provider pi: a provider error or an answer that echoes Pi's key reaches Arbor without it", async () => {
    await installBridge();
    const p = await startPi();
    await someHistory(p);
    const before = fs.readFileSync(file, 'utf8');
    // Pi retries a failing summary call: every attempt fails the same way.
    fake.script(...Array.from({ length: 6 }, () => ({ type: 'status' as const, status: 401, message: 'bad key', echoCredentials: true })));
    const failed = await run(['compact', file, '--provider', 'pi', '--allow-larger', '--json']);
    assert.notEqual(failed.code, 0);
    assert.match(failed.stderr, /Pi's model fake\/fake-model could not write the summary/);
    assert.equal(fs.readFileSync(file, 'utf8'), before, 'nothing written');
    fake.reset();
    fake.setFallback({ type: 'text', text: 'Done: I looked at it and changed nothing.' });
    fake.script({ type: 'echoKey', text: '## Goal\n- Echoing the key' });
    const echoed = await run(['compact', file, '--provider', 'pi', '--allow-larger', '--json']);
    assert.equal(echoed.code, 0, echoed.stderr);
    for (const t of [failed.stdout, failed.stderr, echoed.stdout, echoed.stderr, fs.readFileSync(file, 'utf8')])
      assert.ok(!t.includes('fake-key-for-tests'), t.slice(0, 500));
  });

  it('--provider pi without a running Pi is a clear error and writes nothing', async () => {
    await installBridge();
    const p = await startPi();
    await someHistory(p, 2);
    await p.stop();
    pi = undefined;
    const before = fs.readFileSync(file, 'utf8');
    const r = await run(['compact', file, '--provider', 'pi', '--json']);
    assert.equal(r.code, 2, r.stdout);
    assert.match(r.stderr, /no running Pi holds .* through Arbor's bridge/);
    const n = await run(['navigate', file, '--to', String(entries()[1].id), '--summarize', '--provider', 'pi']);
    assert.equal(n.code, 2);
    assert.match(n.stderr, /no running Pi holds .* through Arbor's bridge/);
    assert.equal(fs.readFileSync(file, 'utf8'), before);
  });

  it('navigates through Pi with and without a summary, and labels and pins', async () => {
    await installBridge();
    const p = await startPi();
    await someHistory(p, 3);
    const users = entries().filter((e) => e.type === 'message' && (e.message as { role: string }).role === 'user');
    const assistants = entries().filter((e) => e.type === 'message' && (e.message as { role: string }).role === 'assistant');
    // Jump with a summary to the second user message: the new leaf is its parent.
    const target = users[1];
    const r = await run(['navigate', file, '--to', String(target.id), '--summarize', '--label', 'side quest', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.via, 'pi');
    assert.ok(out.summaryEntry);
    const summary = byId(out.summaryEntry.id)!;
    assert.equal(summary.type, 'branch_summary');
    assert.equal(summary.parentId, target.parentId);
    assert.equal((await liveState()).leafId !== null, true);
    const messages = await p.messages();
    assert.equal(messages.at(-1)!.role, 'branchSummary');
    assert.equal(messages.at(-1)!.summary, summary.summary);
    // The label Pi wrote is on the summary entry.
    assert.ok(entries().some((e) => e.type === 'label' && e.targetId === out.summaryEntry.id && e.label === 'side quest'));
    // Jump without a summary to the first assistant message: as Pi's own /tree, nothing is written; Pi holds the leaf in memory.
    const sizeBefore = fs.statSync(file).size;
    const r2 = await run(['navigate', file, '--to', String(assistants[0].id), '--json']);
    assert.equal(r2.code, 0, r2.stderr);
    const out2 = JSON.parse(r2.stdout);
    assert.equal(out2.via, 'pi');
    assert.deepEqual(out2.entries, []);
    assert.equal(fs.statSync(file).size, sizeBefore, 'nothing written');
    assert.equal((await liveState()).leafId, assistants[0].id, "Pi's leaf, from its memory");
    const status = await run(['pi-bridge', 'status', file]);
    assert.match(status.stdout, new RegExp(`leaf ${String(assistants[0].id)}`));
    const count = entries().length;
    await p.prompt('Continue from here.');
    const next = entries()
      .slice(count)
      .find((e) => e.type === 'message')!;
    assert.equal(next.parentId, assistants[0].id);
    const context = await p.messages();
    assert.equal(context.filter((m) => m.role === 'user').length, 2, 'the context is the first exchange plus the new prompt');
    // Label and pin through Pi: Pi writes Pi's label entry.
    const pin = await run(['label', file, '--entry', String(users[0].id), '--label', '📌 rules', '--json']);
    assert.equal(pin.code, 0, pin.stderr);
    assert.equal(JSON.parse(pin.stdout).via, 'pi');
    const labelEntry = byId(JSON.parse(pin.stdout).written.id)!;
    assert.equal(labelEntry.label, '📌 rules');
    const clear = await run(['label', file, '--entry', String(users[0].id), '--clear', '--json']);
    assert.equal(clear.code, 0, clear.stderr);
    assert.equal(byId(JSON.parse(clear.stdout).written.id)!.label, undefined);
    // Pi's next entry follows the label entries (its leaf moved with them).
    const c2 = entries().length;
    await p.prompt('One more.');
    assert.equal(
      entries()
        .slice(c2)
        .find((e) => e.type === 'message')!.parentId,
      JSON.parse(clear.stdout).written.id,
    );
  });

  it('refuses, writing nothing, while a Pi without the bridge runs in the session folder; --force writes to the file', async () => {
    const p = await startPi();
    await someHistory(p, 2);
    const size = fs.statSync(file).size;
    const r = await run(['label', file, '--entry', String(entries()[1].id), '--label', 'x']);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, new RegExp(`Pi pid ${p.pid} \\(without the bridge`));
    assert.match(r.stderr, /arbor pi-bridge install/);
    assert.equal(fs.statSync(file).size, size);
    const c = await run(['compact', file]);
    assert.equal(c.code, 3);
    assert.equal(fs.statSync(file).size, size);
    const forced = await run(['label', file, '--entry', String(entries()[1].id), '--label', 'x', '--force', '--json']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(JSON.parse(forced.stdout).via, 'file');
    assert.equal(JSON.parse(forced.stdout).forced, true);
    assert.deepEqual(JSON.parse(forced.stdout).orphanedBy, [p.pid]);
  });

  it('writes to the file once Pi has quit, and the registry entry is gone', async () => {
    await installBridge();
    const p = await startPi();
    await someHistory(p, 2);
    await liveState();
    await p.stop();
    pi = undefined;
    const left = fs.existsSync(bridgeFolder(agent.dir))
      ? fs.readdirSync(bridgeFolder(agent.dir)).filter((n) => n.endsWith('.json') && n !== 'installed.json')
      : [];
    assert.deepEqual(left, []);
    const r = await run(['label', file, '--entry', String(entries()[1].id), '--label', 'after', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).via, 'file');
  });
});
