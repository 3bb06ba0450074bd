// One truth for numbers (issue 8 item 8): for the same session, the status bar, the tree's compaction rows,
// the summary panel and `arbor context --json` of the built CLI report the same context tokens, window,
// and compaction before/after.
import * as assert from 'assert';
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { formatTokens } from '../../../src/engine/tokens/formatTokens';
import { repoRoot } from '../../support/fixtures';
import { arborApi, children, fixtureFile, item, sessionNode, sessionsDir, withSetting, workspaceSession } from './arborHelpers';

interface CliNumbers {
  tokens: number;
  contextWindow: number;
  percent: number;
  estimated: boolean;
  windowSource: string;
  compactions: { entryId: string; tokensBefore: number | null; tokensAfter: number }[];
}

function cliNumbers(file: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliNumbers> {
  const estimator = vscode.workspace.getConfiguration('arbor').get<string>('tokenEstimator', 'tokenizer');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(repoRoot, 'dist', 'cli.js'), 'context', file, '--json', '--estimator', estimator, ...args],
      { maxBuffer: 64 << 20, env: { ...process.env, ...env } },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`arbor context failed: ${stderr}`));
        else resolve((JSON.parse(stdout) as { numbers: CliNumbers }).numbers);
      },
    );
  });
}

/** The fixture with its mock models renamed to a real one, opened in Arbor (an old session: not live). */
async function withRealModel(fixture: string): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-numbers-'));
  const file = path.join(dir, `${fixture}-gpt41.jsonl`);
  const text = fs
    .readFileSync(fixtureFile(fixture), 'utf8')
    .replace(/"provider":"mock-openai","modelId":"mock-coder"/g, '"provider":"openai","modelId":"gpt-4.1"')
    .replace(/"provider":"mock-openai","model":"mock-coder"/g, '"provider":"openai","model":"gpt-4.1"');
  assert.match(text, /"modelId":"gpt-4\.1"/);
  fs.writeFileSync(file, text);
  const old = new Date(Date.now() - 3600_000);
  fs.utimesSync(file, old, old);
  assert.strictEqual(await vscode.commands.executeCommand<string>('arbor.openSessionFile', vscode.Uri.file(file)), file);
  return file;
}

