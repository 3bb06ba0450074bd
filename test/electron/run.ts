// Runs the integration suite in desktop VS Code through @vscode/test-electron.
//   node out/test/electron/run.js [--extension <dir>] [--tests <module>] [--workspace <fixture dir>] [--version <v>]
// Needs a display on Linux (e.g. `xvfb-run -a node out/test/electron/run.js`).
// Where VS Code cannot be downloaded (offline), prints "skipped: ..." and exits 0; other failures exit 1.
import * as path from 'path';
import { parseArgs } from 'util';
import { downloadAndUnzipVSCode, makeConsoleReporter, runTests, type ProgressReporter } from '@vscode/test-electron';
import { printResults, readResults, RESULT_FILE_ENV, summaryLine } from '../support/vscode/results';
import { makeTempDir, removeDir, repoRoot, tempWorkspace } from '../support/vscode/sandbox';

const OFFLINE_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT']);

/** True for the errors a download gives on a machine that cannot reach the VS Code update service. */
function isDownloadUnavailable(err: unknown): boolean {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (typeof e.code === 'string' && OFFLINE_CODES.has(e.code)) return true;
    if (typeof e.message === 'string' && /request timeout/i.test(e.message)) return true;
  }
  return false;
}

async function main(): Promise<number> {
  const root = repoRoot();
  const { values } = parseArgs({
    options: {
      extension: { type: 'string' },
      tests: { type: 'string' },
      workspace: { type: 'string' },
      version: { type: 'string' },
    },
  });
  // A failed download is rethrown as a plain "Failed to download and unzip VS Code"; the
  // network error behind it only reaches the reporter.
  const consoleReporter = await makeConsoleReporter();
  let reportedError: unknown;
  const reporter: ProgressReporter = {
    report: (r) => consoleReporter.report(r),
    error: (err) => {
      reportedError = err;
      consoleReporter.error(err);
    },
  };
  let vscodeExecutablePath: string;
  try {
    vscodeExecutablePath = await downloadAndUnzipVSCode({
      version: values.version ?? 'stable',
      cachePath: path.join(root, '.vscode-test'),
      timeout: 15_000,
      reporter,
    });
  } catch (err) {
    const cause = [err, reportedError].find(isDownloadUnavailable);
    if (!cause) throw err;
    console.log(`skipped: desktop VS Code cannot be downloaded here (${(cause as Error).message})`);
    return 0;
  }

  const tmp = makeTempDir('arbor-electron-');
  const resultFile = path.join(tmp, 'results.json');
  const workspace = tempWorkspace(path.resolve(values.workspace ?? path.join(root, 'test/fixtures/workspace')));
  try {
    let code: number;
    try {
      code = await runTests({
        vscodeExecutablePath,
        extensionDevelopmentPath: path.resolve(values.extension ?? root),
        extensionTestsPath: path.resolve(values.tests ?? path.join(root, 'out/test/integration/suite/index.js')),
        extensionTestsEnv: { [RESULT_FILE_ENV]: resultFile },
        // test-electron itself adds --no-sandbox, --disable-workspace-trust and fresh user/extension dirs.
        launchArgs: [workspace.folder, '--disable-extensions', '--disable-gpu'],
      });
    } catch (err) {
      console.log(`electron: VS Code run failed: ${(err as Error).message}`);
      if (process.platform === 'linux' && !process.env.DISPLAY) console.log('electron: no $DISPLAY; try xvfb-run -a');
      code = 1;
    }
    const results = readResults(resultFile);
    if (results) printResults(results);
    else console.log(summaryLine(0, 0));
    return code === 0 && results !== undefined && results.failed === 0 ? 0 : 1;
  } finally {
    workspace.dispose();
    removeDir(tmp);
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`electron: ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
