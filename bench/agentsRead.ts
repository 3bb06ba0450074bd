/**
 * Reading other agents' sessions (issue 23): a 100 MB Claude Code transcript
 * and a 100 MB Codex rollout against a Pi session of the same size, each
 * opened with loadSession and its context built at the leaf, best of N in
 * this process. Printed as ratios against the Pi file (the baseline).
 * `node out/bench/agentsRead.js` (ARBOR_BENCH_AGENTS_MB, ARBOR_BENCH_RUNS); also run by `npm run bench`.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { loadSession } from '../src/engine/session/loadSession';
import { buildContext } from '../src/engine/context/buildContext';
import { generateSession } from './generateSession';
import { generateClaudeCodeSession, generateCodexSession } from './generateAgentSession';

const repo = path.resolve(__dirname, '..', '..');
const dataDir = path.join(repo, 'bench', '.data');

async function timeOpen(file: string, runs: number, validation?: 'full'): Promise<{ ms: number; entries: number }> {
  let best = Infinity;
  let entries = 0;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const index = await loadSession(file, { validation });
    buildContext(index);
    best = Math.min(best, performance.now() - t0);
    entries = index.entryCount;
  }
  return { ms: best, entries };
}

export async function agentsReadBench(): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const mb = Number(process.env.ARBOR_BENCH_AGENTS_MB ?? 100);
  const runs = Number(process.env.ARBOR_BENCH_RUNS ?? 3);
  const targetBytes = mb * 1024 * 1024;
  const files = {
    pi: path.join(dataDir, `session-${mb}mb.jsonl`),
    'claude-code': path.join(dataDir, `claude-code-${mb}mb.jsonl`),
    codex: path.join(dataDir, `codex-${mb}mb.jsonl`),
  };
  if (!existsSync(files.pi)) await generateSession({ file: files.pi, targetBytes });
  if (!existsSync(files['claude-code'])) await generateClaudeCodeSession({ file: files['claude-code'], targetBytes });
  if (!existsSync(files.codex)) await generateCodexSession({ file: files.codex, targetBytes });
  // Pi's reader indexes a large file without parsing its message lines; every line of another agent's file is parsed:
  // the second baseline is Pi's reader parsing every line too (validation 'full').
  const pi = await timeOpen(files.pi, runs);
  const piFull = await timeOpen(files.pi, runs, 'full');
  process.stdout.write(`\nreading other agents' sessions (open + context at the leaf, best of ${runs}):\n`);
  const rows: [string, string, { ms: number; entries: number }][] = [
    ['pi', files.pi, pi],
    ['pi (full)', files.pi, piFull],
    ['claude-code', files['claude-code'], await timeOpen(files['claude-code'], runs)],
    ['codex', files.codex, await timeOpen(files.codex, runs)],
  ];
  for (const [agent, file, r] of rows) {
    const size = statSync(file).size / 1048576;
    process.stdout.write(
      `  ${agent.padEnd(12)} ${size.toFixed(1).padStart(6)} MB  ${String(r.entries).padStart(8)} entries  ${r.ms.toFixed(0).padStart(6)} ms  ` +
        `${(r.ms / pi.ms).toFixed(2)}x Pi  ${(r.ms / piFull.ms).toFixed(2)}x Pi (full)\n`,
    );
  }
}

if (require.main === module) {
  agentsReadBench().catch((err) => {
    process.stderr.write(`${String(err)}\n`);
    process.exitCode = 1;
  });
}
