// Issue 8 item 4: Pi-like filters of the Sessions view, bookkeeping entries shown on the rows they concern,
// Reveal Current Leaf on the row the user sees as current; a click on a row opens the entry (arbor.showEntry).
import * as assert from 'assert';
import * as fs from 'fs';
import * as vscode from 'vscode';
import type { ArborNode } from '../../../src/vscode/tree/nodes';
import {
  arborApi,
  children,
  ids,
  item,
  openCopy,
  rawTree,
  readEntries,
  sessionNode,
  waitFor,
  withTreeFilter,
  workspaceSession,
  labelText,
} from './arborHelpers';

const BOOKKEEPING = new Set(['label', 'model_change', 'thinking_level_change', 'session_info', 'custom']);

/** Every node under `node`, depth first (branches expanded). */
async function walk(node: ArborNode): Promise<ArborNode[]> {
  const out: ArborNode[] = [];
  for (const n of await children(node)) {
    out.push(n);
    if (n.type === 'entry' || n.type === 'branch') out.push(...(await walk(n)));
  }
  return out;
}

function typesById(file: string): Map<string, { type: string; role?: string }> {
  return new Map(
    readEntries(file).map((e) => [String(e.id), { type: String(e.type), role: (e.message as { role?: string } | undefined)?.role }]),
  );
}