async function assertSameNumbers(file: string, cliArgs: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<CliNumbers> {
  const api = await arborApi();
  const { services } = api.internals;
  const cli = await cliNumbers(file, cliArgs, env);
  // Status bar.
  services.setActive(file);
  await api.internals.statusBar.update();
  const bar = api.internals.statusBar.current;
  assert.ok(bar.use, 'the status bar shows the session');
  assert.strictEqual(bar.use.tokens.tokens, cli.tokens, 'context tokens: status bar vs arbor context');
  assert.strictEqual(bar.use.contextWindow, cli.contextWindow, 'window: status bar vs arbor context');
  assert.strictEqual(
    bar.text,
    `$(layers) ${cli.estimated ? '~' : ''}${formatTokens(cli.tokens)} / ${formatTokens(cli.contextWindow)} (${cli.percent}%)`,
  );
  if (!cliArgs.includes('--context-window'))
    assert.strictEqual(bar.use.figure.windowSource, cli.windowSource, 'the window is named the same');
  assert.strictEqual(bar.use.figure.estimated, cli.estimated);
  // Tree rows and panel, for every compaction the tree shows.
  await children(await sessionNode(file));
  assert.ok(cli.compactions.length > 0, 'the session has compactions');
  let rows = 0;
  for (const c of cli.compactions) {
    const node = services.tree.nodeForEntry(file, c.entryId);
    if (node) {
      rows++;
      const description = String((await item(node)).description);
      assert.ok(c.tokensBefore !== null);
      assert.ok(
        description.includes(`${formatTokens(c.tokensBefore)} → ${formatTokens(c.tokensAfter)} tokens`),
        `tree row ${c.entryId}: "${description}" vs ${JSON.stringify(c)}`,
      );
    }
    const view = await vscode.commands.executeCommand<{ tokensBefore?: number; tokensAfter?: number }>('arbor.showSummary', {
      file,
      entryId: c.entryId,
    });
    assert.ok(view, `the panel shows ${c.entryId}`);
    assert.strictEqual(view.tokensBefore, c.tokensBefore ?? undefined, `panel before of ${c.entryId}`);
    assert.strictEqual(view.tokensAfter, c.tokensAfter, `panel after of ${c.entryId}`);
  }
  assert.ok(rows > 0, 'at least one compaction row was compared');
  return cli;
}

describe('One truth for numbers', () => {
  for (const fixture of ['02-compaction', '05-misc']) {
    it(
      `${fixture}: status bar, tree, panel and arbor context agree (window from arbor.modelContextWindows, given to ` +
        `the CLI as --context-window)`,
      async () => {
        const perModel = vscode.workspace.getConfiguration('arbor').get<Record<string, number>>('modelContextWindows', {});
        const window = perModel['mock-openai/mock-coder'];
        assert.ok(window, 'the test workspace sets a window for mock-coder');
        const cli = await assertSameNumbers(workspaceSession(fixture), ['--context-window', String(window)]);
        assert.strictEqual(cli.contextWindow, window);
      },
    );

    it(`${fixture}: without per-model settings both use the model table's default, with no flag`, async () => {
      const restore = await withSetting('modelContextWindows', {});
      try {
        const cli = await assertSameNumbers(workspaceSession(fixture));
        assert.strictEqual(cli.contextWindow, 128000);
      } finally {
        await restore();
      }
    });
  }

  it(
    "Pi's models.json in the agent folder gives the window to both, named as its source; after a compaction with no " +
      'response the figure is estimated',
    async () => {
      const file = await withRealModel('02-compaction');
      const agent = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-pi-agent-'));
      fs.writeFileSync(
        path.join(agent, 'models.json'),
        JSON.stringify({ providers: { openai: { modelOverrides: { 'gpt-4.1': { contextWindow: 64000 } } } } }),
      );
      const restoreDir = await withSetting('piAgentDir', agent);
      try {
        const cli = await assertSameNumbers(file, [], { PI_CODING_AGENT_DIR: agent });
        assert.strictEqual(cli.contextWindow, 64000);
        assert.strictEqual(cli.windowSource, "Pi's models.json");
        // Cut the session right after its compaction: no response since, so no usage counts.
        const lines = fs.readFileSync(file, 'utf8').split('\n');
        const at = lines.findIndex((l) => l.includes('"type":"compaction"'));
        assert.ok(at > 0);
        const cut = file.replace(/\.jsonl$/, '-cut.jsonl');
        fs.writeFileSync(cut, `${lines.slice(0, at + 1).join('\n')}\n`);
        const old = new Date(Date.now() - 3600_000);
        fs.utimesSync(cut, old, old);
        assert.strictEqual(await vscode.commands.executeCommand<string>('arbor.openSessionFile', vscode.Uri.file(cut)), cut);
        const api = await arborApi();
        api.internals.services.setActive(cut);
        await api.internals.statusBar.update();
        const bar = api.internals.statusBar.current;
        const cutCli = await cliNumbers(cut, [], { PI_CODING_AGENT_DIR: agent });
        assert.strictEqual(cutCli.estimated, true);
        assert.strictEqual(bar.use?.tokens.tokens, cutCli.tokens);
        assert.strictEqual(bar.text, `$(layers) ~${formatTokens(cutCli.tokens)} / ${formatTokens(64000)} (${cutCli.percent}%)`);
      } finally {
        await restoreDir();
      }
    },
  );

  it("a session on a real model gets the model table's window in VS Code and in the CLI (gpt-4.1: 1,047,576)", async () => {
    const file = await withRealModel('02-compaction');
    assert.ok(!fs.readFileSync(file, 'utf8').includes('mock-coder'));
    const cli = await assertSameNumbers(file);
    assert.strictEqual(cli.contextWindow, 1047576);
  });

  it('every session of the workspace: the status bar, the context panel and arbor context show the same context use', async () => {
    // One home (engine/operations/contextUse.ts): the extension and the CLI only say where the window and Pi's settings come from.
    const restore = await withSetting('modelContextWindows', {});
    try {
      const api = await arborApi();
      const files = fs
        .readdirSync(sessionsDir())
        .filter((f) => f.endsWith('.jsonl'))
        .map((f) => path.join(sessionsDir(), f));
      assert.ok(files.length >= 5, 'the workspace has its sessions');
      for (const file of files) {
        const cli = await cliNumbers(file, []);
        api.internals.services.setActive(file);
        await api.internals.statusBar.update();
        const use = api.internals.statusBar.current.use;
        assert.ok(use, `the status bar shows ${file}`);
        const bar = {
          tokens: use.figure.tokens,
          contextWindow: use.contextWindow,
          percent: use.figure.percent,
          estimated: use.figure.estimated,
          windowSource: use.figure.windowSource,
        };
        const { compactions: _, ...cliFigure } = cli;
        assert.deepStrictEqual(bar, cliFigure, `status bar vs arbor context: ${path.basename(file)}`);
        const view = await vscode.commands.executeCommand<{ tokens: number; contextWindow: number; threshold: number }>(
          'arbor.showContext',
          {
            file,
          },
        );
        assert.ok(view, `the context panel shows ${file}`);
        assert.deepStrictEqual(
          [view.tokens, view.contextWindow, view.threshold],
          [cli.tokens, cli.contextWindow, use.threshold],
          `context panel vs arbor context: ${path.basename(file)}`,
        );
      }
    } finally {
      await restore();
    }
  });
});
