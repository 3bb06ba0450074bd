// The summary panel's file links with the real vscode API: the panel opens local files only; a file
// outside the workspace folders and the session's cwd needs a yes first; URIs (command:, javascript:,
// file:, http(s):, vscode:, data:), network paths, folders and missing files are refused. Messages go
// in where the webview's would (SummaryPanel.receive); what opens is seen through the real editor.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { SummaryView } from '../../../src/webview/protocol';
import type { Notification } from '../../../src/vscode/platform/notify';
import { arborApi, workspaceDir } from './arborHelpers';

type Expect = 'open' | 'ask' | 'refuse';

describe('Summary panel file links', () => {
  let root: string;
  let sessionFile: string;
  let link: string;
  const cases: { path: string; expect: Expect; real?: string }[] = [];

  before(async () => {
    await arborApi();
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-links-'));
    const cwd = path.join(root, 'project'); // the session's cwd, outside the workspace
    const outside = path.join(root, 'elsewhere');
    fs.mkdirSync(cwd);
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(cwd, 'notes.md'), '# notes in the session folder\n');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'outside both\n');
    const ws = workspaceDir();
    link = path.join(ws, `link-out-${Date.now().toString(36)}.txt`);
    fs.symlinkSync(path.join(outside, 'secret.txt'), link);
    const secret = fs.realpathSync(path.join(outside, 'secret.txt'));
    cases.push(
      { path: 'notes.md', expect: 'open', real: fs.realpathSync(path.join(cwd, 'notes.md')) }, // relative, in the session's cwd
      { path: path.join(ws, 'src', 'math.js'), expect: 'open', real: fs.realpathSync(path.join(ws, 'src', 'math.js')) }, // in the workspace
      { path: path.join(outside, 'secret.txt'), expect: 'ask', real: secret }, // outside both
      { path: '../elsewhere/secret.txt', expect: 'ask', real: secret }, // climbs out of the cwd
      { path: link, expect: 'ask', real: secret }, // a symlink in the workspace to a file outside
      { path: 'command:workbench.action.quit', expect: 'refuse' },
      { path: 'command:arbor.setApiKey?["openai","stolen"]', expect: 'refuse' },
      { path: "javascript:alert('x')", expect: 'refuse' },
      { path: 'file:///etc/passwd', expect: 'refuse' },
      { path: 'https://example.invalid/x.txt', expect: 'refuse' },
      { path: 'http://127.0.0.1:1/x.txt', expect: 'refuse' },
      { path: 'vscode://file/etc/passwd', expect: 'refuse' },
      { path: 'vscode-remote://127.0.0.1/etc/passwd', expect: 'refuse' },
      { path: 'data:text/plain,hello', expect: 'refuse' },
      { path: '//server/share/file.txt', expect: 'refuse' },
      { path: path.join(ws, 'src'), expect: 'refuse' }, // a folder
      { path: 'missing-file.txt', expect: 'refuse' },
    );
    const t = new Date(Date.now() - 3600_000).toISOString();
    const lines = [
      { type: 'session', version: 3, id: 'f11e0000-0000-7000-8000-00000000link', timestamp: t, cwd },
      {
        type: 'message',
        id: 'a0000001',
        parentId: null,
        timestamp: t,
        message: { role: 'user', content: 'Look at some files', timestamp: 1 },
      },
      {
        type: 'message',
        id: 'a0000002',
        parentId: 'a0000001',
        timestamp: t,
        message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }], stopReason: 'stop', timestamp: 2 },
      },
      {
        type: 'compaction',
        id: 'a0000003',
        parentId: 'a0000002',
        timestamp: t,
        summary: '## Goal\n- Links\n',
        firstKeptEntryId: 'a0000002',
        tokensBefore: 100,
        details: { readFiles: cases.slice(0, 9).map((c) => c.path), modifiedFiles: cases.slice(9).map((c) => c.path) },
      },
    ];
    sessionFile = path.join(root, 'links.jsonl');
    fs.writeFileSync(sessionFile, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const old = new Date(Date.now() - 3600_000);
    fs.utimesSync(sessionFile, old, old);
    assert.strictEqual(await vscode.commands.executeCommand('arbor.openSessionFile', vscode.Uri.file(sessionFile)), sessionFile);
  });

  after(() => {
    fs.rmSync(link, { force: true }); // the workspace is shared by the other tests
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('opens files inside the workspace or the session folder, asks about others, refuses URIs, folders and missing files', async () => {
    const api = await arborApi();
    const { services, fileLinks } = api.internals;
    const view = await vscode.commands.executeCommand<SummaryView>('arbor.showSummary', { file: sessionFile, entryId: 'a0000003' });
    const links = [...view.readFiles, ...view.modifiedFiles];
    assert.deepStrictEqual(
      links.map((l) => l.path),
      cases.map((c) => c.path),
    );

    const opened: vscode.Uri[] = [];
    const docs: vscode.Uri[] = [];
    const asked: string[] = [];
    const warnings: Notification[] = [];
    const originalOpen = fileLinks.open;
    const originalConfirm = fileLinks.confirm;
    let answer = false;
    fileLinks.open = async (uri) => {
      opened.push(uri);
      return originalOpen(uri);
    };
    fileLinks.confirm = async (file) => {
      asked.push(file);
      return answer;
    };
    const subs = [vscode.workspace.onDidOpenTextDocument((d) => docs.push(d.uri)), api.internals.onDidNotify((n) => warnings.push(n))];
    try {
      for (const [i, c] of cases.entries()) {
        opened.length = 0;
        asked.length = 0;
        warnings.length = 0;
        answer = false;
        await services.panel.receive({ type: 'openFile', path: links[i].resolved });
        const what = `${c.path} (${c.expect})`;
        if (c.expect === 'open') {
          assert.strictEqual(asked.length, 0, `${what}: no question`);
          assert.deepStrictEqual(
            opened.map((u) => u.fsPath),
            [c.real],
            `${what}: opened`,
          );
          assert.strictEqual(vscode.window.activeTextEditor?.document.uri.fsPath, c.real, `${what}: in the editor`);
          assert.strictEqual(vscode.window.activeTextEditor?.document.uri.scheme, 'file');
        } else if (c.expect === 'ask') {
          assert.deepStrictEqual(asked, [c.real], `${what}: asked first`);
          assert.strictEqual(opened.length, 0, `${what}: a no opens nothing`);
          answer = true;
          await services.panel.receive({ type: 'openFile', path: links[i].resolved });
          assert.deepStrictEqual(
            opened.map((u) => u.fsPath),
            [c.real],
            `${what}: a yes opens the real file`,
          );
          assert.strictEqual(vscode.window.activeTextEditor?.document.uri.fsPath, c.real);
        } else {
          assert.strictEqual(asked.length, 0, `${what}: not asked`);
          assert.strictEqual(opened.length, 0, `${what}: nothing opened`);
          assert.ok(
            warnings.some((n) => n.kind === 'warning' && /not opened/.test(n.message)),
            `${what}: the user is told (${JSON.stringify(warnings)})`,
          );
        }
      }

      // The webview is untrusted: a path the summary does not list, or a file of another session, is ignored.
      opened.length = 0;
      asked.length = 0;
      answer = true;
      for (const raw of [
        { type: 'openFile', path: '/etc/hostname' },
        { type: 'openFile', path: path.join(workspaceDir(), 'README.md') },
        { type: 'openFile', path: 'command:workbench.action.quit' },
        { type: 'openFile', path: { toString: () => '/etc/hostname' } },
        { type: 'reveal', file: '/etc/hostname', entryId: 'a0000001' },
        { type: 'compactAgain', file: path.join(root, 'other.jsonl') },
      ]) {
        await services.panel.receive(raw);
      }
      assert.strictEqual(opened.length, 0, 'nothing opened for unlisted links');
      assert.strictEqual(asked.length, 0, 'nothing asked for unlisted links');
      assert.deepStrictEqual(services.panel.pendingProposals(), [], 'no compaction started for another file');
      // Only file: documents were opened along the way (nothing with a command:, http:, vscode: … URI).
      const schemes = new Set(docs.filter((u) => cases.some((c) => c.real === u.fsPath) || u.scheme !== 'file').map((u) => u.scheme));
      for (const s of schemes) assert.ok(['file', 'git', 'output', 'vscode-userdata'].includes(s), `opened a ${s}: document`);
      assert.ok(!docs.some((u) => /passwd|hostname|quit|example\.invalid/.test(u.toString())), docs.map(String).join('\n'));
    } finally {
      fileLinks.open = originalOpen;
      fileLinks.confirm = originalConfirm;
      for (const s of subs) s.dispose();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });
});
