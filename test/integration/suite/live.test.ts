// Live sessions (another process appends), the status bar, and settings.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { execFileSync } from 'child_process';
import * as vscode from 'vscode';
import {
  arborApi,
  children,
  fixtureFile,
  item,
  openCopy,
  rawTree,
  sessionNode,
  waitFor,
  withSetting,
  workspaceSession,
} from './arborHelpers';

function piAppend(file: string, entry: Record<string, unknown>): void {
  fs.appendFileSync(file, `${JSON.stringify({ timestamp: new Date().toISOString(), ...entry })}\n`);
}

describe('Live sessions and the status bar', () => {
  it('follows appends by another process (only new bytes), flags the session live, and shows new entries', async () => {
    const file = await openCopy('01-plain', 'live');
    const { services } = (await arborApi()).internals;
    await children(await sessionNode(file));
    const model = services.store.get(file)!;
    const indexBefore = model.index!;
    const leaf = rawTree(file).leafId;
    piAppend(file, {
      type: 'message',
      id: 'feed0001',
      parentId: leaf,
      message: { role: 'user', content: [{ type: 'text', text: 'A message Pi just wrote' }], timestamp: Date.now() },
    });
    await waitFor(async () => {
      const top = await children(await sessionNode(file));
      const last = top[top.length - 1];
      return last.type === 'entry' && last.entryId === 'feed0001';
    }, 'the appended entry in the tree');
    assert.strictEqual(model.index, indexBefore, 'the same index grew (tail read), no reload');
    assert.strictEqual(services.store.isLive(model), true);
    const session = await item(await sessionNode(file));
    assert.match(String(session.description), /live/);
    assert.match(String(session.contextValue), /:live/);
    // A cut-off line (Pi mid-write) is left for later; completing it adds the entry.
    const line = JSON.stringify({
      type: 'message',
      id: 'feed0002',
      parentId: 'feed0001',
      timestamp: new Date().toISOString(),
      message: { role: 'assistant', content: [{ type: 'text', text: 'done' }], stopReason: 'stop' },
    });
    fs.appendFileSync(file, line.slice(0, 40));
    await new Promise((r) => setTimeout(r, 400));
    fs.appendFileSync(file, `${line.slice(40)}\n`);
    await waitFor(async () => services.tree.nodeForEntry(file, 'feed0002'), 'the completed entry');
  });

  it('a session copied a moment ago is not live (liveness comes from bytes arriving, not the modification time)', async () => {
    const fresh = path.join(os.tmpdir(), `arbor-fresh-${Date.now().toString(36)}.jsonl`);
    fs.copyFileSync(fixtureFile('01-plain'), fresh); // mtime: now
    const opened = await vscode.commands.executeCommand<string>('arbor.openSessionFile', vscode.Uri.file(fresh));
    assert.strictEqual(opened, fresh);
    const { services } = (await arborApi()).internals;
    await children(await sessionNode(fresh));
    const model = services.store.get(fresh)!;
    assert.strictEqual(services.store.isLive(model), false);
    assert.doesNotMatch(String((await item(await sessionNode(fresh))).description), /live/);
  });

  it('Open Session File refuses a FIFO at once (no hang), naming it', async function () {
    if (process.platform === 'win32') this.skip();
    const fifo = path.join(os.tmpdir(), `arbor-fifo-${Date.now().toString(36)}.jsonl`);
    execFileSync('mkfifo', [fifo]);
    const opened = await vscode.commands.executeCommand<string | undefined>('arbor.openSessionFile', vscode.Uri.file(fifo));
    assert.strictEqual(opened, undefined);
    const { services } = (await arborApi()).internals;
    assert.strictEqual(services.store.get(fifo), undefined);
  });

  it('picks up a new session file in the sessions folder', async () => {
    const dir = workspaceSession('01-plain').replace(/[^/]+$/, '');
    const src = workspaceSession('05-misc');
    const copy = `${dir}2026-12-01T10-00-00-000Z_0000aaaa-bbbb-cccc-dddd-eeeeffff0000.jsonl`;
    fs.copyFileSync(src, copy);
    try {
      await waitFor(async () => (await children()).some((n) => n.file === copy), 'the new session listed');
    } finally {
      fs.rmSync(copy);
    }
    await waitFor(async () => !(await children()).some((n) => n.file === copy), 'the removed session gone');
  });

  it('status bar: tokens / window (percent) of the active session, coloured near the threshold', async () => {
    const api = await arborApi();
    const { services } = api.internals;
    const file = workspaceSession('04-split-turn');
    services.setActive(file);
    await api.internals.statusBar.update();
    const s = api.internals.statusBar.current;
    assert.match(s.text, /^\$\(layers\) ~?[\d.]+k? \/ 32\.8k \(\d+%\)$/); // ~: estimated (no response since the latest compaction)
    assert.ok(s.use && s.use.contextWindow === 32768);
    assert.strictEqual(s.use.threshold, 32768 - 16384);
    // A tiny window puts the same session over the threshold: error colour.
    const restore = await withSetting('modelContextWindows', { 'mock-openai/mock-coder': 17000 });
    try {
      await api.internals.statusBar.update();
      assert.strictEqual(api.internals.statusBar.current.background, 'statusBarItem.errorBackground');
      assert.strictEqual(api.internals.statusBar.current.use!.overThreshold, true);
    } finally {
      await restore();
    }
  });

  it('arbor.autoCompact: compacts a session over the threshold once its file is idle', async () => {
    const api = await arborApi();
    const restore = [
      await withSetting('autoCompact', true),
      await withSetting('autoCompactIdleSeconds', 1),
      await withSetting('liveWriteSeconds', 1),
      await withSetting('modelContextWindows', { 'mock-openai/mock-coder': 17000 }),
    ];
    try {
      const file = await openCopy('01-plain', 'auto');
      await children(await sessionNode(file));
      const leaf = rawTree(file).leafId;
      piAppend(file, {
        type: 'message',
        id: 'feed1001',
        parentId: leaf,
        message: { role: 'user', content: 'one more question', timestamp: Date.now() },
      });
      const entry = await waitFor(
        () => {
          const entries = fs
            .readFileSync(file, 'utf8')
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as Record<string, unknown>);
          const last = entries[entries.length - 1];
          return last.type === 'compaction' ? last : undefined;
        },
        'the automatic compaction',
        20_000,
      );
      assert.strictEqual(entry!.parentId, 'feed1001');
      assert.ok(!api.internals.services.panel.pendingProposals().length, 'no review for automatic compaction');
    } finally {
      for (const r of restore.reverse()) await r();
    }
  });

  it('contributes its settings with descriptions', () => {
    const pkg = vscode.extensions.getExtension('arbor-dev.arbor')!.packageJSON as {
      contributes: { configuration: { properties: Record<string, { markdownDescription?: string; description?: string }> } };
    };
    const props = pkg.contributes.configuration.properties;
    for (const key of [
      'arbor.summarizer.provider',
      'arbor.summarizer.model',
      'arbor.summarizer.baseURL',
      'arbor.tokenEstimator',
      'arbor.autoCompact',
      'arbor.autoCompactIdleSeconds',
      'arbor.piAgentDir',
      'arbor.sessionDir',
    ]) {
      assert.ok(props[key], key);
      assert.ok((props[key].markdownDescription ?? props[key].description ?? '').length > 20, `${key} described`);
    }
  });
});
