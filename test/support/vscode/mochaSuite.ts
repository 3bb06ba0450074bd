// Runs the mocha test files of one folder and records the results; used by suite entry points
// that VS Code loads as extensionTestsPath (they run inside the extension host).
import * as fs from 'fs';
import * as path from 'path';
import Mocha from 'mocha';
import { RESULT_FILE_ENV, writeResults, type TestResult } from './results';

export interface MochaSuiteOptions {
  /** Folder whose files ending in `suffix` are loaded (not recursive). */
  testsDir: string;
  suffix?: string;
  timeoutMs?: number;
  /** Default: $E2E_GREP. */
  grep?: string;
  /** Default: $E2E_RESULT_FILE; nothing is written when neither is set. */
  resultFile?: string;
}

/** Resolves when all tests pass; rejects otherwise (VS Code then reports exit code 1). */
export function runMochaSuite(options: MochaSuiteOptions): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, reporter: 'spec', timeout: options.timeoutMs ?? 60_000 });
  const grep = options.grep ?? process.env.E2E_GREP;
  if (grep) mocha.grep(grep);
  const suffix = options.suffix ?? '.test.js';
  for (const file of fs
    .readdirSync(options.testsDir)
    .filter((f) => f.endsWith(suffix))
    .sort()) {
    mocha.addFile(path.join(options.testsDir, file));
  }
  const resultFile = options.resultFile ?? process.env[RESULT_FILE_ENV];
  const tests: TestResult[] = [];
  let running: string | undefined;
  // Rewritten after every test, so that a runner that times out can still report progress.
  const save = (complete: boolean) => {
    if (!resultFile) return;
    const passed = tests.filter((t) => t.state === 'passed').length;
    writeResults(resultFile, { passed, failed: tests.length - passed, tests, complete, running });
  };
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      running = undefined;
      save(true);
      if (failures > 0) reject(new Error(`${failures} test(s) failed`));
      else resolve();
    });
    runner.on('test', (t) => {
      running = t.fullTitle();
      save(false);
    });
    runner.on('pass', (t) => {
      running = undefined;
      tests.push({ title: t.fullTitle(), state: 'passed', durationMs: t.duration });
      save(false);
    });
    runner.on('fail', (t, err) => {
      running = undefined;
      const error = String(err?.message ?? err).trim();
      tests.push({ title: t.fullTitle(), state: 'failed', durationMs: t.duration, error });
      save(false);
    });
  });
}
