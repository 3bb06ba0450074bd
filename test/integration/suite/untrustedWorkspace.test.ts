// A workspace's .vscode/settings.json cannot choose the summarizer's host, Pi's executable or the folders Arbor
// reads (issue 13 item 9); Continue in Pi starts Pi without a shell.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { startFakeProvider, type FakeProviderServer } from '../../support/fakeProvider';
import type { Notification } from '../../../src/vscode/platform/notify';
import { arborApi, fixtureFile, waitFor, withSetting, workspaceDir } from './arborHelpers';

describe('Untrusted workspace settings', function () {
  this.timeout(60_000);
  let userServer: FakeProviderServer;
  let workspaceServer: FakeProviderServer;
  let dir: string;
  let settingsFile: string;
  let originalSettings: string;
  const restore: (() => Promise<void>)[] = [];
  const key = `sk-untrusted-${Date.now().toString(36)}`;

  /** What a hostile repository's settings file sets (plus one harmless setting, to know VS Code has read the file). */
  async function writeWorkspaceSettings(extra: Record<string, unknown>): Promise<void> {
    const marker = `marker-${Date.now().toString(36)}`;
    fs.writeFileSync(
      settingsFile,
      JSON.stringify({ ...JSON.parse(originalSettings), ...extra, 'arbor.summarizer.model': marker }, null, 2),
    );
    await waitFor(
      () => vscode.workspace.getConfiguration('arbor').inspect('summarizer.model')?.workspaceValue === marker,
      'VS Code to read the workspace settings',
    );
  }

  before(async () => {
    await arborApi();
    userServer = await startFakeProvider();
    workspaceServer = await startFakeProvider();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-untrusted-'));
    settingsFile = path.join(workspaceDir(), '.vscode', 'settings.json');
    originalSettings = fs.readFileSync(settingsFile, 'utf8');
    await vscode.commands.executeCommand('arbor.setApiKey', 'openai', key);
  });

  after(async () => {
    fs.writeFileSync(settingsFile, originalSettings);
    for (const r of restore.reverse()) await r();
    await vscode.commands.executeCommand('arbor.setApiKey', 'openai', '');
    await userServer.stop();
    await workspaceServer.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('declares limited support in untrusted workspaces and machine scope for the host, executable and folder settings', () => {
    const ext = vscode.extensions.getExtension('arbor-dev.arbor')!;
    const pkg = ext.packageJSON as {
      capabilities: { untrustedWorkspaces: { supported: string; restrictedConfigurations: string[] } };
      contributes: { configuration: { properties: Record<string, { scope?: string }> } };
    };
    const keys = ['arbor.summarizer.baseURL', 'arbor.piPath', 'arbor.piAgentDir', 'arbor.sessionDir'];
    assert.strictEqual(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
    assert.deepStrictEqual([...pkg.capabilities.untrustedWorkspaces.restrictedConfigurations].sort(), [...keys].sort());
    for (const k of keys)
      assert.ok(['machine', 'application'].includes(pkg.contributes.configuration.properties[k].scope ?? ''), `${k} scope`);
  });

  it("a workspace baseURL does not receive the summary request or the key; the user's does", async () => {
    restore.push(await withSetting('summarizer.baseURL', userServer.openaiBaseURL));
    await writeWorkspaceSettings({ 'arbor.summarizer.provider': 'openai', 'arbor.summarizer.baseURL': workspaceServer.openaiBaseURL });
    const file = path.join(dir, 'redirect.jsonl');
    fs.copyFileSync(fixtureFile('01-plain'), file);
    const old = new Date(Date.now() - 3600_000);
    fs.utimesSync(file, old, old);
    await vscode.commands.executeCommand('arbor.openSessionFile', vscode.Uri.file(file));
    await vscode.commands.executeCommand('arbor.compact', { file }, { instructions: '', review: false });
    assert.strictEqual(workspaceServer.requests.length, 0, 'nothing sent to the host the workspace chose');
    assert.ok(userServer.requests.length >= 1, "the request went to the user's server");
    assert.ok(JSON.stringify(userServer.requests[0].headers).includes(key), 'with the stored key');
  });

  it("a workspace piPath is not run; Continue in Pi runs the user's Pi with the file as one argument (no shell)", async () => {
    const evilMarker = path.join(dir, 'workspace-pi-ran');
    const evil = path.join(dir, 'workspace-pi');
    fs.writeFileSync(evil, `#!/bin/sh\ntouch '${evilMarker}'\n`, { mode: 0o755 });
    const argsFile = path.join(dir, 'user-pi-args');
    const userPi = path.join(dir, 'user-pi');
    fs.writeFileSync(userPi, `#!/bin/sh\nprintf '%s\\n' "$@" > '${argsFile}.tmp' && mv '${argsFile}.tmp' '${argsFile}'\n`, { mode: 0o755 });
    restore.push(await withSetting('piPath', userPi));
    await writeWorkspaceSettings({ 'arbor.piPath': evil });

    // A crafted name: command substitution, quotes and spaces (a shell string would run `touch pwned`).
    const crafted = path.join(dir, `a $(touch pwned) "q" 'x' b.jsonl`);
    fs.copyFileSync(fixtureFile('05-misc'), crafted);
    const old = new Date(Date.now() - 3600_000);
    fs.utimesSync(crafted, old, old);
    await vscode.commands.executeCommand('arbor.openSessionFile', vscode.Uri.file(crafted));
    const terminal = await vscode.commands.executeCommand<vscode.Terminal>('arbor.continueInPi', { file: crafted });
    assert.ok(terminal, 'a terminal');
    try {
      const options = terminal.creationOptions as vscode.TerminalOptions;
      assert.strictEqual(options.shellPath, userPi, "Pi is the terminal's process");
      assert.deepStrictEqual(options.shellArgs, ['--session', crafted]);
      await waitFor(() => fs.existsSync(argsFile), "the user's Pi to run", 20_000);
      assert.deepStrictEqual(
        fs.readFileSync(argsFile, 'utf8').split('\n').filter(Boolean),
        ['--session', crafted],
        'the file name arrives as one argument, unexpanded',
      );
      assert.ok(!fs.existsSync(evilMarker), "the workspace's executable did not run");
      const cwd = typeof options.cwd === 'string' ? options.cwd : (options.cwd?.fsPath ?? workspaceDir());
      for (const d of new Set([cwd, dir, workspaceDir()]))
        assert.ok(!fs.existsSync(path.join(d, 'pwned')), `nothing expanded the name (in ${d})`);
    } finally {
      terminal.dispose();
    }
  });

  it('workspace sessionDir and piAgentDir do not change the folders Arbor reads', async () => {
    const api = await arborApi();
    const evilSessions = path.join(dir, 'evil-sessions');
    fs.mkdirSync(evilSessions);
    const planted = path.join(evilSessions, '2026-01-01T00-00-00-000Z_planted.jsonl');
    fs.copyFileSync(fixtureFile('01-plain'), planted);
    const listedBefore = api
      .listSessions()
      .filter((s) => s.source === 'workspace')
      .map((s) => s.file)
      .sort();
    assert.ok(listedBefore.length > 0);
    await writeWorkspaceSettings({ 'arbor.sessionDir': evilSessions, 'arbor.piAgentDir': dir });
    await api.refresh();
    const listed = api.listSessions().map((s) => s.file);
    assert.ok(!listed.includes(planted), 'the planted folder is not read');
    assert.deepStrictEqual(
      api
        .listSessions()
        .filter((s) => s.source === 'workspace')
        .map((s) => s.file)
        .sort(),
      listedBefore,
      "the user's session folder as before",
    );
  });

  it('the hint when Pi is missing names the current Pi package', async () => {
    const notes: Notification[] = [];
    const sub = (await arborApi()).internals.onDidNotify((n) => notes.push(n));
    const r = await withSetting('piPath', path.join(dir, 'no-such-pi'));
    try {
      const file = path.join(dir, 'redirect.jsonl');
      assert.strictEqual(await vscode.commands.executeCommand('arbor.continueInPi', { file }), undefined);
      const hint = notes.find((n) => n.message.includes('was not found'));
      assert.ok(hint, 'a hint');
      assert.match(hint.message, /@earendil-works\/pi-coding-agent/);
      assert.doesNotMatch(hint.message, /@mariozechner/);
    } finally {
      sub.dispose();
      await r();
    }
  });
});
