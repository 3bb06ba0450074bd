// Compact checks first (issue 8 item 9); the status bar and the summary panel follow the session acted on (item 10).
import * as assert from 'assert';
import * as fs from 'fs';
import * as vscode from 'vscode';
import type { SummaryView } from '../../../src/webview/protocol';
import type { Notification } from '../../../src/vscode/platform/notify';
import { arborApi, openCopy, rawTree, readEntries, waitFor } from './arborHelpers';

type Result = { kind: string; [k: string]: unknown };

describe('Compact checks first; status bar and panel follow the session acted on', function () {
  this.timeout(60_000);

  afterEach(async () => {
    const { services } = (await arborApi()).internals;
    for (const id of services.panel.pendingProposals()) services.panel.discard(id);
    services.panel.close();
  });

  it('Compact with nothing to compact says so at once, in one sentence, without asking for instructions', async () => {
    const file = await openCopy('04-split-turn', 'nothing-first');
    const before = fs.readFileSync(file, 'utf8');
    const notes: Notification[] = [];
    const sub = (await arborApi()).internals.onDidNotify((n) => notes.push(n));
    try {
      // No options: the command would ask for instructions if it did not check first (and never resolve here).
      const pending = vscode.commands.executeCommand<Result>('arbor.compact', { file });
      const result = await Promise.race([pending, new Promise<'asked'>((r) => setTimeout(() => r('asked'), 8000))]);
      if (result === 'asked') {
        await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
        assert.fail('Compact asked for instructions on a session with nothing to compact');
      }
      assert.strictEqual(result.kind, 'nothing');
      assert.strictEqual(result.reason, 'the session already ends in a compaction');
      const said = notes.filter((n) => /nothing to compact/i.test(n.message));
      assert.strictEqual(said.length, 1, 'one message');
      assert.match(said[0].message, /^Arbor: nothing to compact in ".+": the session already ends in a compaction\.$/);
      assert.doesNotMatch(said[0].message, /nothing to summarize/, 'no doubled prefix');
      assert.strictEqual(fs.readFileSync(file, 'utf8'), before);
    } finally {
      sub.dispose();
    }
  });

  it('the status bar shows the session being compacted (while its proposal is reviewed), not the one selected before', async () => {
    const { services, statusBar } = (await arborApi()).internals;
    const a = await openCopy('03-tree', 'follow-a');
    const b = await openCopy('01-plain', 'follow-b');
    services.setActive(a);
    await statusBar.update();
    assert.strictEqual(statusBar.current.use?.file, a);
    const r = await vscode.commands.executeCommand<Result>('arbor.compact', { file: b }, { instructions: '' });
    assert.strictEqual(r.kind, 'proposed');
    assert.strictEqual(services.activeFile, b);
    await statusBar.update();
    assert.strictEqual(statusBar.current.use?.file, b, 'the status bar follows the session being compacted');
    assert.strictEqual(statusBar.current.use?.leafId, rawTree(b).leafId);
  });

  it("after a jump in another session the panel no longer shows the first session's compaction", async () => {
    const { services } = (await arborApi()).internals;
    const x = await openCopy('02-compaction', 'follow-panel-x');
    const y = await openCopy('03-tree', 'follow-panel-y');
    const shown = await vscode.commands.executeCommand<SummaryView>('arbor.showSummary', { file: x });
    assert.strictEqual(shown.file, x);
    const r = await vscode.commands.executeCommand<Result>('arbor.jumpHere', { file: y, entryId: 'a9dae875' }, { summarize: 'none' });
    assert.strictEqual(r.kind, 'jumped');
    await waitFor(() => !services.panel.isOpen || services.panel.currentView?.file === y, 'the panel to follow the session jumped in');
    if (services.panel.isOpen) {
      const view = services.panel.currentView!;
      assert.ok(rawTree(y).activePath.includes(view.entryId!), 'a summary on the active path of the session jumped in');
    }
  });

  it('after a jump off the branch of the compaction shown, the panel leaves that compaction', async () => {
    const { services } = (await arborApi()).internals;
    const x = await openCopy('02-compaction', 'follow-panel-same');
    const shown = await vscode.commands.executeCommand<SummaryView>('arbor.showSummary', { file: x });
    const compactionId = shown.entryId!;
    const path = rawTree(x).activePath;
    const at = path.indexOf(compactionId);
    assert.ok(at > 1, 'the compaction is on the active path');
    // An entry before the compaction: jumping there leaves the compaction's branch.
    const earlier = readEntries(x).find(
      (e) => e.type === 'message' && path.indexOf(String(e.id)) > 0 && path.indexOf(String(e.id)) < at - 1,
    )!;
    const r = await vscode.commands.executeCommand<Result>('arbor.jumpHere', { file: x, entryId: earlier.id }, { summarize: 'none' });
    assert.strictEqual(r.kind, 'jumped');
    await waitFor(
      () => !services.panel.isOpen || services.panel.currentView?.entryId !== compactionId,
      'the panel to leave the compaction that is off the path',
    );
    if (services.panel.isOpen) assert.ok(rawTree(x).activePath.includes(services.panel.currentView!.entryId!));
  });
});
