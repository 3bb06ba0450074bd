// Mocha entry loaded by VS Code as extensionTestsPath: runs every *.test.js in this folder
// (bdd describe/it, 60 s timeout, $E2E_GREP, results to $E2E_RESULT_FILE).
import { runMochaSuite } from '../../support/vscode/mochaSuite';

export function run(): Promise<void> {
  return runMochaSuite({ testsDir: __dirname, suffix: '.test.js', timeoutMs: 60_000 });
}
