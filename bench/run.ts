/**
 * `npm run bench`: generates 10 MB and 100 MB sessions (deterministic, cached
 * in bench/.data), then measures open + index + plan in fresh processes, as
 * ratios against a naive baseline (read the text, JSON.parse every line) and
 * against Pi 0.73.1 (SessionManager.open + prepareCompaction) measured in the
 * same run. Best of N runs each, since the machine is shared and noisy.
 * First, the retention table (bench/retention.ts) and the summary probes
 * (bench/summaryProbes.ts; ARBOR_BENCH_PROBES=0 skips them).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { generateSession } from './generateSession';
import { retentionBench } from './retention';
import { agentsReadBench } from './agentsRead';
import { summaryProbesBench } from './summaryProbes';

interface Sample {
  mode: string;
  ms: number;
  maxRssMB: number;
  detail: unknown;
}

const repo = path.resolve(__dirname, '..', '..');
const dataDir = path.join(repo, 'bench', '.data');
const measure = path.join(__dirname, 'measure.js');

function sample(mode: string, file: string): Sample {
  const out = execFileSync(process.execPath, ['--max-old-space-size=4096', measure, mode, file], { cwd: repo, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!) as Sample;
}

function best(mode: string, file: string, runs: number): Sample {
  let b: Sample | undefined;
  for (let i = 0; i < runs; i++) {
    const s = sample(mode, file);
    if (!b || s.ms < b.ms) b = { ...s, maxRssMB: Math.max(s.maxRssMB, b?.maxRssMB ?? 0) };
  }
  return b!;
}

async function main(): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const sizes = (process.env.ARBOR_BENCH_SIZES ?? '10,100').split(',').map(Number);
  const runs = Number(process.env.ARBOR_BENCH_RUNS ?? 3);
  const withPi = process.env.ARBOR_BENCH_PI !== '0';
  await retentionBench();
  if (process.env.ARBOR_BENCH_PROBES !== '0') await summaryProbesBench();
  for (const mb of sizes) {
    const file = path.join(dataDir, `session-${mb}mb.jsonl`);
    if (!existsSync(file)) {
      const g = await generateSession({ file, targetBytes: mb * 1024 * 1024 });
      process.stdout.write(`generated ${file}: ${g.entries} lines, ${(g.bytes / 1048576).toFixed(1)} MB\n`);
    }
    const size = statSync(file).size / 1048576;
    const naive = best('naive', file, runs);
    const arbor = best('arbor', file, runs);
    const arborChars = best('arbor-chars', file, runs);
    const treeFull = best('tree-full', file, runs);
    const treePreview = best('tree-preview', file, runs);
    const pi = withPi ? best('pi', file, Math.min(runs, 2)) : undefined;
    const fmt = (s: Sample) => `${s.ms.toFixed(0).padStart(6)} ms  ${s.maxRssMB.toFixed(0).padStart(5)} MB peak RSS`;
    process.stdout.write(`\n${size.toFixed(1)} MB session (best of ${runs}):\n`);
    process.stdout.write(`  naive read + JSON.parse every line  ${fmt(naive)}\n`);
    process.stdout.write(
      `  arbor open + index + plan           ${fmt(arbor)}   time ${(arbor.ms / naive.ms).toFixed(2)}x naive  (tokenizer estimator, incl. loading it)\n`,
    );
    process.stdout.write(
      `  arbor, chars estimator              ${fmt(arborChars)}   time ${(arborChars.ms / naive.ms).toFixed(2)}x naive\n`,
    );
    if (pi) {
      process.stdout.write(`  pi 0.73.1 open + prepareCompaction  ${fmt(pi)}\n`);
      process.stdout.write(
        `  arbor/pi: time ${(arbor.ms / pi.ms).toFixed(2)}x (chars: ${(arborChars.ms / pi.ms).toFixed(2)}x), peak ` +
          `memory ${(arbor.maxRssMB / pi.maxRssMB).toFixed(2)}x\n`,
      );
    }
    process.stdout.write(`  tree first page, whole file indexed  ${fmt(treeFull)}\n`);
    process.stdout.write(
      `  tree first page from the preview    ${fmt(treePreview)}   time ${(treePreview.ms / treeFull.ms).toFixed(2)}x ` +
        `whole file  (same rows: ${sameFirstPage(treePreview.detail, treeFull.detail)})\n`,
    );
    process.stdout.write(`  arbor plan: ${JSON.stringify(arbor.detail)}\n`);
    process.stdout.write(`  arbor plan (chars): ${JSON.stringify(arborChars.detail)}\n`);
    if (pi) process.stdout.write(`  pi plan:    ${JSON.stringify(pi.detail)}\n`);
  }
  if (process.env.ARBOR_BENCH_AGENTS !== '0') await agentsReadBench();
}

void main();

/** Whether two tree runs showed the same first page of rows. */
function sameFirstPage(a: unknown, b: unknown): boolean {
  const first = (d: unknown) => JSON.stringify((d as { pageFirst?: string } | undefined)?.pageFirst);
  return first(a) === first(b);
}
