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
  for (const file of fs.readdirSync(options.testsDir).filter((f) => f.endsWith(suffix)).sort()) {
    mocha.addFile(path.join(options.testsDir, file));
  }
  const resultFile = options.resultFile ?? process.env[RESULT_FILE_ENV];
  const tests: TestResult[] = [];
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      const passed = tests.filter((t) => t.state === 'passed').length;
      if (resultFile) writeResults(resultFile, { passed, failed: tests.length - passed, tests });
      if (failures > 0) reject(new Error(`${failures} test(s) failed`));
      else resolve();
    });
    runner.on('pass', (t) => tests.push({ title: t.fullTitle(), state: 'passed', durationMs: t.duration }));
    runner.on('fail', (t, err) =>
      tests.push({ title: t.fullTitle(), state: 'failed', durationMs: t.duration, error: String(err?.message ?? err).trim() }),
    );
  });
}
