import { anyOf } from './text';

/**
 * What the retention check reads of shell commands and their output (its
 * own reading): which program decides a command's exit status, when a
 * non-zero exit is an answer and not a failure (`grep` finding nothing),
 * which commands run tests and whether a run passed, and which commands undo
 * a change. Commands are read up to 4000 characters and outputs by their
 * start and end; no regex with nested quantifiers.
 */

const COMMAND_MAX = 4000;

/** The program whose exit status a command returns: the first word of its last pipeline stage (no pipefail in Pi's shell). */
export function statusProgram(command: string): string {
  const text = command.length > COMMAND_MAX ? command.slice(-COMMAND_MAX) : command;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === ';' || c === '\n' || c === '|') start = i + 1;
    else if (c === '&' && text[i + 1] === '&') {
      start = i + 2;
      i++;
    }
  }
  const words = text.slice(start).trim().split(/\s+/);
  let k = 0;
  while (k < words.length && /^(?:sudo|command|env|time|exec|nice|[A-Za-z_][A-Za-z0-9_]*=.*)$/.test(words[k])) k++;
  const word = (words[k] ?? '').replace(/^[('"]+/, '');
  const slash = word.lastIndexOf('/');
  return slash >= 0 ? word.slice(slash + 1) : word;
}

/** Programs whose exit status 1 with no output answers the question ("no match", "false", "no difference found"): not a failure. */
const EXIT_ONE_ANSWERS = new Set(['grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'diff', 'cmp', 'test', '[', '[[']);

/** The exit code Pi's bash tool appends to a failed command's output ("Command exited with code N"), or null. */
export function reportedExitCode(output: string): number | null {
  const tail = output.length > 400 ? output.slice(-400) : output;
  const m = /Command exited with code (\d{1,3})\s*$/.exec(tail);
  return m ? Number(m[1]) : null;
}

/** Whether an output says nothing but its exit status (Pi's "(no output)" placeholder and status line). */
export function isEmptyOutput(output: string): boolean {
  if (output.length > 400) return false;
  const t = output.replace(/\s*Command exited with code \d{1,3}\s*$/, '').trim();
  return t === '' || t === '(no output)';
}

/** A non-zero exit that is an answer: `grep`, `rg`, `diff`, `test`, `cmp` ... exiting 1 with no output. */
export function isNoMatchExit(command: string, exitCode: number | null | undefined, output: string): boolean {
  return exitCode === 1 && EXIT_ONE_ANSWERS.has(statusProgram(command)) && isEmptyOutput(output);
}

/** Commands that run a test suite. */
const TEST_COMMAND = anyOf(
  [
    '(?:npm|pnpm|yarn|bun)\\s+(?:run\\s+)?test\\b',
    '(?:npx\\s+|pnpm\\s+exec\\s+)?(?:jest|vitest|mocha|ava|pytest|rspec|phpunit|karma|jasmine|playwright\\s+test)\\b',
    '(?:go|cargo|dotnet|mix|deno|swift)\\s+test\\b',
    'make\\s+(?:check|test)\\b',
    'python3?\\s+-m\\s+(?:pytest|unittest)\\b',
    '(?:gradle|\\./gradlew|mvn)\\s+test\\b',
    'ctest\\b',
    'tox\\b',
  ],
  '',
  '(?:^|[\\s;&|(])',
);
const NODE_TEST = /(?:^|[\s;&|(])node\s/;

export function isTestCommand(command: string): boolean {
  const c = command.length > COMMAND_MAX ? command.slice(0, COMMAND_MAX) : command;
  return TEST_COMMAND.test(c) || (NODE_TEST.test(c) && / --test\b/.test(c));
}

const FAILED_COUNT = anyOf(
  [
    '#\\s*fail\\s+[1-9]\\d*',
    '\\b[1-9]\\d*\\s+(?:failing|failed|failures?|errors?)\\b',
    '\\bTests?:\\s+[1-9]\\d*\\s+failed',
    '^FAIL\\b',
    '\\bFAILED\\b',
    '^not ok\\b',
    'test result: FAILED',
    '^--- FAIL',
    '\\bAssertionError\\b',
  ],
  'm',
);
const PASSED_COUNT =
  /(?:#\s*fail\s+0\b|\b0\s+(?:failing|failed|failures)\b|\b\d+\s+passing\b|\b\d+\s+passed\b|test result: ok|^ok\s|\ball (?:\d+ )?tests? pass|#\s*pass\s+\d+)/im;

/**
 * Whether a test run passed, read from its output's start and end and its
 * error flag: counts of failures first ("# fail 2", "3 failing", "FAIL"),
 * then counts of passes ("# fail 0", "12 passing"), then the exit status of
 * a command whose last program runs the tests. null when the output does
 * not say (a run piped into `grep`, say, that printed nothing of it).
 */
export function testOutcome(command: string, output: string, failed: boolean): { passed: boolean; evidence: string } | null {
  const text = output.length > 12_000 ? `${output.slice(0, 4000)}\n${output.slice(-8000)}` : output;
  const fail = FAILED_COUNT.exec(text);
  if (fail) return { passed: false, evidence: lineAt(text, fail.index) };
  const pass = PASSED_COUNT.exec(text);
  if (pass) return { passed: true, evidence: lineAt(text, pass.index) };
  const piped = /\|/.test(command.length > COMMAND_MAX ? command.slice(-COMMAND_MAX) : command);
  if (piped) return null;
  if (failed) return { passed: false, evidence: lastLine(text) || 'the command failed' };
  return { passed: true, evidence: lastLine(text) || 'the command succeeded' };
}

function lineAt(text: string, at: number): string {
  const start = text.lastIndexOf('\n', at) + 1;
  let end = text.indexOf('\n', at);
  if (end < 0) end = text.length;
  return text.slice(start, Math.min(end, start + 200)).trim();
}

function lastLine(text: string): string {
  const t = text.replace(/\s*Command exited with code \d{1,3}\s*$/, '').trimEnd();
  return lineAt(t, Math.max(0, t.lastIndexOf('\n') + 1));
}

/** A command that undoes a change (git revert/reset/restore/checkout --/stash, a reversed patch). */
const REVERT_COMMAND =
  /\bgit\s+(?:revert|reset\s+--hard|restore|checkout\s+(?:--\s|\S+\s+--\s|HEAD\b)|stash(?!\s+list))\b|\b(?:patch|git\s+apply)\s+(?:-R|--reverse)\b/;
/** Words that say a change was undone. */
export const REVERT_WORDS =
  /\b(?:revert(?:ed|ing|s)?|undid|undone|undo(?:ing|es)?|roll(?:ed|ing)?[ -]?back|backed out|back(?:ing)? out)\b/i;

export function isRevertCommand(command: string): boolean {
  const c = command.length > COMMAND_MAX ? command.slice(0, COMMAND_MAX) : command;
  return REVERT_COMMAND.test(c) || REVERT_WORDS.test(c);
}
