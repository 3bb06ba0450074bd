// Runs a compiled mocha suite inside code-server's (Node) extension host, driven by headless Chromium:
// the workbench loads extensionTestsPath from the URL payload and reports back through
// window.codeAutomationLog / window.codeAutomationExit.
import * as fs from 'fs';
import * as path from 'path';
import { format } from 'util';
import { launchBrowser, type LaunchedBrowser } from './browser';
import { startCodeServer, workbenchUrl, type CodeServer } from './codeServer';
import { printResults, readResults, RESULT_FILE_ENV, summaryLine } from './results';
import { makeTempDir, removeDir } from './sandbox';

export interface RunExtensionTestsOptions {
  extensionDevelopmentPath: string;
  /** Module exporting run(): Promise<void>, e.g. out/test/integration/suite/index.js */
  extensionTestsPath: string;
  workspaceFolder: string;
  env?: Record<string, string>;
  /** Added to the test VS Code's user settings. */
  userSettings?: object;
  /** Extension folders installed beside the one under test (CodeServerOptions.extensions). */
  extensions?: string[];
  /** Whole-run limit (default: $E2E_TIMEOUT_MS or 900000 = 15 min). */
  timeoutMs?: number;
  /** Keeps code-server.log and the VS Code logs here. */
  logDir?: string;
  /** Default: console.log */
  write?: (line: string) => void;
}

/** 0: all passed; 1: test failures or a runner error; 2: infrastructure problem or timeout. */
export type ExitCode = 0 | 1 | 2;

/** Lines that are expected offline and say nothing about the tests. */
const NOISE = [
  /open-vsx\.org/,
  /ENOTFOUND .*(microsoft|visualstudio)\.com/,
  /vsda/,
  /authentication provider 'github'/,
  /^Creation of workbench contribution/,
  /^Canceled: Canceled/, // extension hosts being stopped after the run
];

export async function runExtensionTests(options: RunExtensionTestsOptions): Promise<ExitCode> {
  const write = options.write ?? ((line: string) => console.log(line));
  const timeoutMs = options.timeoutMs ?? (Number(process.env.E2E_TIMEOUT_MS) || 900_000);
  const testsPath = path.resolve(options.extensionTestsPath);
  if (![testsPath, `${testsPath}.js`, path.join(testsPath, 'index.js')].some((p) => fs.existsSync(p))) {
    write(`vscode-test: extensionTestsPath not found: ${testsPath} (compiled? npx tsc -p .)`);
    write(summaryLine(0, 0));
    return 1;
  }
  if (options.logDir) write(`vscode-test: logs go to ${options.logDir}`);
  const resultDir = makeTempDir('arbor-ext-tests-');
  const resultFile = path.join(resultDir, 'results.json');
  const started = Date.now();
  let server: CodeServer | undefined;
  let browser: LaunchedBrowser | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    server = await startCodeServer({
      workspaceFolder: options.workspaceFolder,
      env: { ...options.env, [RESULT_FILE_ENV]: resultFile },
      logDir: options.logDir,
      userSettings: options.userSettings,
      extensions: options.extensions,
    });
    browser = await launchBrowser();
    const { page } = browser;

    let settle!: (outcome: { code: number } | { problem: string }) => void;
    const outcome = new Promise<{ code: number } | { problem: string }>((r) => (settle = r));
    // Both must exist before the workbench loads.
    await page.exposeFunction('codeAutomationLog', (type: string, args: unknown[]) => {
      const line = format(...(Array.isArray(args) ? args : [args]));
      if (!NOISE.some((re) => re.test(line))) write(`[vscode:${type}] ${line}`);
    });
    await page.exposeFunction('codeAutomationExit', (code: number) => settle({ code }));
    page.on('crash', () => settle({ problem: 'the browser page crashed' }));
    void server.exited.then((code) => settle({ problem: `code-server exited early (code ${code})` }));
    timer = setTimeout(() => settle({ problem: `the suite did not finish within ${timeoutMs} ms (E2E_TIMEOUT_MS)` }), timeoutMs);

    await page.goto(
      workbenchUrl({
        port: server.port,
        folder: options.workspaceFolder,
        extensionDevelopmentPath: options.extensionDevelopmentPath,
        extensionTestsPath: testsPath,
      }),
      // A loaded machine (several suites at once) can take more than the default 30 s to serve the workbench.
      { timeout: 180_000 },
    );
    const result = await outcome;
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if ('problem' in result) {
      write(`vscode-test: infrastructure error: ${result.problem}`);
      const partial = readResults(resultFile);
      if (!partial) {
        write('vscode-test: no test started (was the tests module loaded? see the log above and code-server.log)');
        write(summaryLine(0, 0));
      } else {
        if (partial.running) write(`vscode-test: still running: ${partial.running}`);
        printResults({ ...partial, failed: partial.failed + (partial.running ? 1 : 0) }, write);
      }
      return 2;
    }
    const results = readResults(resultFile);
    if (!results) {
      write(`vscode-test: the suite wrote no results (exit code ${result.code}); see the log above`);
      write(summaryLine(0, 0));
      return 1;
    }
    write(`vscode-test: extension host finished with code ${result.code} in ${seconds} s`);
    if (!results.complete) write(`vscode-test: the suite stopped before the end (last test: ${results.running ?? '?'})`);
    printResults(results, write);
    return result.code === 0 && results.complete && results.failed === 0 ? 0 : 1;
  } catch (err) {
    write(`vscode-test: infrastructure error: ${(err as Error).stack ?? err}`);
    write(summaryLine(0, 0));
    return 2;
  } finally {
    clearTimeout(timer);
    await browser?.close();
    await server?.stop();
    removeDir(resultDir);
  }
}
