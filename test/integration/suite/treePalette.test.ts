// Issue 8 item 3: every command in the palette; Jump Here / Set Label without an entry ask with a QuickPick of entries;
// keybindings for Compact, Jump Here and Search, scoped to the Sessions view.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { EXTENSION_ID, arborApi, openCopy, readEntries, waitFor } from './arborHelpers';

interface Contributes {
  commands: { command: string }[];
  menus: { commandPalette: { command: string; when?: string }[] };
  keybindings: { command: string; key: string; when?: string }[];
}

describe('Commands in the palette', () => {
  it('lists every user-facing command in the palette, with keybindings for Compact, Jump Here and Search scoped to the view', () => {
    const contributes = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON.contributes as Contributes;
    const hidden = contributes.menus.commandPalette.filter((m) => m.when === 'false').map((m) => m.command);
    // Hidden: internal ones (a row's "more" action, the panel's proposal buttons, a duplicate icon state, a row action).
    assert.deepStrictEqual(hidden.sort(), [
      'arbor.applyProposal',
      'arbor.chooseFilterActive',
      'arbor.discardProposal',
      'arbor.showMore',
      'arbor.showWholeLine',
    ]);
    const conditional = contributes.menus.commandPalette.filter((m) => m.when !== 'false');
    assert.deepStrictEqual(conditional, [], 'no command hidden behind a `when` that fails once the palette has focus');
    for (const id of ['arbor.jumpHere', 'arbor.setLabel', 'arbor.search', 'arbor.searchAll', 'arbor.chooseFilter', 'arbor.goToStart']) {
      assert.ok(
        contributes.commands.some((c) => c.command === id),
        id,
      );
    }
    const keys = new Map(contributes.keybindings.map((k) => [k.command, k]));
    for (const id of ['arbor.compact', 'arbor.jumpHere', 'arbor.search']) {
      assert.ok(keys.get(id), `${id} has a keybinding`);
      assert.strictEqual(keys.get(id)!.when, 'focusedView == arbor.sessions', `${id} only while the Sessions view has focus`);
    }
  });

  it("Set Label without an entry asks with a searchable QuickPick of the session's entries", async () => {
    const file = await openCopy('03-tree', 'palette-label');
    const { services } = (await arborApi()).internals;
    // The selection is the session row (not an entry): the command asks which entry.
    await vscode.commands.executeCommand('arbor.sessions.focus');
    assert.ok(await services.revealRow(() => services.tree.sessionNode(file), { select: true, focus: true }), 'the session row selected');
    // Accept the QuickPick's active item (its first) once it is there: until then the command does nothing. No moving up
    // and down (a move made as the QuickPick opens wraps to its last item). An accept landing as it opens, before it
    // has an active item, cancels Set Label (nothing written): then the command is run again. Waits for a state, not a time.
    const label = await waitFor(async () => {
      let settled = false;
      const running = Promise.resolve(vscode.commands.executeCommand<string | undefined>('arbor.setLabel', undefined, 'from-the-picker'));
      void running.finally(() => (settled = true));
      while (!settled) {
        await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
        await new Promise((r) => setImmediate(r));
      }
      return running;
    }, 'Set Label to take the first item of its QuickPick');
    assert.strictEqual(label, 'from-the-picker');
    const last = readEntries(file).pop()!;
    assert.strictEqual(last.type, 'label');
    // The first item is the newest entry shown: the leaf.
    assert.strictEqual(last.targetId, '2cbb1a68');
    await waitFor(() => services.store.get(file)?.index?.labelOf('2cbb1a68') === 'from-the-picker', 'the label read back');
  });
});
