// The JSON result file written by a mocha suite and read back by the runners.
import * as fs from 'fs';

export interface TestResult {
  title: string;
  state: 'passed' | 'failed';
  durationMs?: number;
  error?: string;
}

export interface TestResults {
  passed: number;
  failed: number;
  tests: TestResult[];
  /** False while the suite is still running (the file is rewritten after every test). */
  complete: boolean;
  /** The test that started last and has not finished, if any. */
  running?: string;
}

/** Env var naming the result file; the runners set it, the suite writes it. */
export const RESULT_FILE_ENV = 'E2E_RESULT_FILE';

export function writeResults(file: string, results: TestResults): void {
  fs.writeFileSync(file, JSON.stringify(results, null, 2));
}

/** undefined when the file is missing or not a result file. */
export function readResults(file: string): TestResults | undefined {
  try {
    const r = JSON.parse(fs.readFileSync(file, 'utf8')) as TestResults;
    return Array.isArray(r.tests) && typeof r.passed === 'number' && typeof r.failed === 'number' ? r : undefined;
  } catch {
    return undefined;
  }
}

export function summaryLine(passed: number, failed: number): string {
  return `${passed} passed, ${failed} failed`;
}

/** One line per test, then the summary line alone on its line. */
export function printResults(results: TestResults, write: (line: string) => void = console.log): void {
  for (const t of results.tests) {
    const time = t.durationMs !== undefined ? ` (${t.durationMs} ms)` : '';
    write(`  ${t.state === 'passed' ? 'PASS' : 'FAIL'} ${t.title}${time}`);
    if (t.error) write(`       ${t.error.split('\n').join('\n       ')}`);
  }
  write(summaryLine(results.passed, results.failed));
}
