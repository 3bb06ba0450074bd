// Runs the UI tests (out/test/e2e/**/*.e2e.js) with mocha in this process, against code-server
// with the extension loaded and a headless Chromium page (shared through ./context).
//   node out/test/e2e/run.js [--extension <dir>] [--tests <dir>] [--workspace <fixture dir>] [--grep <re>]
// Defaults are Arbor's: the repo root, out/test/e2e and test/fixtures/workspace (copied to a temp dir).
// Screenshots of failing tests go to test-artifacts/screenshots. Exit: 0 passed, 1 failures, 2 infrastructure.
import * as fs from 'fs';
import * as path from 'path';
import { parseArgs } from 'util';
import Mocha from 'mocha';
import type { Page } from 'playwright-core';
import { launchBrowser, screenshot, waitForWorkbench, type LaunchedBrowser } from '../support/vscode/browser';
import { startCodeServer, type CodeServer } from '../support/vscode/codeServer';
import { summaryLine } from '../support/vscode/results';
import { repoRoot, runLogDir, tempWorkspace } from '../support/vscode/sandbox';
import { e2e, setE2EContext } from './context';
import { FIXTURE_USER_SETTINGS } from '../support/vscode/userSettings';

function findTests(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.e2e.js'))
    .map((f) => path.join(dir, f))
    .sort();
}

async function saveFailure(page: Page, title: string): Promise<void> {
  try {
    console.log(`    screenshot: ${await screenshot(page, `FAILED ${title}`)}`);
  } catch (err) {
    console.log(`    (no screenshot: ${(err as Error).message})`);
  }
}

function runMocha(files: string[], grep: string | undefined): Promise<{ passed: number; failed: number }> {
  const mocha = new Mocha({ ui: 'bdd', color: false, reporter: 'spec', timeout: 60_000 });
  if (grep) mocha.grep(grep);
  // Root hook: runs while the failing test's UI is still on screen.
  mocha.suite.afterEach(async function () {
    const test = this.currentTest;
    if (test?.state === 'failed') await saveFailure(e2e.page, test.fullTitle());
  });
  for (const f of files) mocha.addFile(f);
  const hookShots: Promise<void>[] = [];
  let passed = 0;
  let failed = 0;
  return new Promise((resolve) => {
    const runner = mocha.run(() => void Promise.all(hookShots).then(() => resolve({ passed, failed })));
    runner.on('pass', () => passed++);
    runner.on('fail', (t) => {
      failed++;
      if ((t as { type?: string }).type === 'hook') hookShots.push(saveFailure(e2e.page, t.fullTitle()));
    });
  });
}

async function main(): Promise<number> {
  const root = repoRoot();
  const { values } = parseArgs({
    options: {
      extension: { type: 'string' },
      tests: { type: 'string' },
      workspace: { type: 'string' },
      grep: { type: 'string' },
    },
  });
  const extensionPath = path.resolve(values.extension ?? root);
  const testsDir = path.resolve(values.tests ?? path.join(root, 'out/test/e2e'));
  const files = findTests(testsDir);
  if (files.length === 0) {
    console.log(`e2e: no *.e2e.js files under ${testsDir}`);
    console.log(summaryLine(0, 0));
    return 0;
  }
  const logDir = runLogDir('e2e-logs');
  console.log(`e2e: ${files.length} test file(s); logs go to ${logDir}`);
  const workspace = tempWorkspace(path.resolve(values.workspace ?? path.join(root, 'test/fixtures/workspace')));
  // Claude Code's and Codex's folders of this run (empty; a test puts sessions in them): never the machine's own.
  const agents = tempWorkspace();
  process.env.CLAUDE_CONFIG_DIR = path.join(agents.folder, 'claude');
  process.env.CODEX_HOME = path.join(agents.folder, 'codex');
  let server: CodeServer | undefined;
  let browser: LaunchedBrowser | undefined;
  try {
    server = await startCodeServer({
      workspaceFolder: workspace.folder,
      extensionDevelopmentPath: extensionPath,
      logDir,
      userSettings: FIXTURE_USER_SETTINGS,
      // The test language-model provider (issue 33): VS Code's own model picker, consent prompt and API, no network.
      extensions: [path.join(root, 'test', 'fixtures', 'extensions', 'test-language-models')],
    });
    browser = await launchBrowser();
    // A loaded machine can take more than the default 30 s to serve the workbench.
    await browser.page.goto(server.url, { timeout: 180_000 });
    await waitForWorkbench(browser.page);
    setE2EContext({
      page: browser.page,
      serverUrl: server.url,
      workspacePath: workspace.folder,
      extensionPath,
      userSettingsPath: path.join(server.userDataDir, 'Machine', 'settings.json'),
    });
    const { passed, failed } = await runMocha(files, values.grep ?? process.env.E2E_GREP);
    console.log(summaryLine(passed, failed));
    return failed > 0 ? 1 : 0;
  } catch (err) {
    console.log(`e2e: infrastructure error: ${(err as Error).stack ?? err}`);
    if (browser) await saveFailure(browser.page, 'infrastructure error');
    console.log(summaryLine(0, 0));
    return 2;
  } finally {
    setE2EContext(undefined);
    await browser?.close();
    await server?.stop();
    workspace.dispose();
    agents.dispose();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(2);
  },
);
