// Issue 34 item 2: Jump Here with a summary is reviewed like Compact (the same panel: figures, retention check,
// Edit / Discard / Apply, instructions and label), and Undo Jump moves the leaf back with one append.
import * as assert from 'assert';
import * as fs from 'fs';
import * as vscode from 'vscode';
import type { SummaryView } from '../../../src/webview/protocol';
import { arborApi, openCopy, rawTree, readEntries, waitFor } from './arborHelpers';

type Result = { kind: string; proposalId?: string; view?: SummaryView; [k: string]: unknown };

/** 03-tree: a user message on a side branch (the jump lands on its parent), and the session's leaf. */
const TARGET = '8c5b7af4';
const LANDING = '88f696d0';
const OLD_LEAF = '2cbb1a68';

async function propose(file: string, options: object = {}): Promise<Result> {
  return vscode.commands.executeCommand<Result>(
    'arbor.jumpHere',
    { file, entryId: TARGET },
    { summarize: 'custom', instructions: 'Keep the CSV path.', label: 'csv', review: true, ...options },
  );
}

describe('Jump Here reviews its branch summary (issue 34 item 2)', () => {
  afterEach(async () => {
    const { services } = (await arborApi()).internals;
    for (const id of services.panel.pendingProposals()) services.panel.discard(id);
  });

  it('proposes without writing: the review panel shows the figures, the check, the instructions and the label', async () => {
    const file = await openCopy('03-tree');
    const before = fs.readFileSync(file);
    const r = await propose(file);
    assert.strictEqual(r.kind, 'proposed');
    assert.deepStrictEqual(fs.readFileSync(file), before, 'a proposal writes nothing');
    const { services } = (await arborApi()).internals;
    const view = services.panel.currentView!;
    assert.strictEqual(view.proposalId, r.proposalId);
    assert.strictEqual(view.mode, 'review');
    assert.strictEqual(view.kind, 'branch_summary');
    assert.match(view.markdown, /^Note: before returning to this point, the user followed a different line of work[^]*\n## Goal\n/);
    assert.strictEqual(view.customInstructions, 'Keep the CSV path.');
    assert.deepStrictEqual(view.jump, { newLeafId: LANDING, label: 'csv' });
    assert.strictEqual(view.replaced?.fromId, OLD_LEAF);
    assert.ok((view.replaced?.count ?? 0) > 0, 'the branch left behind is listed');
    assert.ok((view.tokensBefore ?? 0) > 0 && (view.tokensAfter ?? 0) > 0, `figures: ${view.tokensBefore} → ${view.tokensAfter}`);
    assert.ok((view.retention ?? []).length > 0, 'the retention checklist of the branch left behind');
    assert.strictEqual(rawTree(file).leafId, OLD_LEAF, 'the leaf has not moved');
  });

  it('Discard writes nothing: the file is byte for byte the same and no proposal is left', async () => {
    const file = await openCopy('03-tree');
    const before = fs.readFileSync(file);
    const r = await propose(file);
    const { services } = (await arborApi()).internals;
    // The page's own Discard button sends this message.
    await services.panel.receive({ type: 'discard', proposalId: r.proposalId });
    assert.deepStrictEqual(services.panel.pendingProposals(), []);
    assert.deepStrictEqual(fs.readFileSync(file), before);
    await assert.rejects(services.panel.apply(r.proposalId!), /no pending proposal/);
    assert.deepStrictEqual(fs.readFileSync(file), before);
  });

  it('an edit is rechecked; Apply writes the edited summary with its label; the written figures are the proposal’s', async () => {
    const file = await openCopy('03-tree');
    const before = fs.readFileSync(file);
    const r = await propose(file);
    const { services } = (await arborApi()).internals;
    const proposed = services.panel.currentView!;
    // The check follows the edit (the handlers Compact's review has): a one-line summary loses facts; Put back adds them.
    const edited = '## Goal\n- Compare CSV handling';
    const put = services.panel.putBack(r.proposalId!, edited);
    assert.ok(put && put.startsWith(edited) && put.length > edited.length, String(put));

    const written = await vscode.commands.executeCommand<SummaryView>('arbor.applyProposal', r.proposalId, edited);
    assert.strictEqual(written?.mode, 'entry');
    assert.strictEqual(written?.kind, 'branch_summary');
    const after = fs.readFileSync(file);
    assert.deepStrictEqual(after.subarray(0, before.length), before, 'nothing before the jump changed');
    const [summary, label] = readEntries(file).slice(-2);
    assert.strictEqual(summary.type, 'branch_summary');
    assert.strictEqual(summary.summary, edited);
    assert.strictEqual(summary.parentId, LANDING);
    assert.strictEqual(summary.fromId, OLD_LEAF);
    assert.strictEqual(label.type, 'label');
    assert.strictEqual(label.targetId, summary.id);
    assert.strictEqual(label.label, 'csv');
    assert.strictEqual(written.entryId, summary.id);
    assert.strictEqual(written.tokensBefore, proposed.tokensBefore, 'the context at the leaf left: one figure before and after writing');
    assert.deepStrictEqual(written.jump, { newLeafId: LANDING, label: 'csv' });
    await waitFor(() => services.tree.leafNode(file)?.entryId === summary.id, 'the tree at the new leaf');
  });

  it('applied unedited, the written figures equal the proposal’s; Undo Jump moves the leaf back by one append', async () => {
    const file = await openCopy('03-tree');
    const r = await propose(file, { label: undefined });
    const { services } = (await arborApi()).internals;
    const proposed = services.panel.currentView!;
    const written = await services.panel.apply(r.proposalId!);
    assert.strictEqual(written?.tokensBefore, proposed.tokensBefore);
    assert.strictEqual(written?.tokensAfter, proposed.tokensAfter);
    assert.strictEqual(written?.author, proposed.author);
    assert.strictEqual(written?.summarizerNote, proposed.summarizerNote, 'the call the review described, not a generic note');
    const summaryId = String(readEntries(file).pop()!.id);
    await waitFor(() => services.tree.leafNode(file)?.entryId === summaryId, 'the tree at the branch summary');

    const jumped = fs.readFileSync(file);
    const u = await vscode.commands.executeCommand<Result>('arbor.undoJump', { file });
    assert.strictEqual(u?.kind, 'undone');
    assert.strictEqual(u.leafId, OLD_LEAF);
    const after = fs.readFileSync(file);
    assert.deepStrictEqual(after.subarray(0, jumped.length), jumped, 'the undo removes nothing');
    const marker = readEntries(file).pop()!;
    assert.strictEqual(marker.type, 'custom');
    assert.strictEqual(marker.customType, 'arbor/leaf-move');
    assert.strictEqual(marker.parentId, OLD_LEAF);
    assert.deepStrictEqual(u.written, [marker.id]);
    await waitFor(() => services.tree.leafNode(file)?.entryId === OLD_LEAF, 'the tree back at the old leaf');
    assert.ok(services.tree.nodeForEntry(file, summaryId), "the jump's branch summary stays in the tree");
  });

  it('Undo Jump where no jump left the leaf says so and writes nothing', async () => {
    const file = await openCopy('03-tree');
    const before = fs.readFileSync(file);
    const u = await vscode.commands.executeCommand<Result>('arbor.undoJump', { file });
    assert.strictEqual(u?.kind, 'nothing');
    assert.match(String(u.reason), /not where a jump left it/);
    assert.deepStrictEqual(fs.readFileSync(file), before);
  });
});
