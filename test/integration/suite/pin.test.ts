// Pin / Unpin on an entry row (issue 9.3): writes a Pi label entry; the next compaction carries the entry verbatim,
// the panel says what the offline summarizer did (no usage).
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { SummaryView } from '../../../src/webview/protocol';
import { arborApi, children, iconId, item, openCopy, readEntries, sessionNode, waitFor, labelText } from './arborHelpers';

type Result = { kind: string; [k: string]: unknown };

describe('Arbor Pin / Unpin', () => {
  before(async () => {
    await arborApi();
  });

  it('pins an entry (keeping its label), the compaction carries it verbatim, Unpin restores the label', async () => {
    const file = await openCopy('01-plain');
    const entries = readEntries(file);
    const firstUser = entries.find((e) => e.type === 'message' && (e.message as { role: string }).role === 'user')!;
    const target = String(firstUser.id);
    assert.strictEqual(await vscode.commands.executeCommand('arbor.setLabel', { file, entryId: target }, 'intro'), 'intro');
    assert.strictEqual(await vscode.commands.executeCommand('arbor.togglePin', { file, entryId: target }), '📌 intro');
    let last = readEntries(file).pop()!;
    assert.deepStrictEqual([last.type, last.targetId, last.label], ['label', target, '📌 intro']);
    // The row shows the pin with the codicon and the word (📌 alone is a box without an emoji font).
    const tree = (await arborApi()).internals.services.tree;
    await children(await sessionNode(file));
    const row = (await waitFor(async () => {
      const node = tree.nodeForEntry(file, target);
      const ti = node && (await item(node));
      return ti && iconId(ti) === 'pin' ? ti : undefined;
    }, 'the pinned row shows the pin icon'))!;
    assert.match(labelText(row), /^#intro · /);
    assert.match(String(row.description), /pinned/);
    assert.ok(!String(row.description).includes('📌'), String(row.description));
    const content = (firstUser.message as { content: string | { type: string; text?: string }[] }).content;
    const pinnedText =
      typeof content === 'string'
        ? content
        : content
            .filter((b) => b.type === 'text')
            .map((b) => b.text)
            .join('\n');
    assert.ok(pinnedText.length > 0);

    const result = await vscode.commands.executeCommand<Result>('arbor.compact', { file }, { instructions: '' });
    assert.strictEqual(result.kind, 'proposed');
    const { services } = (await arborApi()).internals;
    const view = services.panel.currentView!;
    assert.ok(view.markdown.includes(`label="📌 intro">\n${pinnedText}\n</pinned>`), view.markdown);
    assert.strictEqual(view.usage, undefined, 'no usage for an offline summary');
    assert.match(String(view.summarizerNote), /^offline summary: \d+ messages? read, no model call$/);
    const written = await vscode.commands.executeCommand<SummaryView>('arbor.applyProposal', result.proposalId);
    assert.strictEqual(written.mode, 'entry');
    const compaction = readEntries(file).pop()!;
    assert.strictEqual(compaction.type, 'compaction');
    assert.ok(!('usage' in compaction), 'the entry records no usage');

    assert.strictEqual(await vscode.commands.executeCommand('arbor.togglePin', { file, entryId: target }), 'intro');
    last = readEntries(file).pop()!;
    assert.deepStrictEqual([last.type, last.targetId, last.label], ['label', target, 'intro']);
  });
});
