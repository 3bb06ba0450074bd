// The Sessions view with the real vscode API: discovery, tree contents for the shared fixtures, getParent/reveal.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { ArborNode } from '../../../src/vscode/tree/nodes';
import {
  arborApi,
  children,
  golden,
  iconId,
  ids,
  item,
  labelText,
  openCopy,
  rawTree,
  sessionNode,
  withTreeFilter,
  waitFor,
  workspaceSession,
} from './arborHelpers';

const FIXTURES = ['01-plain', '02-compaction', '03-tree', '04-split-turn', '05-misc', '01-pi16'];

describe('Sessions view', () => {
  it('activates and lists the workspace sessions from arbor.sessionDir', async () => {
    const api = await arborApi();
    assert.strictEqual(api.apiVersion, 1);
    const roots = await children();
    const files = roots.map((n) => n.file);
    for (const f of FIXTURES) assert.ok(files.includes(workspaceSession(f)), `${f} listed`);
    assert.ok(roots.every((n) => n.type === 'session'));
    const misc = await item(await sessionNode(workspaceSession('05-misc')));
    // The name is the title; when an opened copy (an earlier test's) has the same name, what differs is added.
    // (In the sidebar's narrow line a shared title is cut short and what differs follows it: sessionTitle.ts titleLine.)
    assert.match(labelText(misc), /^misc: models, custom messages, errors$|^misc: models… [›·] \S/, 'session_info name is the title');
    const overview = await item(await sessionNode(workspaceSession('04-split-turn')));
    const first = 'Give me a quick overview of the docs folder.';
    assert.strictEqual(
      api.internals.services.store.get(workspaceSession('04-split-turn'))?.title,
      first,
      'first user message is the title',
    );
    // Whole on the row, or (an earlier test's opened copy shares it) cut short with what differs after it.
    assert.match(labelText(overview), /^Give me a quick overview of the docs folder\.$|^Give me a… [›·] \S/, 'the row shows the title');
    assert.strictEqual(misc.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
    assert.match(String(misc.contextValue), /^arborSession/);
  });

  for (const fixture of FIXTURES) {
    // With the All Entries filter (bookkeeping entries are rows too: see treeFilters.test.ts for the default).
    it(`shows ${fixture}: the active path flat, branch points holding the other branches, every entry once`, () =>
      withTreeFilter('all', async () => {
        const file = workspaceSession(fixture);
        const raw = rawTree(file);
        const g = golden(fixture) as { leafId: string; entryCount: number; tree: { branchPoints: Record<string, string[]> } };
        assert.strictEqual(raw.leafId, g.leafId);
        const session = await sessionNode(file);
        const top = await children(session);
        // The session's rows are the active path, root to leaf, without nesting.
        assert.deepStrictEqual(ids(top), raw.activePath);
        // Walk everything: every entry appears exactly once; branch points are exactly the golden ones.
        const seen = new Map<string, number>();
        const branchPoints: Record<string, string[]> = {};
        const walk = async (nodes: ArborNode[], parent: ArborNode) => {
          for (const n of nodes) {
            const p = (await arborApi()).internals.services.tree.getParent(n);
            assert.deepStrictEqual(p, parent, `getParent of ${ids([n])[0]}`);
            const ti = await item(n);
            assert.ok(ti.id, 'stable id');
            if (n.type === 'entry') {
              seen.set(n.entryId, (seen.get(n.entryId) ?? 0) + 1);
              const kids = await children(n);
              if (kids.length) {
                assert.strictEqual(ti.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed, `${n.entryId} expandable`);
                // A branch point shows the children that do not continue its line.
                const all = raw.children.get(n.entryId) ?? [];
                branchPoints[n.entryId] = all;
                assert.strictEqual(kids.length, all.length - 1);
                assert.ok(kids.every((k) => k.type === 'branch'));
              } else {
                assert.strictEqual(ti.collapsibleState, vscode.TreeItemCollapsibleState.None);
              }
              await walk(kids, n);
            } else if (n.type === 'branch') {
              const kids = await children(n);
              assert.strictEqual(ids([kids[0]])[0], n.startId, 'a branch starts with its first entry');
              assert.strictEqual(iconId(ti), 'git-branch');
              await walk(kids, n);
            }
          }
        };
        await walk(top, session);
        assert.strictEqual(seen.size, g.entryCount);
        assert.ok(
          [...seen.values()].every((c) => c === 1),
          'no entry shown twice',
        );
        assert.deepStrictEqual(Object.keys(branchPoints).sort(), Object.keys(g.tree.branchPoints).sort());
        for (const [bp, kids] of Object.entries(g.tree.branchPoints)) assert.deepStrictEqual(branchPoints[bp].sort(), [...kids].sort());
        // The leaf is marked.
        const leaf = await item(top[top.length - 1]);
        assert.match(String(leaf.description), /current/);
        assert.match(String(leaf.contextValue), /:leaf/);
      }));
  }

  it('gives entries icons by role and type, tokens and labels, and marks summaries', async () => {
    const file = workspaceSession('03-tree');
    await children(await sessionNode(file));
    const tree = (await arborApi()).internals.services.tree;
    const byId = async (id: string) => item(tree.nodeForEntry(file, id)!);
    const user = await byId('12ff783a');
    assert.strictEqual(iconId(user), 'account');
    assert.match(labelText(user), /^Take a look at this project/);
    assert.match(String(user.description), /tokens/);
    const summary = await byId('6bc1493a');
    assert.strictEqual(iconId(summary), 'note');
    assert.match(String(summary.contextValue), /:summary/);
    // Issue 8 item 2: a click on any entry row opens it in the panel (Show Summary stays an inline action).
    assert.deepStrictEqual(summary.command && { command: summary.command.command, args: summary.command.arguments }, {
      command: 'arbor.showEntry',
      args: [file, '6bc1493a'],
    });
    // 03-tree's label entries: 88f696d0 "resume-original" (active path), b0d9510b "alt-multiply" (side branch).
    const labelled = await byId('88f696d0');
    assert.match(labelText(labelled), /^#resume-original · /);
    assert.match(labelText(await byId('b0d9510b')), /^#alt-multiply · /);
    const compacted = await children(await sessionNode(workspaceSession('02-compaction')));
    const kinds = await Promise.all(compacted.map(async (n) => iconId(await item(n))));
    assert.ok(kinds.includes('archive'), 'compaction entries have their own icon');
    assert.ok(kinds.includes('tools'), 'assistant tool calls');
    assert.ok(kinds.includes('output'), 'tool results');
  });

  it('reveals the current leaf through getParent (inside a side branch too)', async () => {
    const api = await arborApi();
    const { services } = api.internals;
    // Its own copy: other suites may write to the workspace's 03-tree before this runs (its leaf would move).
    const file = await openCopy('03-tree', 'reveal-leaf');
    await children(await sessionNode(file));
    await vscode.commands.executeCommand('arbor.sessions.focus');
    await vscode.commands.executeCommand('arbor.revealLeaf', { file });
    assert.strictEqual(services.treeView.visible, true);
    await waitFor(() => {
      const sel = services.treeView.selection[0];
      return sel?.type === 'entry' && sel.entryId === '2cbb1a68';
    }, 'the leaf 2cbb1a68 selected').catch((err: Error) => {
      const sel = services.treeView.selection[0];
      throw new Error(`${err.message}; selected: ${JSON.stringify(sel && { type: sel.type, file: sel.file })}`);
    });
    // An entry on a side branch: its parent chain is branch -> branch point -> session.
    // Through the product's reveal (VS Code's own resolves without selecting when a parent's rows are being refreshed).
    assert.strictEqual(await services.revealEntry(file, 'a9dae875'), true, 'revealEntry reports the reveal done');
    const selected = services.treeView.selection[0] as { entryId?: string } | undefined;
    assert.strictEqual(selected?.entryId, 'a9dae875', 'a9dae875 selected');
    const node = services.tree.nodeForEntry(file, 'a9dae875')!;
    const parent = services.tree.getParent(node)!;
    assert.strictEqual(parent.type, 'branch');
  });

  it("a reveal still waiting gives up when another row is selected meanwhile (the view is the user's)", async () => {
    const { services } = (await arborApi()).internals;
    const file = await openCopy('03-tree', 'reveal-moved-on');
    await children(await sessionNode(file));
    await vscode.commands.executeCommand('arbor.sessions.focus');
    // The reveal waits for VS Code's row requests to settle: held here until the user has moved on.
    const tree = services.tree as { rowsSettled(timeoutMs?: number): Promise<boolean> };
    const settle = tree.rowsSettled;
    let release!: () => void;
    const held = new Promise<boolean>((r) => (release = () => r(true)));
    tree.rowsSettled = () => held;
    let waiting: Promise<boolean>;
    try {
      waiting = services.revealRow(() => services.tree.nodeForEntry(file, 'a9dae875'), { select: true });
      // The user selects the leaf's row meanwhile (VS Code's own reveal, as a click would: not through Arbor's reveals).
      const leaf = services.tree.nodeForEntry(file, '2cbb1a68')!;
      await waitFor(async () => {
        await services.treeView.reveal(leaf, { select: true });
        return (services.treeView.selection[0] as { entryId?: string } | undefined)?.entryId === '2cbb1a68';
      }, 'the leaf selected');
    } finally {
      tree.rowsSettled = settle;
      release();
    }
    assert.strictEqual(await waiting, false, 'the older reveal gave up');
    assert.strictEqual(
      (services.treeView.selection[0] as { entryId?: string } | undefined)?.entryId,
      '2cbb1a68',
      'the selection left alone',
    );
  });
});
