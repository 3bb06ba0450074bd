// Open Raw Session File opens the append-only JSONL read-only, at a line when asked (issue 13 item 10).
import * as assert from 'assert';
import * as fs from 'fs';
import * as vscode from 'vscode';
import { arborApi, openCopy, readEntries } from './arborHelpers';

describe('Open Raw Session File', () => {
  before(async () => {
    await arborApi();
  });

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  it('opens the session read-only: edits do not apply, it cannot be saved, the bytes stay', async () => {
    const file = await openCopy('03-tree', 'raw-readonly');
    const before = fs.readFileSync(file);
    const editor = await vscode.commands.executeCommand<vscode.TextEditor>('arbor.openRawSessionFile', file);
    assert.ok(editor, 'an editor');
    assert.strictEqual(vscode.window.activeTextEditor?.document.uri.toString(), editor.document.uri.toString());
    assert.strictEqual(editor.document.uri.fsPath, file);
    assert.strictEqual(vscode.workspace.fs.isWritableFileSystem(editor.document.uri.scheme), false, 'a read-only file system');
    assert.strictEqual(editor.document.getText(), before.toString('utf8'), 'the JSONL as it is');

    const typed = await editor
      .edit((b) => b.insert(new vscode.Position(0, 0), 'HOSTILE '))
      .then(
        (ok) => ok,
        () => false,
      );
    const edit = new vscode.WorkspaceEdit();
    edit.insert(editor.document.uri, new vscode.Position(1, 0), 'HOSTILE\n');
    const applied = await Promise.resolve(vscode.workspace.applyEdit(edit)).then(
      (ok) => ok,
      () => false,
    );
    const saved = await Promise.resolve(editor.document.save()).then(
      (ok) => ok,
      () => false,
    );
    assert.strictEqual(saved, false, 'the document cannot be saved');
    assert.ok(!(typed && applied && saved), 'no edit reached the file');
    assert.ok(fs.readFileSync(file).equals(before), "the file's bytes are unchanged");
  });

  it("reveals a 1-based line given as an argument, and an entry node's own line", async () => {
    const file = await openCopy('03-tree', 'raw-line');
    const editor = await vscode.commands.executeCommand<vscode.TextEditor>('arbor.openRawSessionFile', file, 7);
    assert.strictEqual(editor.selection.active.line, 6, 'line 7 (1-based)');
    assert.ok(
      editor.visibleRanges.some((r) => r.contains(new vscode.Position(6, 0))),
      'in view',
    );
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    const entries = readEntries(file);
    const k = 9;
    const byNode = await vscode.commands.executeCommand<vscode.TextEditor>('arbor.openRaw', { file, entryId: entries[k].id });
    // Line 1 is the header: entry k is on line k + 2.
    assert.strictEqual(byNode.selection.active.line + 1, k + 2);
    assert.strictEqual(JSON.parse(byNode.document.lineAt(byNode.selection.active.line).text).id, entries[k].id);
  });
});
