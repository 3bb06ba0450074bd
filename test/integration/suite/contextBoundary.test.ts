// Issue 8 item 6: entries summarized by the active compaction are marked; a row says where the model's context starts.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { loadSession } from '../../../src/engine/session/loadSession';
import { viewFromEntry } from '../../../src/vscode/panels/summaryView';
import { arborApi, children, item, rawTree, readEntries, sessionNode, withTreeFilter, workspaceSession } from './arborHelpers';

describe('Context boundary in the Sessions view', () => {
  it("marks the path entries before the active compaction's first kept entry as summarized, and the first kept one as where the context starts", () =>
    withTreeFilter('all', async () => {
      const file = workspaceSession('02-compaction');
      const path = rawTree(file).activePath;
      const compaction = readEntries(file)
        .filter((e) => e.type === 'compaction')
        .pop()!;
      const firstKept = String(compaction.firstKeptEntryId);
      const cut = path.indexOf(firstKept);
      assert.ok(cut > 0);
      await children(await sessionNode(file));
      const tree = (await arborApi()).internals.services.tree;
      for (let k = 0; k < path.length; k++) {
        const ti = await item(tree.nodeForEntry(file, path[k])!);
        const summarized = /(^| · )summarized( · |$)/.test(String(ti.description));
        assert.strictEqual(summarized, k < cut, `${path[k]} (${k}) ${String(ti.description)}`);
        assert.strictEqual(/:summarized/.test(String(ti.contextValue)), k < cut);
        assert.strictEqual(ti.resourceUri?.scheme === 'arbor-summarized', k < cut, 'the label is dimmed by a decoration');
        if (k < cut) assert.deepStrictEqual((ti.iconPath as vscode.ThemeIcon).color, new vscode.ThemeColor('disabledForeground'));
      }
      assert.match(String((await item(tree.nodeForEntry(file, firstKept)!)).description), /▶ context starts here/);
      // Entries replaced, counted one way (issue 34 item 4): the row says what the summary panel's "Replaces N entries" says.
      const index = await loadSession(file);
      const panel = await viewFromEntry(index, String(compaction.id), 'x', 'chars');
      assert.ok(panel.replaced && panel.replaced.count > 0);
      assert.match(
        String((await item(tree.nodeForEntry(file, String(compaction.id))!)).description),
        new RegExp(`active compaction: replaces ${panel.replaced.count} entries`),
      );
      // A session without a compaction has no boundary.
      const plain = workspaceSession('01-plain');
      for (const n of await children(await sessionNode(plain)))
        assert.doesNotMatch(String((await item(n)).description), /summarized|context starts/);
    }));
});
