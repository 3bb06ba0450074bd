/**
 * `node out/bench/treeCompare.js BEFORE_ROOT [AFTER_ROOT]` (after `npm run compile` in both): `arbor tree`'s output
 * made by two checkouts (BEFORE_ROOT: a build of the code before a change, with its out/ from `npm run compile`;
 * AFTER_ROOT: this checkout by default) compared byte for byte (stdout, stderr, exit code) on every session file under
 * test/fixtures, on generated sessions with damaged copies (test/support: the unit tests' generators, a fixed seed) and
 * on two sessions over the 4 MB past which a session is streamed (bench/generateTreeSession.ts, and a copy with blank
 * and indented lines, keys written twice and a 6 MB line), in every output mode (default, --json, --estimator
 * chars|tokenizer, with and without --json).
 * Prints the number of comparisons and each difference; exits 1 on any difference.
 *
 * Each checkout's cases run in one child process (`--run ROOT CASES_FILE`), which answers one JSON line per case.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { renderSession, sessionArb } from '../test/support/arbSession';
import { mutate, mutationArb } from '../test/support/sessionMutations';
import { generateTreeSession } from './generateTreeSession';
import { writeDamagedTreeSession } from '../test/support/damagedTreeSession';

const run = promisify(execFile);

interface Case {
  file: string;
  flags: string[];
}

interface Answer {
  code: number;
  out: string;
  err: string;
}

const FLAGS = [
  [],
  ['--json'],
  ['--estimator', 'chars'],
  ['--estimator', 'chars', '--json'],
  ['--estimator', 'tokenizer'],
  ['--estimator', 'tokenizer', '--json'],
];

function sessionFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sessionFiles(p));
    else if (e.name.endsWith('.jsonl')) out.push(p);
  }
  return out.sort();
}

/** Generated sessions, then damaged copies of them (the unit tests' generators, seeded: the same files each run). */
function generatedFiles(dir: string, count: number): string[] {
  const samples = fc.sample(fc.tuple(sessionArb, fc.array(mutationArb, { maxLength: 4 })), { numRuns: count, seed: 22 });
  return samples.map(([steps, mutations], k) => {
    const file = path.join(dir, `generated-${k}.jsonl`);
    writeFileSync(file, k % 2 ? mutate(renderSession(steps), mutations) : renderSession(steps));
    return file;
  });
}

/** Two sessions of about 6 MB (streamed, not read whole): one as generated, one damaged in the ways a large file is. */
function streamedFiles(dir: string): string[] {
  const plain = path.join(dir, 'streamed.jsonl');
  generateTreeSession({ file: plain, entries: 25_000, branchEvery: 7 });
  const damaged = path.join(dir, 'streamed-damaged.jsonl');
  writeDamagedTreeSession(damaged, { longLine: true });
  return [plain, damaged];
}

/** Child side: runs each case of CASES_FILE with ROOT's tree command, one JSON line per case. */
async function runCases(root: string, casesFile: string): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { treeCommand } = require(path.join(root, 'out', 'src', 'cli', 'commands', 'tree')) as typeof import('../src/cli/commands/tree');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { sanitizeOutput } = require(path.join(root, 'out', 'src', 'cli', 'output')) as typeof import('../src/cli/output');
  const cases = JSON.parse(readFileSync(casesFile, 'utf8')) as Case[];
  const lines: string[] = [];
  for (const c of cases) {
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (t: string) => out.push(sanitizeOutput(t)), err: (t: string) => err.push(sanitizeOutput(t)) };
    let answer: Answer;
    try {
      const code = await treeCommand([c.file, ...c.flags], io);
      answer = { code, out: out.join(''), err: err.join('\n') };
    } catch (e) {
      answer = { code: -1, out: out.join(''), err: `${err.join('\n')}\nthrown: ${(e as Error).message}` };
    }
    lines.push(JSON.stringify(answer));
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function answersOf(root: string, casesFile: string): Promise<Answer[]> {
  const { stdout: text } = await run(process.execPath, [__filename, '--run', root, casesFile], { encoding: 'utf8', maxBuffer: 1 << 30 });
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Answer);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--run') return runCases(args[1], args[2]);
  const before = args[0];
  const after = args[1] ?? path.resolve(__dirname, '..', '..');
  if (!before) throw new Error('usage: node out/bench/treeCompare.js BEFORE_ROOT [AFTER_ROOT]');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-tree-compare-'));
  try {
    const fixtures = sessionFiles(path.join(after, 'test', 'fixtures'));
    const generated = generatedFiles(dir, Number(process.env.ARBOR_COMPARE_GENERATED ?? 40));
    const files = [...fixtures, ...generated, ...streamedFiles(dir)];
    const cases: Case[] = [];
    for (const file of files) for (const flags of FLAGS) cases.push({ file, flags });
    const casesFile = path.join(dir, 'cases.json');
    writeFileSync(casesFile, JSON.stringify(cases));
    // Both checkouts at once (each its own child process): the comparison takes half the time.
    const [a, b] = await Promise.all([answersOf(before, casesFile), answersOf(after, casesFile)]);
    if (a.length !== cases.length || b.length !== cases.length) throw new Error(`answers: ${a.length} and ${b.length} of ${cases.length}`);
    let differ = 0;
    cases.forEach((c, k) => {
      if (JSON.stringify(a[k]) === JSON.stringify(b[k])) return;
      differ++;
      if (differ <= 20) process.stdout.write(`DIFFERS: ${path.relative(after, c.file)} ${c.flags.join(' ')}\n`);
    });
    process.stdout.write(
      `${cases.length} comparisons (${fixtures.length} fixture files + ${generated.length} generated + 2 streamed, ` +
        `${FLAGS.length} flag sets): ${differ} differ\n`,
    );
    process.exitCode = differ ? 1 : 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
