// Runs the integration suite (out/test/integration/suite) inside VS Code (code-server's extension host).
//   node out/test/integration/run.js [--extension <dir>] [--tests <module>] [--workspace <fixture dir>]
// Defaults are Arbor's: the repo root, its compiled suite and test/fixtures/workspace (copied to a temp dir).
// Env: E2E_GREP (mocha grep), E2E_TIMEOUT_MS, ARBOR_VSCODE_TEST_DIR (see scripts/vscode-test/install.sh).
// Exit code: 0 all passed, 1 failures, 2 infrastructure problem.
import * as path from 'path';
import { parseArgs } from 'util';
import { runExtensionTests } from '../support/vscode/runExtensionTests';
import { repoRoot, runLogDir, tempWorkspace } from '../support/vscode/sandbox';
import { FIXTURE_USER_SETTINGS } from '../support/vscode/userSettings';

async function main(): Promise<number> {
  const root = repoRoot();
  const { values } = parseArgs({
    options: { extension: { type: 'string' }, tests: { type: 'string' }, workspace: { type: 'string' } },
  });
  const logDir = runLogDir('integration-logs');
  const workspace = tempWorkspace(path.resolve(values.workspace ?? path.join(root, 'test/fixtures/workspace')));
  try {
    return await runExtensionTests({
      extensionDevelopmentPath: path.resolve(values.extension ?? root),
      extensionTestsPath: path.resolve(values.tests ?? path.join(root, 'out/test/integration/suite/index.js')),
      workspaceFolder: workspace.folder,
      logDir,
      userSettings: FIXTURE_USER_SETTINGS,
      // A language-model provider the tests summarize with (issue 33): VS Code's real Language Model API, no network.
      extensions: [path.join(root, 'test', 'fixtures', 'extensions', 'test-language-models')],
    });
  } finally {
    workspace.dispose();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(2);
  },
);
