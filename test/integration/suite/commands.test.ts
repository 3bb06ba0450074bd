// Over 400 lines: one suite of every command, sharing the afterEach that leaves no proposal or panel to the next test.
// Every Arbor command through vscode.commands.executeCommand, and what each one writes to the session file.
import * as assert from 'assert';
import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { SummaryView } from '../../../src/webview/protocol';
import type { ContextView, EntryView } from '../../../src/webview/protocol';
import { contextUse } from '../../../src/vscode/status/contextInfo';
import { loadSession } from '../../../src/engine/session/loadSession';
import { latestSummaryOnPath } from '../../../src/engine/tree/latestSummary';

async function contextUseFor(file: string) {
  return contextUse(await loadSession(file));
}
import {
  arborApi,
  children,
  golden,
  ids,
  item,
  openCopy,
  rawTree,
  readEntries,
  sessionNode,
  waitFor,
  withSetting,
  workspaceDir,
  workspaceSession,
  withTreeFilter,
  labelText,
} from './arborHelpers';

type Result = { kind: string; [k: string]: unknown };

describe('Arbor commands', () => {
  before(async () => {
    await arborApi();
  });

  afterEach(async () => {
    // Leave no proposal or panel behind for the next test.
    const { services } = (await arborApi()).internals;
    for (const id of services.panel.pendingProposals()) services.panel.discard(id);
  });

  describe('Compact', () => {
    it('proposes without writing, shows the review panel, and Apply appends one compaction entry', async () => {
      const file = await openCopy('01-plain');
      const before = fs.readFileSync(file, 'utf8');
      const oldLeaf = rawTree(file).leafId;
      const result = await vscode.commands.executeCommand<Result>('arbor.compact', { file }, { instructions: 'Focus on the tests' });
      assert.strictEqual(result.kind, 'proposed');
      assert.strictEqual(fs.readFileSync(file, 'utf8'), before, 'a proposal writes nothing');
      const { services } = (await arborApi()).internals;
      const view = services.panel.currentView!;
      assert.strictEqual(view.mode, 'review');
      assert.strictEqual(view.kind, 'compaction');
      assert.ok(view.sections.goal.length > 0, 'goal section');
      assert.ok(view.sections.done.includes('- [x]') || view.sections.inProgress.length > 0, 'progress section');
      assert.ok(view.readFiles.length + view.modifiedFiles.length > 0, 'file lists');
      assert.ok(
        view.modifiedFiles.some((f) => f.path === 'src/math.js'),
        'src/math.js was edited in 01-plain',
      );
      // Links resolve against the session's cwd; it does not exist here, so against the workspace folder.
      const math = view.modifiedFiles.find((f) => f.path === 'src/math.js')!;
      assert.ok(math.exists && math.resolved.endsWith(path.join('src', 'math.js')));
      assert.ok(view.tokensBefore! > view.tokensAfter!, 'the summary is smaller than what it replaces');
      assert.ok(view.replaced!.count > 0);
      assert.strictEqual(view.customInstructions, 'Focus on the tests');
      assert.ok(services.panel.isOpen);

      const written = await vscode.commands.executeCommand<SummaryView>('arbor.applyProposal', result.proposalId);
      assert.strictEqual(written.mode, 'entry');
      const entries = readEntries(file);
      assert.strictEqual(entries.length, rawTree(file).ids.length);
      const last = entries[entries.length - 1];
      assert.strictEqual(last.type, 'compaction');
      assert.strictEqual(last.parentId, oldLeaf, 'child of the old leaf');
      assert.strictEqual(last.id, written.entryId);
      assert.ok(fs.readFileSync(file, 'utf8').startsWith(before), 'existing bytes untouched');
      assert.strictEqual(fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length, before.split('\n').filter(Boolean).length + 1);
      assert.ok(rawTree(file).activePath.includes(String(last.firstKeptEntryId)), 'firstKeptEntryId on the path');
      assert.match(String(last.summary), /## Goal/);
      assert.match(String(last.summary), /<modified-files>/);
      assert.ok(typeof last.tokensBefore === 'number' && last.tokensBefore > 0);
      assert.deepStrictEqual(Object.keys(last.details as object).sort(), ['modifiedFiles', 'readFiles']);
      assert.strictEqual(last.usage, undefined, 'the offline summarizer makes no model call, so it records no usage');
      // Issue 34 item 5: shown again later (a row click, Show Summary, a reload), the summary is named by its summarizer.
      assert.match(String(written.author), /^offline\//);
      const again = await vscode.commands.executeCommand<SummaryView>('arbor.showSummary', { file, entryId: last.id });
      assert.strictEqual(again.author, written.author, 'the summarizer, remembered');
      assert.strictEqual(again.summarizerNote, written.summarizerNote);
      // The tree shows the new leaf.
      await waitFor(async () => {
        const top = await children(await sessionNode(file));
        const leaf = top[top.length - 1];
        return leaf.type === 'entry' && leaf.entryId === last.id && /current/.test(String((await item(leaf)).description));
      }, 'the compaction node as the current leaf');
    });

    it('Edit: applies the edited text', async () => {
      const file = await openCopy('02-compaction');
      const result = await vscode.commands.executeCommand<Result>('arbor.compact', { file }, { instructions: '' });
      assert.strictEqual(result.kind, 'proposed');
      const edited = '## Goal\n- Edited by the user\n\n## Next Steps\n1. Ship it';
      await vscode.commands.executeCommand('arbor.applyProposal', result.proposalId, edited);
      const last = readEntries(file).pop()!;
      assert.strictEqual(last.type, 'compaction');
      assert.strictEqual(last.summary, edited);
    });

    it('Discard: writes nothing', async () => {
      const file = await openCopy('01-plain');
      const before = fs.readFileSync(file, 'utf8');
      const result = await vscode.commands.executeCommand<Result>('arbor.compact', { file }, { instructions: '' });
      assert.strictEqual(result.kind, 'proposed');
      assert.strictEqual(await vscode.commands.executeCommand('arbor.discardProposal', result.proposalId), true);
      assert.strictEqual(fs.readFileSync(file, 'utf8'), before);
      assert.strictEqual((await arborApi()).internals.services.panel.isOpen, false);
    });

    it('says there is nothing to compact on a session that ends in a compaction, and writes nothing', async () => {
      const file = await openCopy('04-split-turn');
      const before = fs.readFileSync(file, 'utf8');
      const result = await vscode.commands.executeCommand<Result>('arbor.compact', { file }, { instructions: '' });
      assert.strictEqual(result.kind, 'nothing');
      assert.strictEqual(fs.readFileSync(file, 'utf8'), before);
    });

    it('refuses to apply a proposal when the file moved on meanwhile (nothing written)', async () => {
      const file = await openCopy('01-plain');
      const result = await vscode.commands.executeCommand<Result>('arbor.compact', { file }, { instructions: '' });
      const leaf = rawTree(file).leafId;
      fs.appendFileSync(
        file,
        `${JSON.stringify({ type: 'custom', id: 'abcd1234', parentId: leaf, timestamp: new Date().toISOString(), customType: 'test' })}\n`,
      );
      const before = fs.readFileSync(file, 'utf8');
      const applied = await vscode.commands.executeCommand('arbor.applyProposal', result.proposalId);
      assert.strictEqual(applied, undefined);
      assert.strictEqual(fs.readFileSync(file, 'utf8'), before);
    });

    it('a failing provider writes nothing and fires session_compact_failed', async () => {
      const server = http.createServer((_req, res) => {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'bad request from the test server', type: 'invalid_request_error' } }));
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const port = (server.address() as { port: number }).port;
      const restore = [
        await withSetting('summarizer.provider', 'openai'),
        await withSetting('summarizer.baseURL', `http://127.0.0.1:${port}/v1`),
        await withSetting('summarizer.model', 'gpt-4o-mini'),
      ];
      const api = await arborApi();
      const failures: string[] = [];
      const sub = api.onHook('session_compact_failed', (e) => void failures.push(e.error.message));
      try {
        const file = await openCopy('01-plain');
        const before = fs.readFileSync(file, 'utf8');
        const result = await vscode.commands.executeCommand<Result | undefined>('arbor.compact', { file }, { instructions: '' });
        assert.strictEqual(result, undefined);
        assert.strictEqual(fs.readFileSync(file, 'utf8'), before);
        assert.strictEqual(failures.length, 1);
        assert.match(failures[0], /400|bad request/i);
      } finally {
        sub.dispose();
        for (const r of restore.reverse()) await r();
        server.close();
      }
    });

    it('hooks from other extensions: session_before_compact can cancel, or supply the summary (fromHook)', async () => {
      const api = await arborApi();
      const file = await openCopy('01-plain');
      const before = fs.readFileSync(file, 'utf8');
      const cancel = api.onHook('session_before_compact', () => ({ cancel: true }));
      const r1 = await vscode.commands.executeCommand<Result>('arbor.compact', { file }, { instructions: '', review: false });
      cancel.dispose();
      assert.strictEqual(r1.kind, 'cancelled');
      assert.strictEqual(fs.readFileSync(file, 'utf8'), before);

      const seen: string[] = [];
      const supply = api.onHook('session_before_compact', (e) => ({
        compaction: {
          summary: '## Goal\n- From a hook',
          firstKeptEntryId: e.preparation.firstKeptEntryId,
          tokensBefore: e.preparation.tokensBefore,
        },
      }));
      const after = api.onHook('session_compact', (e) => void seen.push(e.entry.id));
      const r2 = await vscode.commands.executeCommand<Result>('arbor.compact', { file }, { instructions: '', review: false });
      supply.dispose();
      after.dispose();
      assert.strictEqual(r2.kind, 'compacted');
      const last = readEntries(file).pop()!;
      assert.strictEqual(last.fromHook, true);
      assert.strictEqual(last.summary, '## Goal\n- From a hook');
      assert.deepStrictEqual(seen, [last.id]);
    });
  });

  describe('Jump Here', () => {
    it("without a summary: appends Arbor's leaf marker under the target; the tree follows", async () => {
      const file = await openCopy('03-tree');
      const oldLeaf = rawTree(file).leafId;
      // a9dae875: an assistant message at the end of a side branch.
      const r = await vscode.commands.executeCommand<Result>('arbor.jumpHere', { file, entryId: 'a9dae875' }, { summarize: 'none' });
      assert.strictEqual(r.kind, 'jumped');
      assert.strictEqual(r.newLeafId, 'a9dae875');
      const last = readEntries(file).pop()!;
      assert.strictEqual(last.type, 'custom');
      assert.strictEqual(last.customType, 'arbor/leaf-move');
      assert.strictEqual(last.parentId, 'a9dae875');
      assert.deepStrictEqual(last.data, { fromId: oldLeaf, targetId: 'a9dae875' });
      // With every entry a row (All Entries filter), the rows are exactly the new active path.
      await withTreeFilter('all', () =>
        waitFor(async () => ids(await children(await sessionNode(file))).join() === rawTree(file).activePath.join(), 'the new active path'),
      );
    });

    it('with a summary to a user message: writes a branch summary under its parent and hands the text back', async () => {
      const file = await openCopy('03-tree');
      const oldLeaf = rawTree(file).leafId;
      // 1e40e24d: "Give me a one-paragraph summary of the docs folder instead." (a user message on a side branch)
      const r = await vscode.commands.executeCommand<Result>(
        'arbor.jumpHere',
        { file, entryId: '1e40e24d' },
        { summarize: 'custom', instructions: 'Mention the files.', showSummary: true },
      );
      assert.strictEqual(r.kind, 'jumped');
      assert.strictEqual(r.editorText, 'Give me a one-paragraph summary of the docs folder instead.');
      const last = readEntries(file).pop()!;
      assert.strictEqual(last.type, 'branch_summary');
      assert.strictEqual(last.parentId, '6bc1493a', 'the parent of the user message');
      assert.strictEqual(last.fromId, oldLeaf);
      assert.match(String(last.summary), /## Goal/);
      assert.ok(last.details && Array.isArray((last.details as { readFiles: unknown }).readFiles));
      const view = (await arborApi()).internals.services.panel.currentView!;
      assert.strictEqual(view.kind, 'branch_summary');
      assert.strictEqual(view.entryId, last.id);
      assert.ok(view.replaced!.count > 0, 'lists the abandoned entries');
    });

    it("to a side branch node: jumps to that branch's newest entry, with a label", async () => {
      const file = await openCopy('03-tree');
      const { services } = (await arborApi()).internals;
      await children(await sessionNode(file));
      const bp = services.tree.nodeForEntry(file, '088cfc63')!;
      const [branch] = await children(bp);
      assert.strictEqual(branch.type, 'branch');
      const r = await vscode.commands.executeCommand<Result>('arbor.jumpHere', branch, { summarize: 'none', label: 'back-to-alt' });
      assert.strictEqual(r.newLeafId, '55f6a1d0', 'the newest entry under b0d9510b');
      const [marker, label] = readEntries(file).slice(-2);
      assert.strictEqual(marker.customType, 'arbor/leaf-move');
      assert.strictEqual(label.type, 'label');
      assert.strictEqual(label.label, 'back-to-alt');
      assert.strictEqual(label.targetId, '55f6a1d0');
    });

    it("honours branchSummary.skipPrompt from Pi's settings: no question, no summary", async () => {
      const settings = path.join(workspaceDir(), '.pi', 'settings.json');
      const original = fs.readFileSync(settings, 'utf8');
      fs.writeFileSync(settings, JSON.stringify({ ...JSON.parse(original), branchSummary: { skipPrompt: true } }));
      try {
        const file = await openCopy('03-tree');
        // No options: with skipPrompt the command must not wait for a QuickPick.
        const r = await vscode.commands.executeCommand<Result>('arbor.jumpHere', { file, entryId: 'a9dae875' });
        assert.strictEqual(r.kind, 'jumped');
        assert.strictEqual(readEntries(file).pop()!.customType, 'arbor/leaf-move');
      } finally {
        fs.writeFileSync(settings, original);
      }
    });

    it('session_before_tree hooks can supply the branch summary (fromHook) or cancel', async () => {
      const api = await arborApi();
      const file = await openCopy('03-tree');
      const before = fs.readFileSync(file, 'utf8');
      const cancel = api.onHook('session_before_tree', () => ({ cancel: true }));
      const r1 = await vscode.commands.executeCommand<Result>('arbor.jumpHere', { file, entryId: 'a9dae875' }, { summarize: 'summarize' });
      cancel.dispose();
      assert.strictEqual(r1.kind, 'cancelled');
      assert.strictEqual(fs.readFileSync(file, 'utf8'), before);
      const events: string[] = [];
      const supply = api.onHook('session_before_tree', (e) => ({ summary: { summary: `## Goal\n- left ${e.preparation.oldLeafId}` } }));
      const after = api.onHook('session_tree', (e) => void events.push(String(e.summaryEntry?.id)));
      const r2 = await vscode.commands.executeCommand<Result>('arbor.jumpHere', { file, entryId: 'a9dae875' }, { summarize: 'summarize' });
      supply.dispose();
      after.dispose();
      assert.strictEqual(r2.kind, 'jumped');
      const last = readEntries(file).pop()!;
      assert.strictEqual(last.type, 'branch_summary');
      assert.strictEqual(last.fromHook, true);
      assert.strictEqual(last.summary, '## Goal\n- left 2cbb1a68');
      assert.deepStrictEqual(events, [last.id]);
    });

    it('on the current leaf: nothing to do, nothing written', async () => {
      const file = await openCopy('01-plain');
      const before = fs.readFileSync(file, 'utf8');
      const r = await vscode.commands.executeCommand<Result>(
        'arbor.jumpHere',
        { file, entryId: rawTree(file).leafId },
        { summarize: 'none' },
      );
      assert.strictEqual(r.kind, 'nothing');
      assert.strictEqual(fs.readFileSync(file, 'utf8'), before);
    });
  });

  describe('Set Label', () => {
    it('appends a label entry (and an empty label clears it); the tree shows it', async () => {
      const file = await openCopy('01-plain');
      const target = rawTree(file).activePath[3];
      const { services, onDidNotify } = (await arborApi()).internals;
      const modals: string[] = [];
      const sub = onDidNotify((n) => n.modal && modals.push(n.message));
      try {
        assert.strictEqual(
          await vscode.commands.executeCommand('arbor.setLabel', { file, entryId: target }, 'checkpoint-1'),
          'checkpoint-1',
        );
        let last = readEntries(file).pop()!;
        assert.deepStrictEqual([last.type, last.targetId, last.label], ['label', target, 'checkpoint-1']);
        await waitFor(
          async () => /^#checkpoint-1 · /.test(labelText(await item(services.tree.nodeForEntry(file, target)!))),
          'the label in the tree',
        );
        // Arbor's own append must not make the session look written by another process.
        assert.strictEqual(services.store.isLive(services.store.get(file)!), false, 'own writes do not flag the session live');
        assert.strictEqual(await vscode.commands.executeCommand('arbor.setLabel', { file, entryId: target }, ''), '');
        last = readEntries(file).pop()!;
        assert.strictEqual(last.type, 'label');
        assert.ok(!('label' in last), 'a cleared label has no label field');
        await waitFor(
          async () => !/#checkpoint-1/.test(labelText(await item(services.tree.nodeForEntry(file, target)!))),
          'the label gone',
        );
        assert.deepStrictEqual(modals, [], 'no question about another writer');
      } finally {
        sub.dispose();
      }
    });
  });

  describe('Show Context', () => {
    // Issue 8 item 7 changed this command: a view (webview) instead of a Markdown document; the assertions follow the view's data.
    it('shows what the LLM sees with token counts, the status bar numbers and a chart', async () => {
      const file = workspaceSession('02-compaction');
      const g = golden('02-compaction') as {
        leafId: string;
        contexts: Record<string, { messageEntryIds: string[]; estimateContextTokens: { tokens: number } }>;
      };
      const view = await vscode.commands.executeCommand<ContextView>('arbor.showContext', { file });
      assert.strictEqual(view.kind, 'context');
      assert.deepStrictEqual(
        view.messages.map((m) => m.entryId),
        g.contexts[g.leafId].messageEntryIds,
        'one row per context message',
      );
      assert.ok(view.messages.some((m) => m.role === 'compactionSummary'));
      assert.strictEqual(view.contextWindow, 32768);
      assert.strictEqual(view.series[view.series.length - 1].tokens, view.tokens, 'the chart ends at the status bar number');
      assert.ok(
        view.series.some((p) => p.marker === 'compaction'),
        'the compaction is marked',
      );
      assert.strictEqual(
        view.byRole.reduce((s, r) => s + r.count, 0),
        view.messages.length,
      );
      const use = await contextUseFor(file);
      assert.strictEqual(view.tokens, use.tokens.tokens, 'the same number as contextUse (the status bar)');
      // Issue 34 item 4: the parts add up to the figure, with "other" saying what it is.
      assert.strictEqual(view.byRole.reduce((s, r) => s + r.tokens, 0) + view.other.tokens, view.tokens, 'the parts add up to the figure');
      assert.ok(view.other.meaning.length > 0);
      assert.strictEqual(view.threshold, use.threshold);
    });

    it('at an earlier entry', async () => {
      const file = workspaceSession('03-tree');
      const view = await vscode.commands.executeCommand<ContextView>('arbor.showContext', {
        type: 'entry',
        file,
        entryId: '088cfc63',
        index: 5,
      });
      assert.strictEqual(view.leafId, '088cfc63');
    });
  });

  describe('Show Entry and Export Branch', () => {
    it('arbor.showEntry(file, id) shows the whole entry with its line, tokens and parts', async () => {
      const file = workspaceSession('02-compaction');
      const entries = readEntries(file);
      const k = entries.findIndex((e) => e.type === 'message' && (e.message as { role: string }).role === 'assistant');
      const id = entries[k].id as string;
      const view = await vscode.commands.executeCommand<EntryView>('arbor.showEntry', file, id);
      assert.strictEqual(view.entryId, id);
      assert.strictEqual(view.line, k + 2, 'line of the entry in the file (the header is line 1)');
      assert.strictEqual(view.role, 'assistant');
      assert.ok(view.parts.length > 0);
      assert.ok(view.tokens !== undefined && view.tokens > 0);
    });

    it('the entry panel follows a live append: "Current leaf" goes when Pi appends after the entry, comes back with a jump to it', async () => {
      // Issue 21 item 7: the panel kept "Current leaf" after a live append made another entry the leaf.
      const file = await openCopy('01-plain', 'entry-follow');
      const { entryPanel, services } = (await arborApi()).internals;
      await children(await sessionNode(file));
      const leaf = rawTree(file).leafId!;
      const shown = await vscode.commands.executeCommand<EntryView>('arbor.showEntry', file, leaf);
      assert.strictEqual(shown.isLeaf, true);
      // What Pi appends when the user sends the next message (another process writing the file).
      const piEntry = {
        type: 'message',
        id: 'f011ow01',
        parentId: leaf,
        timestamp: new Date().toISOString(),
        message: { role: 'user', content: [{ type: 'text', text: 'And now?' }], timestamp: Date.now() },
      };
      fs.appendFileSync(file, `${JSON.stringify(piEntry)}\n`);
      await waitFor(() => entryPanel.currentView?.isLeaf === false, 'the panel no longer calling the entry the current leaf');
      assert.strictEqual(entryPanel.currentView?.entryId, leaf, 'the same entry, redrawn in place');
      // A jump back to the shown entry (its leaf move hangs from it, as the tree marks it "● current") makes it current again;
      // once the file is no longer live (else Arbor asks before appending).
      const restoreLive = await withSetting('liveWriteSeconds', 1);
      try {
        await waitFor(() => !services.store.isLive(services.store.get(file)!), 'the session no longer live');
        const r = await vscode.commands.executeCommand<{ kind: string }>('arbor.jumpHere', { file, entryId: leaf }, { summarize: 'none' });
        assert.strictEqual(r.kind, 'jumped');
        await waitFor(() => entryPanel.currentView?.isLeaf === true, 'the panel calling the entry current again');
        assert.strictEqual(entryPanel.currentView?.entryId, leaf);
        assert.strictEqual(services.tree.leafNode(file)?.entryId, leaf, 'the row the tree marks current');
        // A label on it (the label entry becomes the file's leaf) does not take "Current leaf" away; the label shows.
        assert.strictEqual(await vscode.commands.executeCommand('arbor.setLabel', { file, entryId: leaf }, 'here'), 'here');
        await waitFor(() => entryPanel.currentView?.label === 'here', 'the label in the panel');
        assert.strictEqual(entryPanel.currentView?.isLeaf, true);
      } finally {
        await restoreLive();
      }
    });

    it('arbor.exportBranch writes Markdown and HTML of the branch', async () => {
      const file = workspaceSession('02-compaction');
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-export-'));
      const md = await vscode.commands.executeCommand<vscode.Uri>(
        'arbor.exportBranch',
        { file },
        { format: 'md', target: vscode.Uri.file(path.join(dir, 'b.md')) },
      );
      assert.match(fs.readFileSync(md.fsPath, 'utf8'), /^# /);
      const html = await vscode.commands.executeCommand<vscode.Uri>(
        'arbor.exportBranch',
        { file },
        { format: 'html', target: vscode.Uri.file(path.join(dir, 'b.html')) },
      );
      assert.match(fs.readFileSync(html.fsPath, 'utf8'), /default-src 'none'; style-src 'unsafe-inline'/);
    });
  });

  describe('Show Summary', () => {
    const panels = async () => {
      const { services, entryPanel } = (await arborApi()).internals;
      return { summaryPanel: services.panel, entryPanel };
    };

    it('shows a compaction entry with its sections, files, tokens and what it replaced', async () => {
      const file = workspaceSession('02-compaction');
      const compaction = readEntries(file)
        .filter((e) => e.type === 'compaction')
        .pop()!;
      const view = await vscode.commands.executeCommand<SummaryView>('arbor.showSummary', { file, entryId: compaction.id });
      assert.strictEqual(view.mode, 'entry');
      assert.strictEqual(view.tokensBefore, compaction.tokensBefore);
      assert.ok(view.sections.goal);
      assert.ok(view.sections.nextSteps);
      assert.ok(view.replaced!.count > 0);
      assert.strictEqual(view.replaced!.firstKeptEntryId, compaction.firstKeptEntryId);
      assert.ok(view.readFiles.length + view.modifiedFiles.length > 0);
    });

    it('a click on a compaction or branch summary row (Show Entry) opens the same summary panel as Show Summary, one tab title', async () => {
      // Issue 34 item 5: one view per summary entry; never the entry panel's raw text with its <modified-files> block.
      for (const [fixture, type] of [
        ['02-compaction', 'compaction'],
        ['03-tree', 'branch_summary'],
      ] as const) {
        const file = workspaceSession(fixture);
        const entry = readEntries(file).find((e) => e.type === type)!;
        const { summaryPanel, entryPanel } = await panels();
        entryPanel.close();
        const clicked = await vscode.commands.executeCommand<SummaryView>('arbor.showEntry', file, entry.id);
        assert.strictEqual(clicked.mode, 'entry', fixture);
        assert.strictEqual(clicked.kind, type);
        assert.strictEqual(clicked.entryId, entry.id);
        assert.strictEqual(summaryPanel.currentView?.entryId, entry.id, 'shown in the summary panel');
        assert.strictEqual(entryPanel.currentView, undefined, 'not in the entry panel');
        const shown = await vscode.commands.executeCommand<SummaryView>('arbor.showSummary', { file, entryId: entry.id });
        assert.deepStrictEqual(clicked, shown, 'the same view either way');
        const title = `${type === 'compaction' ? 'Compaction' : 'Branch Summary'} ${entry.id}`;
        const tabs = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).map((t) => t.label);
        await waitFor(() => tabs().includes(title), `${title} among the tabs`);
      }
    });

    it('on a session: the newest summary on the active path', async () => {
      const file = workspaceSession('02-compaction');
      const newest = readEntries(file)
        .filter((e) => e.type === 'compaction')
        .pop()!;
      const view = await vscode.commands.executeCommand<SummaryView>('arbor.showSummary', { file });
      assert.strictEqual(view.kind, 'compaction');
      assert.strictEqual(view.entryId, newest.id);
      // 03-tree's active path holds no summary (its branch summaries are on side branches).
      assert.strictEqual(await vscode.commands.executeCommand('arbor.showSummary', { file: workspaceSession('03-tree') }), undefined);
    });

    it('on a session: the summary of the one rule `arbor summary` follows (engine/tree/latestSummary.ts)', async () => {
      // test/unit/rules/latestSummary.test.ts checks `arbor summary` against the same rule on the same fixtures.
      for (const fixture of ['01-plain', '02-compaction', '03-tree', '04-split-turn']) {
        const file = workspaceSession(fixture);
        const index = await loadSession(file);
        const latest = latestSummaryOnPath(index);
        const view = await vscode.commands.executeCommand<SummaryView | undefined>('arbor.showSummary', { file });
        assert.strictEqual(view?.entryId, latest < 0 ? undefined : index.record(latest).id, fixture);
      }
    });

    it('shows the split-turn context of a turn-splitting compaction', async () => {
      const file = workspaceSession('04-split-turn');
      const view = await vscode.commands.executeCommand<SummaryView>('arbor.showSummary', { file });
      assert.strictEqual(view.kind, 'compaction');
      assert.ok(view.sections.turnContext.length > 0, 'turn context section');
    });
  });

  describe('Set API Key', () => {
    it('stores the key in SecretStorage and removes it', async () => {
      const { services } = (await arborApi()).internals;
      assert.strictEqual(await vscode.commands.executeCommand('arbor.setApiKey', 'anthropic', 'sk-ant-test'), true);
      assert.strictEqual(await services.keys.get('anthropic'), 'sk-ant-test');
      assert.strictEqual(await services.keys.has('anthropic'), true);
      await vscode.commands.executeCommand('arbor.setApiKey', 'anthropic', '');
      assert.strictEqual(await services.keys.has('anthropic'), false);
      const settings = JSON.stringify(vscode.workspace.getConfiguration('arbor'));
      assert.ok(!settings.includes('sk-ant-test'), 'never in settings');
    });
  });

  describe('Open Session File, Refresh, Continue in Pi', () => {
    it('opens a file from anywhere and keeps it listed across refreshes', async () => {
      const file = await openCopy('05-misc', 'opened');
      const node = await sessionNode(file);
      assert.match(String((await item(node)).description), /opened/);
      const count = await vscode.commands.executeCommand<number>('arbor.refresh');
      assert.ok(count >= 7);
      await sessionNode(file);
    });

    it('Continue in Pi runs `pi --session FILE` in a terminal when pi is found', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-pi-'));
      const fake = path.join(dir, 'pi');
      fs.writeFileSync(fake, '#!/bin/sh\necho "fake pi $@"\n', { mode: 0o755 });
      const restore = await withSetting('piPath', fake);
      try {
        const file = workspaceSession('05-misc');
        const terminal = await vscode.commands.executeCommand<vscode.Terminal>('arbor.continueInPi', { file });
        assert.ok(terminal, 'a terminal');
        assert.match(terminal.name, /^Pi: misc/);
        terminal.dispose();
      } finally {
        await restore();
      }
      const restore2 = await withSetting('piPath', path.join(dir, 'no-such-pi'));
      try {
        const none = await vscode.commands.executeCommand('arbor.continueInPi', { file: workspaceSession('05-misc') });
        assert.strictEqual(none, undefined, 'no terminal without pi');
      } finally {
        await restore2();
      }
    });

    it('Open Raw Session File shows the JSONL', async () => {
      const file = workspaceSession('01-plain');
      await vscode.commands.executeCommand('arbor.openRaw', { file });
      assert.strictEqual(vscode.window.activeTextEditor?.document.uri.fsPath, file);
    });
  });
});
