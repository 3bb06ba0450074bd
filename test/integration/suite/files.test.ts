// Files along the tree in a real VS Code: Show File Changes opens the diff editor; Jump Here restores files; Undo Last File Restore puts them back.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import * as os from 'os';
import { arborApi, children, fixtureFile, item, sessionNode, waitFor, withSetting } from './arborHelpers';
import { sessionWithProject } from '../../support/filesProject';

interface ShowResult {
  files: { path: string; changes: { entryId: string; kind: string; verdict?: string }[] }[];
  opened?: string;
}

async function openSession(fixture: string): Promise<{ session: string; project: string }> {
  await arborApi();
  const p = await sessionWithProject(fixtureFile(fixture));
  const opened = await vscode.commands.executeCommand<string>('arbor.openSessionFile', vscode.Uri.file(p.session));
  assert.strictEqual(opened, p.session);
  return p;
}

function activeDiff(): vscode.TabInputTextDiff | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputTextDiff ? input : undefined;
}

describe('files along the tree', () => {
  // Restore backups go under Pi's agent folder: a temporary one, not the machine's.
  let agentDir = '';
  let restoreSetting: (() => Promise<void>) | undefined;
  before(async () => {
    agentDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-agent-'));
    restoreSetting = await withSetting('piAgentDir', agentDir);
  });
  after(async () => {
    await restoreSetting?.();
    fs.rmSync(agentDir, { recursive: true, force: true });
  });
  afterEach(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  it('Show File Changes on an entry opens the change in the native diff editor (read-only arbor-file documents)', async () => {
    const { session } = await openSession('04-split-turn');
    // 21f193be: the edit of docs/guide-2.md (a TODO line replaced)
    const r = (await vscode.commands.executeCommand<ShowResult>(
      'arbor.showFileChanges',
      { file: session, entryId: '21f193be' },
      { path: 'docs/guide-2.md' },
    ))!;
    // The verdict in the words Restore Files uses for the same file (an earlier command may have changed it).
    const verdict = "not verified: command `awk -F, 'NR>1 && $4>=90' data/records.csv | wc -l` at a30c03cb may have changed it";
    assert.deepStrictEqual(r.files, [{ path: 'docs/guide-2.md', changes: [{ entryId: '21f193be', kind: 'edit', verdict }] }]);
    const diff = (await waitFor(activeDiff, 'a diff editor'))!;
    assert.strictEqual(diff.original.scheme, 'arbor-file');
    assert.strictEqual(diff.modified.scheme, 'arbor-file');
    const before = (await vscode.workspace.openTextDocument(diff.original)).getText();
    const after = (await vscode.workspace.openTextDocument(diff.modified)).getText();
    assert.match(before, /TODO: explain result handling in more detail\./);
    assert.match(after, /Note: see the API reference for result handling in more detail\./);
    assert.strictEqual(
      before.replace('TODO: explain result handling in more detail.', 'Note: see the API reference for result handling in more detail.'),
      after,
      'whole file, before and after',
    );
    assert.match(vscode.window.tabGroups.activeTabGroup.activeTab!.label, /docs\/guide-2\.md \(edit at 21f193be\)/);
  });

  it('a side branch row says how many files it changed; Show File Changes on it lists them', async () => {
    const { session } = await openSession('03-tree');
    const { services } = (await arborApi()).internals;
    await children(await sessionNode(session));
    const bp = services.tree.nodeForEntry(session, '088cfc63')!;
    const [branch] = await children(bp);
    assert.strictEqual(branch.type, 'branch');
    const ti = await item(branch);
    assert.match(String(ti.description), /1 file changed/);
    const r = (await vscode.commands.executeCommand<ShowResult>('arbor.showFileChanges', branch, { path: 'src/ops.js' }))!;
    assert.deepStrictEqual(
      r.files.map((f) => f.path),
      ['src/ops.js'],
    );
    const diff = (await waitFor(activeDiff, 'a diff editor'))!;
    assert.match((await vscode.workspace.openTextDocument(diff.modified)).getText(), /export function mulLoop/);
  });

  it('Jump Here with "also restore files": verified files restored through the engine (backed up); Undo Last File Restore puts them back', async () => {
    const { session, project } = await openSession('04-split-turn');
    const guide2 = path.join(project, 'docs', 'guide-2.md');
    const after = fs.readFileSync(guide2, 'utf8');
    const doc = await vscode.workspace.openTextDocument(guide2);
    await vscode.window.showTextDocument(doc);
    // a241a739: after the guides were read, before any edit
    const r = await vscode.commands.executeCommand<{
      kind: string;
      files?: { restored: string[]; skipped: { path: string; reason: string }[]; deleted: string[]; backup?: string };
    }>('arbor.jumpHere', { file: session, entryId: 'a241a739' }, { summarize: 'none', restoreFiles: { paths: ['docs/guide-2.md'] } });
    assert.strictEqual(r.kind, 'jumped');
    const backup = r.files?.backup;
    assert.ok(
      backup && backup.startsWith(agentDir) && fs.existsSync(path.join(backup, 'journal.jsonl')),
      "a backup with its record, under Pi's agent folder",
    );
    assert.deepStrictEqual(r.files, { restored: ['docs/guide-2.md'], skipped: [], deleted: [], backup });
    const restored = fs.readFileSync(guide2, 'utf8');
    assert.match(restored, /TODO: explain result handling in more detail\./);
    assert.strictEqual(
      restored,
      after.replace('Note: see the API reference for result handling in more detail.', 'TODO: explain result handling in more detail.'),
    );
    await waitFor(() => doc.getText() === restored, 'the open editor to show the restored file');

    const undo = await vscode.commands.executeCommand<{ undone: boolean; restored?: string[] }>('arbor.undoRestoreFiles');
    assert.deepStrictEqual(undo, {
      undone: true,
      interrupted: false,
      restored: ['docs/guide-2.md'],
      deleted: [],
      already: [],
      skipped: [],
    });
    assert.strictEqual(fs.readFileSync(guide2, 'utf8'), after, 'the file on disk as before the restore');
    await waitFor(() => doc.getText() === after, 'the open editor to follow');
    const again = await vscode.commands.executeCommand<{ undone: boolean; reason?: string }>('arbor.undoRestoreFiles');
    assert.strictEqual(again.undone, false);
    assert.match(again.reason!, /already undone/);
  });

  it('restore leaves a file changed on disk since the session alone, with the reason', async () => {
    const { session, project } = await openSession('04-split-turn');
    fs.appendFileSync(path.join(project, 'docs', 'guide-5.md'), 'edited by hand\n');
    const r = await vscode.commands.executeCommand<{ restored: string[]; skipped: { path: string; reason: string }[]; deleted: string[] }>(
      'arbor.restoreFiles',
      { file: session, entryId: 'a241a739' },
      {},
    );
    assert.deepStrictEqual([...r.restored].sort(), ['docs/guide-2.md', 'docs/guide-8.md']);
    assert.deepStrictEqual(
      r.skipped.map((s) => [s.path, s.reason.split(' (')[0]]),
      [
        ['docs/guide-5.md', 'changed on disk since the session last wrote it'],
        ['docs/AUDIT.md', 'created by the session on a branch the target does not contain'],
      ],
    );
    assert.ok(fs.existsSync(path.join(project, 'docs', 'AUDIT.md')), 'not deleted without confirmation');
    assert.match(fs.readFileSync(path.join(project, 'docs', 'guide-5.md'), 'utf8'), /edited by hand/);
  });
});
