/**
 * `node out/bench/estimatorRatio.js` (after `npm run compile`): issue 11
 * item 7. Open + index + plan on the 100 MB bench session with the chars
 * estimator and with the tokenizer estimator, in one bench run: each sample
 * is a fresh process (the tokenizer's load is part of what is measured), the
 * modes alternate, each is run ARBOR_BENCH_RUNS times (default 3) and the
 * median is reported, with the ratio to the chars median. (With
 * gpt-tokenizer, about 500 ms of the tokenizer's time was loading its tables,
 * and loading them on a worker thread while indexing gained nothing on 2
 * cores; Arbor's own counter loads its table in milliseconds.)
 * bench/tokenizerSpeed.ts compares the counters' speed in one process.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import * as path from 'node:path';
import { generateSession } from './generateSession';

interface Sample {
  mode: string;
  ms: number;
  maxRssMB: number;
  detail: { firstKept: string | null; tokensBefore: number | null; openAndIndexMs: number; planMs: number };
}

const repo = path.resolve(__dirname, '..', '..');
const file = path.join(repo, 'bench', '.data', 'session-100mb.jsonl');
const measure = path.join(__dirname, 'measure.js');

function sample(mode: string): Sample {
  const out = execFileSync(process.execPath, ['--max-old-space-size=4096', measure, mode, file], { cwd: repo, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!) as Sample;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true });
    await generateSession({ file, targetBytes: 100 * 1024 * 1024 });
  }
  const runs = Number(process.env.ARBOR_BENCH_RUNS ?? 3);
  const modes: [string, string][] = [
    ['arbor-chars', 'chars'],
    ['arbor', 'tokenizer'],
  ];
  const samples = new Map<string, Sample[]>(modes.map(([m]) => [m, []]));
  process.stdout.write(
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${availableParallelism()} cores\n`,
  );
  for (let r = 0; r < runs; r++) for (const [m] of modes) samples.get(m)!.push(sample(m));
  const chars = median(samples.get('arbor-chars')!.map((s) => s.ms));
  process.stdout.write(`open + index + plan, 100 MB session, median of ${runs} fresh processes:\n`);
  for (const [m, label] of modes) {
    const ss = samples.get(m)!;
    const ms = median(ss.map((s) => s.ms));
    const idx = median(ss.map((s) => s.detail.openAndIndexMs));
    const plan = median(ss.map((s) => s.detail.planMs));
    process.stdout.write(
      `  ${label.padEnd(22)} ${ms.toFixed(0).padStart(6)} ms (index ${idx} ms, plan ${plan} ms)  ` +
        `${(ms / chars).toFixed(2)}x chars   runs: ${ss.map((s) => s.ms.toFixed(0)).join(' ')}\n`,
    );
  }
  const plans = new Set(modes.slice(1).flatMap(([m]) => samples.get(m)!.map((s) => `${s.detail.firstKept} ${s.detail.tokensBefore}`)));
  process.stdout.write(`  tokenizer plans agree: ${plans.size === 1} (${[...plans].join(' | ')})\n`);
}

void main();
