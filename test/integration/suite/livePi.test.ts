import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { arborApi, openCopy, rawTree, sessionsDir, waitFor, withSetting, workspaceDir } from './arborHelpers';
import { startFakeProvider, type FakeProviderServer } from '../../support/fakeProvider';
import { makeAgentFolder, node22, PiRpc, type PiAgentFolder } from '../../support/pi/piRpc';
import type { SummaryView } from '../../../src/webview/protocol';

type Result = { kind: string; proposalId: string; view: SummaryView };

/**
 * Compact → Apply on a session the real Pi 1.6 holds (`pi --mode rpc` with
 * Arbor's bridge, against the local fake provider): Pi writes the compaction,
 * its memory and its next prompt follow, and the Sessions view says Pi is live.
 */
describe('Live Pi (the real Pi 1.6 with the bridge)', function () {
  this.timeout(180_000);
  let fake: FakeProviderServer;
  let agent: PiAgentFolder;
  let pi: PiRpc | undefined;
  let file: string;
  const restores: (() => Promise<void>)[] = [];
  const fileEntries = () =>
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  before(async function () {
    if (!fs.existsSync(node22())) throw new Error(`Pi 1.6 needs Node 22+: ${node22()} is missing (scripts/vscode-test/install.sh)`);
    fake = await startFakeProvider();
    fake.setFallback({ type: 'text', text: 'Done: I read it; nothing to change.' });
    agent = makeAgentFolder(fake.openaiBaseURL, { keepRecentTokens: 200 });
    restores.push(await withSetting('piAgentDir', agent.dir));
    file = path.join(sessionsDir(), 'live-pi-session.jsonl');
  });

  after(async () => {
    await pi?.stop();
    for (const r of restores.reverse()) await r();
    fs.rmSync(file, { force: true });
    await vscode.commands.executeCommand('arbor.refresh');
    agent?.remove();
    await fake?.stop();
  });

  it('Install Pi Bridge, then Compact → Apply goes through Pi; the row shows Pi live and Pi continues from the compaction', async () => {
    const { services } = (await arborApi()).internals;
    await vscode.commands.executeCommand('arbor.installPiBridge');
    assert.ok(fs.existsSync(path.join(agent.dir, 'extensions', 'arbor-bridge.js')), "the bridge is installed in Pi's extensions folder");

    fs.mkdirSync(path.dirname(file), { recursive: true });
    pi = new PiRpc({ agentDir: agent.dir, cwd: workspaceDir(), sessionFile: file });
    // Pi does not trust the workspace in RPC mode (it ignores .pi/settings.json): its own settings (keep 200) decide, through the bridge.
    for (let i = 1; i <= 6; i++) await pi.prompt(`Request ${i}: explain src/util${i}.js to me. ${'More context here. '.repeat(100)}`);

    await vscode.commands.executeCommand('arbor.refresh');
    await waitFor(() => services.store.get(file), 'the session in the list');
    await services.livePi.refresh();
    const state = (await waitFor(() => services.livePi.stateOf(file), 'the live Pi state of the session'))!;
    assert.strictEqual(state.pid, pi.pid);
    const model = services.store.get(file)!;
    await services.store.ensureLoaded(model);
    const row = services.tree.getTreeItem({ type: 'session', file });
    assert.match(String(row.description), /● Pi idle/);

    const before = fileEntries().length;
    const result = await vscode.commands.executeCommand<Result>('arbor.compact', { file }, { instructions: '' });
    assert.strictEqual(result.kind, 'proposed');
    const written = await vscode.commands.executeCommand<SummaryView>('arbor.applyProposal', result.proposalId);
    assert.strictEqual(written.mode, 'entry');
    const lines = fileEntries();
    assert.strictEqual(lines.length, before + 1, 'one entry appended, by Pi');
    const compaction = lines[lines.length - 1];
    assert.strictEqual(compaction.type, 'compaction');
    assert.strictEqual(compaction.parentId, state.leafId);
    assert.strictEqual(compaction.summary, written.markdown);

    const messages = (await pi.messages()).filter((m) => m.role !== 'system');
    assert.strictEqual(messages[0].role, 'compactionSummary', "Pi's memory starts from the compaction");
    await pi.prompt('Next request after the compaction.');
    const after = fileEntries();
    const next = after.slice(before + 1).find((e) => e.type === 'message');
    assert.ok(next);
    assert.strictEqual(next.parentId, compaction.id, "Pi's next entry continues from the compaction");
    // The view follows: the new entries are in the index, and the leaf is Pi's.
    await waitFor(() => services.store.get(file)!.index!.leafId === String(after[after.length - 1].id), "the tree following Pi's appends");
  });

  it("Pi's own model (Choose Summarizer Model → Pi) writes the compaction in Pi; the panel names it with Pi's usage; Apply writes it", async () => {
    const { services } = (await arborApi()).internals;
    assert.ok(pi, 'the first test left Pi running');
    for (let i = 7; i <= 9; i++) await pi.prompt(`Request ${i}: explain src/more${i}.js to me. ${'Further context. '.repeat(100)}`);
    await services.livePi.refresh();
    await waitFor(() => services.livePi.stateOf(file)?.idle === true, 'Pi idle');
    const restore = await withSetting('summarizer.provider', 'pi');
    // Everything Arbor logs or shows meanwhile: Pi's credentials must never be in it.
    const said: string[] = [];
    const { onDidLog, onDidNotify } = (await arborApi()).internals;
    const subs = [onDidLog((_level, line) => said.push(line)), onDidNotify((n) => said.push(n.message))];
    try {
      const asked = fake.requests.length;
      const text = "## Goal\n- Explain the utilities\n\n## Next Steps\n1. Written by Pi's model for Arbor's review";
      fake.script({ type: 'text', text, usage: { input: 1500, output: 40 } });
      const result = await vscode.commands.executeCommand<Result>('arbor.compact', { file }, { instructions: 'keep the file names' });
      assert.strictEqual(result.kind, 'proposed');
      const calls = fake.requests.slice(asked);
      assert.strictEqual(calls.length, 1, 'one model call, made by Pi');
      assert.strictEqual(calls[0].headers.authorization, 'Bearer fake-key-for-tests');
      assert.match(calls[0].raw, /keep the file names/);
      const view = services.panel.currentView!;
      assert.strictEqual(view.author, 'pi/fake/fake-model');
      assert.ok(view.markdown.startsWith(text), view.markdown);
      assert.ok(view.usage, "Pi's model call's usage is shown");
      assert.ok(view.retention, 'the retention check runs on the text Pi wrote');
      const before = fileEntries().length;
      const written = await vscode.commands.executeCommand<SummaryView>('arbor.applyProposal', result.proposalId);
      assert.strictEqual(written.mode, 'entry');
      const lines = fileEntries();
      assert.strictEqual(lines.length, before + 1, 'one entry, written by Pi');
      const compaction = lines[lines.length - 1];
      assert.strictEqual(compaction.type, 'compaction');
      assert.ok(String(compaction.summary).startsWith(text));
      assert.strictEqual((compaction.usage as { input: number }).input, 1500);
      const messages = (await pi.messages()).filter((m) => m.role !== 'system');
      assert.strictEqual(messages[0].role, 'compactionSummary');
      assert.strictEqual(messages[0].summary, compaction.summary, "Pi's memory holds the approved text");
      assert.ok(!fs.readFileSync(file, 'utf8').includes('fake-key-for-tests'), 'no key in the session');
      // Pi answers once after it (the next test reads Pi's own context figure, which Pi knows only after an answer).
      await pi.prompt('Next request after the compaction Pi wrote.');

      // Jump Here with a summary: Pi's own branch summarization writes it, and Pi writes the jump.
      await pi.prompt('One more request on this line.');
      await pi.prompt('And the last one here.');
      await services.livePi.refresh();
      await waitFor(() => services.livePi.stateOf(file)?.idle === true, 'Pi idle');
      const target = fileEntries()
        .filter((e) => e.type === 'message' && (e.message as { role: string }).role === 'user')
        .at(-2)!;
      const branchText = 'Left behind: the last request on this line, answered.';
      fake.script({ type: 'text', text: branchText });
      const jumpAsked = fake.requests.length;
      const oldLeaf = services.livePi.stateOf(file)!.leafId;
      // Issue 34 item 2: reviewed first, as a compaction is; nothing written until Apply, which goes through Pi.
      const sizeBefore = fs.statSync(file).size;
      const proposed = await vscode.commands.executeCommand<Result>(
        'arbor.jumpHere',
        { file, entryId: String(target.id) },
        { summarize: 'summarize', review: true },
      );
      assert.strictEqual(proposed?.kind, 'proposed');
      assert.strictEqual(fake.requests.length - jumpAsked, 1, "one model call, by Pi's branch summarization");
      assert.strictEqual(fs.statSync(file).size, sizeBefore, 'nothing written while the summary is reviewed');
      assert.strictEqual(services.panel.currentView?.kind, 'branch_summary');
      assert.ok(String(services.panel.currentView?.markdown).includes(branchText));
      const applied = await vscode.commands.executeCommand<{ mode?: string }>('arbor.applyProposal', proposed.proposalId);
      assert.strictEqual(applied?.mode, 'entry');
      assert.strictEqual(fake.requests.length - jumpAsked, 1, 'Apply writes the reviewed text: no second model call');
      const branch = fileEntries()
        .filter((e) => e.type === 'branch_summary')
        .pop()!;
      assert.strictEqual(branch.fromId, oldLeaf);
      assert.ok(String(branch.summary).includes(branchText), String(branch.summary));
      await pi.prompt('After the jump.');
      assert.ok(said.length > 0, 'Arbor logged the operations');
      assert.ok(!said.some((l) => l.includes('fake-key-for-tests')), 'no key in any Arbor log line or message');
    } finally {
      for (const sub of subs) sub.dispose();
      await restore();
    }
  });

  it("Jump Here without a summary through Pi writes nothing; the tree marks Pi's leaf from its memory; the status bar shows Pi's own figure", async () => {
    const { services, statusBar } = (await arborApi()).internals;
    assert.ok(pi, 'the previous test left Pi running');
    const entries = () => fileEntries();
    // Pi answered after the compaction: its own context figure is known.
    services.setActive(file);
    await services.livePi.refresh();
    try {
      await waitFor(
        () => /reported by the running Pi/.test(statusBar.current.tooltip.replace(/&nbsp;/g, ' ')),
        "the status bar showing Pi's own figure",
        30_000,
      );
    } catch (err) {
      throw new Error(
        `${(err as Error).message}: tooltip ${JSON.stringify(statusBar.current.tooltip)}, Pi state ` +
          `${JSON.stringify(services.livePi.stateOf(file))}, active ${services.activeFile}`,
      );
    }
    const target = entries()
      .filter((e) => e.type === 'message' && (e.message as { role: string }).role === 'assistant')
      .at(-2)!;
    const size = fs.statSync(file).size;
    const jump = () =>
      vscode.commands.executeCommand<{ kind: string; written?: string[]; newLeafId?: string | null }>(
        'arbor.jumpHere',
        { file, entryId: String(target.id) },
        { summarize: 'none' },
      );
    const piLeafBefore = services.livePi.stateOf(file)!.leafId;
    let r = await jump();
    assert.strictEqual(r?.kind, 'jumped');
    assert.deepStrictEqual(r.written, []);
    assert.strictEqual(fs.statSync(file).size, size, 'nothing written: Pi holds the new leaf in memory');
    await waitFor(() => services.livePi.stateOf(file)?.leafId === target.id, "Pi's leaf at the target");
    // Issue 34 item 2: Undo Jump through Pi moves Pi's leaf back (Pi's own navigation: nothing written); then the jump again.
    const undone = await vscode.commands.executeCommand<{ kind: string; written?: string[] }>('arbor.undoJump', { file });
    assert.strictEqual(undone?.kind, 'undone');
    assert.deepStrictEqual(undone.written, []);
    await waitFor(() => services.livePi.stateOf(file)?.leafId === piLeafBefore, "Pi's leaf back where the jump left from");
    assert.strictEqual(fs.statSync(file).size, size, 'the undo through Pi wrote nothing either');
    r = await jump();
    assert.strictEqual(r?.kind, 'jumped');
    await waitFor(() => services.livePi.stateOf(file)?.leafId === target.id, "Pi's leaf at the target again");
    await waitFor(() => services.tree.leafNode(file)?.entryId === target.id, "the tree marking Pi's leaf, not the file's last entry");
    // Pi's next prompt continues from there, and the tree follows it.
    await pi!.prompt('Back here: take another approach.');
    const next = entries()
      .slice(-2)
      .find((e) => e.type === 'message')!;
    assert.strictEqual(next.parentId, target.id);
    await waitFor(() => services.tree.leafNode(file)?.entryId === String(entries().at(-1)!.id), "the tree at Pi's new entry");
  });

  it('when another writer (a Pi without the bridge) appends under the leaf Arbor wrote after, says so at once and offers the fix', async () => {
    const { services, onDidNotify } = (await arborApi()).internals;
    const file2 = await openCopy('01-plain', 'diverge');
    const oldLeaf = rawTree(file2).leafId;
    const firstUser = rawTree(file2).ids[1];
    const warnings: { message: string; items: string[] }[] = [];
    let restoreLive: (() => Promise<void>) | undefined;
    const sub = onDidNotify((n) => n.kind === 'warning' && warnings.push({ message: n.message, items: n.items }));
    try {
      assert.strictEqual(
        await vscode.commands.executeCommand('arbor.setLabel', { file: file2, entryId: firstUser }, 'checkpoint'),
        'checkpoint',
      );
      const labelEntry = rawTree(file2).leafId;
      assert.notStrictEqual(labelEntry, oldLeaf);
      // What a Pi that never saw Arbor's entry appends next: a message under its own (old) leaf.
      const piEntry = {
        type: 'message',
        id: 'd1ve7ge0',
        parentId: oldLeaf,
        timestamp: new Date().toISOString(),
        message: { role: 'user', content: 'next prompt', timestamp: Date.now() },
      };
      fs.appendFileSync(file2, `${JSON.stringify(piEntry)}\n`);
      const warning = await waitFor(
        () => warnings.find((w) => /kept going from its own leaf/.test(w.message)),
        'the divergence warning',
        30_000,
      );
      assert.match(warning!.message, new RegExp(`entry ${labelEntry}`));
      assert.deepStrictEqual(warning!.items, ['Install Pi Bridge', 'Show in Tree']);
      // Pi continuing from Arbor's entry is no divergence. (Arbor asks before appending right after another writer: let that pass.)
      warnings.length = 0;
      restoreLive = await withSetting('liveWriteSeconds', 1);
      await waitFor(() => !services.store.isLive(services.store.get(file2)!), 'the session no longer flagged as just written', 30_000);
      assert.strictEqual(
        await vscode.commands.executeCommand('arbor.setLabel', { file: file2, entryId: firstUser }, 'checkpoint 2'),
        'checkpoint 2',
      );
      const own = rawTree(file2).leafId;
      fs.appendFileSync(file2, `${JSON.stringify({ ...piEntry, id: 'c0n71nue', parentId: own })}\n`);
      await waitFor(() => services.store.get(file2)?.index?.leafId === 'c0n71nue', 'the appended entry read');
      assert.deepStrictEqual(
        warnings.filter((w) => /own leaf/.test(w.message)),
        [],
      );
    } finally {
      sub.dispose();
      await restoreLive?.();
    }
  });
});
