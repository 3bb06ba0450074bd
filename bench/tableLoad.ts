/**
 * `node out/bench/tableLoad.js [--runs N] [--table FILE] [--script FILE]` (after `npm run compile`): what the
 * o200k rank table costs, each sample in a fresh process (nothing cached, the JIT cold), best and median of N
 * (default 7), since the machine is shared and noisy:
 * - load: loadRankTable() of the table (default dist/o200k.bin), what the tokenizer estimator pays once, on
 *   its first count (src/engine/tokens/o200kTable.ts);
 * - build: o200kTableBytes() of the generator (default scripts/o200kTable.mjs, which reads gpt-tokenizer's
 *   o200k_base ranks), what `npm run compile` and `npm run build` pay.
 * `--table` and `--script` measure another table or generator (an older one) the same way.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const repo = path.resolve(__dirname, '..', '..');

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
}

/** Milliseconds `body` (JavaScript that sets `ms`) reports in a fresh Node process. */
function freshSample(body: string, module: boolean): number {
  const args = module ? ['--input-type=module', '-e', body] : ['-e', body];
  return Number(execFileSync(process.execPath, args, { cwd: repo, encoding: 'utf8' }).trim().split('\n').pop());
}

function summary(label: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  return `${label}: best ${sorted[0].toFixed(1)} ms, median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms (${samples.length} fresh processes)`;
}

function main(): void {
  const runs = Number(option('runs') ?? 7);
  const table = path.resolve(option('table') ?? path.join(repo, 'dist', 'o200k.bin'));
  const script = path.resolve(option('script') ?? path.join(repo, 'scripts', 'o200kTable.mjs'));
  const loader = path.join(__dirname, '..', 'src', 'engine', 'tokens', 'o200kTable.js');
  const load =
    `const { loadRankTable } = require(${JSON.stringify(loader)});` +
    `const t0 = performance.now(); loadRankTable(${JSON.stringify(table)}); console.log(performance.now() - t0);`;
  const build =
    `const { o200kTableBytes } = await import(${JSON.stringify(pathToFileURL(script).href)});` +
    `const t0 = performance.now(); o200kTableBytes(); console.log(performance.now() - t0);`;
  const loads: number[] = [];
  const builds: number[] = [];
  // Alternated, so that a burst of load from another process weighs on both alike.
  for (let i = 0; i < runs; i++) {
    loads.push(freshSample(load, false));
    builds.push(freshSample(build, true));
  }
  process.stdout.write(`${summary(`load ${path.relative(repo, table)}`, loads)}\n`);
  process.stdout.write(`${summary(`build by ${path.relative(repo, script)}`, builds)}\n`);
}

main();