describe('Sessions view filters', () => {
  afterEach(() => vscode.commands.executeCommand('arbor.filter.default'));

  it('Default: no bookkeeping rows; every other entry is a row exactly once; a hidden branch point shows its branches in its line', async () => {
    const file = workspaceSession('03-tree');
    const types = typesById(file);
    const session = await sessionNode(file);
    const all = await walk(session);
    const rows = all.filter((n) => n.type === 'entry').map((n) => (n as { entryId: string }).entryId);
    assert.ok(
      rows.every((id) => !BOOKKEEPING.has(types.get(id)!.type)),
      'no label/model/thinking/custom rows',
    );
    const expected = [...types].filter(([, t]) => !BOOKKEEPING.has(t.type)).map(([id]) => id);
    assert.deepStrictEqual([...rows].sort(), [...expected].sort(), 'every conversation entry once');
    // 85a64b5b (thinking level change) is where the 6bc1493a branch starts: the branch is a row of the main line.
    const top = ids(await children(session));
    assert.ok(top.includes('branch:6bc1493a'), top.join());
    assert.ok(!top.includes('85a64b5b'));
    const tree = (await arborApi()).internals.services.tree;
    const branch = (await children(session)).find((n) => n.type === 'branch')!;
    assert.deepStrictEqual(tree.getParent(branch), session, 'its parent is the line owner');
    // The label entry 05663de8 is not a row; its text is on the entry it names.
    const labelled = await item(tree.nodeForEntry(file, '88f696d0')!);
    assert.match(labelText(labelled), /^#resume-original · /);
  });

  it('Default: model and thinking changes are a description of the next message', async () => {
    const file = workspaceSession('05-misc');
    await children(await sessionNode(file));
    const tree = (await arborApi()).internals.services.tree;
    // 92662421 follows "thinking high" (6077264c) then "model mock-claude" (295dda93).
    const d = String((await item(tree.nodeForEntry(file, '92662421')!)).description);
    assert.match(d, /model [^·]*mock-claude/);
    assert.match(d, /thinking high/);
    // 6ae3eb18 follows thinking off→high→low and model mock-coder: the nearest of each.
    const d2 = String((await item(tree.nodeForEntry(file, '6ae3eb18')!)).description);
    assert.match(d2, /thinking low/);
    assert.doesNotMatch(d2, /thinking high/);
    // With All Entries the change entries are rows again, and the message no longer repeats them.
    await withTreeFilter('all', async () => {
      const again = String((await item(tree.nodeForEntry(file, '92662421')!)).description);
      assert.doesNotMatch(again, /model|thinking/);
      assert.ok(ids(await children(await sessionNode(file))).includes('295dda93'));
    });
  });

  it("No Tools, User Only, Labeled Only and All Entries show the entries Pi's /tree filters show", async () => {
    const file = workspaceSession('03-tree');
    const types = typesById(file);
    const session = await sessionNode(file);
    const entryRows = async () => (await walk(session)).filter((n) => n.type === 'entry').map((n) => (n as { entryId: string }).entryId);
    await vscode.commands.executeCommand('arbor.filter.noTools');
    let rows = await entryRows();
    assert.ok(rows.length > 0 && rows.every((id) => types.get(id)!.role !== 'toolResult' && !BOOKKEEPING.has(types.get(id)!.type)));
    await vscode.commands.executeCommand('arbor.filter.userOnly');
    rows = await entryRows();
    const users = [...types].filter(([, t]) => t.role === 'user').map(([id]) => id);
    // Entries where side branches start stay reachable: they show as their branches, not as rows.
    assert.deepStrictEqual([...rows].sort(), [...users].sort());
    const leafRow = (await children(session)).filter((n) => n.type === 'entry').pop()!;
    assert.match(String((await item(leafRow)).description), /● current/, 'the last user message on the path is current');
    await vscode.commands.executeCommand('arbor.filter.labeledOnly');
    rows = await entryRows();
    assert.deepStrictEqual([...rows].sort(), ['88f696d0', 'b0d9510b']);
    await vscode.commands.executeCommand('arbor.filter.all');
    rows = await entryRows();
    assert.strictEqual(rows.length, types.size);
    const { services } = (await arborApi()).internals;
    assert.strictEqual(services.tree.filter, 'all');
    assert.strictEqual(services.treeView.description, 'Filter: All Entries');
    await vscode.commands.executeCommand('arbor.filter.default');
    assert.strictEqual(services.treeView.description, undefined);
  });

  it("Reveal Current Leaf lands on the row shown as current when the leaf is a label; a jump's leaf move is a marker on its target", async () => {
    const file = await openCopy('03-tree', 'filters-leaf');
    const { services } = (await arborApi()).internals;
    await children(await sessionNode(file));
    // Labelling an entry makes the label entry the leaf.
    assert.strictEqual(await vscode.commands.executeCommand('arbor.setLabel', { file, entryId: '3eb4b5d1' }, 'step-2'), 'step-2');
    assert.strictEqual(readEntries(file).pop()!.type, 'label');
    await waitFor(() => services.store.get(file)?.index?.leafId === rawTree(file).leafId, 'the label read');
    await vscode.commands.executeCommand('arbor.sessions.focus');
    await vscode.commands.executeCommand('arbor.revealLeaf', { file });
    await waitFor(
      () => (services.treeView.selection[0] as { entryId?: string } | undefined)?.entryId === '2cbb1a68',
      'the last message selected',
    );
    assert.match(String((await item(services.treeView.selection[0])).description), /● current/);
    // Jump without a summary: the leaf is Arbor's leaf-move entry; its target is the current row, marked.
    // a9dae875: an assistant message at the end of a side branch (the leaf move hangs from it).
    const r = await vscode.commands.executeCommand<{ kind: string }>(
      'arbor.jumpHere',
      { file, entryId: 'a9dae875' },
      { summarize: 'none' },
    );
    assert.strictEqual(r.kind, 'jumped');
    assert.strictEqual(readEntries(file).pop()!.customType, 'arbor/leaf-move');
    await waitFor(
      async () => /↩ jumped here/.test(String((await item(services.tree.nodeForEntry(file, 'a9dae875')!)).description)),
      'the jump marker',
    );
    const target = await item(services.tree.nodeForEntry(file, 'a9dae875')!);
    assert.match(String(target.description), /● current/);
    assert.match(String(target.contextValue), /:leaf/);
    await vscode.commands.executeCommand('arbor.revealLeaf', { file });
    await waitFor(
      () => (services.treeView.selection[0] as { entryId?: string } | undefined)?.entryId === 'a9dae875',
      'the jump target selected',
    );
  });

  it('Labeled Only: the leaf hidden, its nearest labeled ancestor on the path says the leaf is below and how much is hidden; follows appends', async () => {
    // Issue 21 item 7: after a jump with a summary the new (unlabeled) branch summary is the leaf; the marker landed on the
    // older labeled branch summary as "● current", as if that were the leaf.
    const file = await openCopy('03-tree', 'filters-labeled');
    const { services } = (await arborApi()).internals;
    await children(await sessionNode(file));
    await withTreeFilter('labeledOnly', async () => {
      // 88f696d0 (#resume-original) is the last labeled entry on the path; 8 replies and requests follow it up to the leaf.
      let row = await item(services.tree.leafNode(file)!);
      assert.strictEqual(services.tree.leafNode(file)!.entryId, '88f696d0');
      assert.match(String(row.description), /● current leaf below: 8 entries hidden by the filter/);
      assert.doesNotMatch(String(row.contextValue), /:leaf/, 'not the leaf for the menus: Jump Here to it is offered');
      // What Pi writes on a jump to 1740576b with a summary: the branch summary under the target's parent, the new leaf.
      const appended = (entry: Record<string, unknown>) =>
        fs.appendFileSync(file, `${JSON.stringify({ timestamp: new Date().toISOString(), ...entry })}\n`);
      appended({ type: 'branch_summary', id: 'b5a11001', parentId: 'f5413bc4', fromId: '2cbb1a68', summary: 'The branch left behind.' });
      await waitFor(() => services.tree.leafNode(file)?.entryId === 'b0d9510b', 'the marker on the labeled branch summary above the leaf');
      row = await item(services.tree.leafNode(file)!);
      assert.match(String(row.description), /● current leaf below: 1 entry hidden by the filter/);
      // The description is cut at a narrow width: the tooltip says it too.
      const tip = services.tree.resolveTreeItem(row, services.tree.leafNode(file)!).tooltip as vscode.MarkdownString;
      assert.match(tip.value.replace(/&nbsp;/g, ' '), /The current leaf is below this entry: the filter hides the 1 entry after it/);
      assert.doesNotMatch(String(row.description), /● current ·|● current$/, 'never "current" alone on a row that is not the leaf');
      // Pi continues from the new leaf: the count follows.
      appended({
        type: 'message',
        id: 'b5a11002',
        parentId: 'b5a11001',
        message: { role: 'user', content: [{ type: 'text', text: 'Go on' }], timestamp: Date.now() },
      });
      await waitFor(
        async () => /2 entries hidden by the filter/.test(String((await item(services.tree.leafNode(file)!)).description)),
        'the count after an append',
      );
    });
    // Under Default the leaf is its own row again, plainly current.
    const leaf = await item(services.tree.leafNode(file)!);
    assert.strictEqual(services.tree.leafNode(file)!.entryId, 'b5a11002');
    assert.match(String(leaf.description), /^● current/);
    assert.doesNotMatch(String(leaf.description), /hidden/);
    assert.match(String(leaf.contextValue), /:leaf/);
  });

  it('a click on an entry row runs arbor.showEntry(sessionFile, entryId)', async () => {
    const file = workspaceSession('01-plain');
    const rows = await children(await sessionNode(file));
    for (const n of rows.filter((r) => r.type === 'entry')) {
      const ti = await item(n);
      assert.strictEqual(ti.command?.command, 'arbor.showEntry');
      assert.deepStrictEqual(ti.command?.arguments, [file, (n as { entryId: string }).entryId]);
    }
  });
});
