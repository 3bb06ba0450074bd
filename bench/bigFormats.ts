/**
 * Issue 38 items 4 and 6: what reading a large session costs by its format,
 * each job the built CLI in its own process under `/usr/bin/time -v`:
 *   node out/bench/bigFormats.js [MB] (default 1024)
 * Four generated sessions of MB each: Pi's compact JSON (the baseline), the
 * same generator written with a space after every `,` and `:` (Python's
 * json.dumps), a Claude Code transcript, and a Pi session of short turns
 * with no compaction (about 100 per MB: `compact` summarizes all of it).
 * `tree`, `search` and `context --json` on each, `compact` offline on the
 * short-turn one; time and peak RSS, and each figure against the Pi
 * baseline's for the same command in this run. The files are written under
 * ARBOR_BENCH_DIR (default bench/.data) and deleted at the end unless
 * ARBOR_BENCH_KEEP=1 (then a later run reuses them).
 */
import { existsSync, mkdirSync, promises as fsp, statSync, truncateSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateSession } from './generateSession';
import { generateClaudeCodeSession } from './generateAgentSession';
import { measuredRow, timedCli, type Measured } from './timedCli';

const repo = path.resolve(__dirname, '..', '..');

interface Input {
  name: string;
  file: string;
  make: (file: string, bytes: number) => Promise<string>;
}

async function main(): Promise<void> {
  const mb = Number(process.argv[2] ?? 1024);
  if (!(mb > 0)) throw new Error('usage: node out/bench/bigFormats.js [MB]');
  if (!existsSync('/usr/bin/time')) throw new Error('/usr/bin/time is needed (GNU time, for the peak RSS)');
  const dir = process.env.ARBOR_BENCH_DIR || path.join(repo, 'bench', '.data');
  mkdirSync(dir, { recursive: true });
  const bytes = mb * 1024 * 1024;
  const inputs: Input[] = [
    {
      name: 'pi',
      file: path.join(dir, `formats-pi-${mb}mb.jsonl`),
      make: async (file) => describe(await generateSession({ file, targetBytes: bytes })),
    },
    {
      name: 'pi spaced',
      file: path.join(dir, `formats-pi-spaced-${mb}mb.jsonl`),
      make: async (file) => describe(await generateSession({ file, targetBytes: bytes, spaced: true })),
    },
    {
      name: 'claude code',
      file: path.join(dir, `formats-claude-${mb}mb.jsonl`),
      make: async (file) => {
        const g = await generateClaudeCodeSession({ file, targetBytes: bytes });
        return `${g.lines} lines, ${g.turns} turns`;
      },
    },
    {
      name: 'pi short turns',
      file: path.join(dir, `formats-pi-short-${mb}mb.jsonl`),
      make: async (file) => describe(await generateSession({ file, targetBytes: bytes, compactionEvery: 0, toolOutputExtraWords: 60 })),
    },
  ];
  const agentDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-bench-agent-'));
  const env = { PI_CODING_AGENT_DIR: agentDir };
  const rows: { r: Measured; input: string; command: string }[] = [];
  try {
    for (const input of inputs) {
      if (!existsSync(input.file)) process.stdout.write(`${input.name}: ${await input.make(input.file, bytes)}\n`);
      const size = statSync(input.file).size;
      const run = async (command: string, args: string[]) => {
        const r = await timedCli(`${mb} MB ${input.name}: ${command}`, args, env);
        rows.push({ r, input: input.name, command });
        process.stdout.write(`  ${measuredRow(r, ` (load ${os.loadavg()[0].toFixed(1)})`)}`);
      };
      await run('tree', ['tree', input.file]);
      await run('search', ['search', input.file, 'npm test']);
      await run('context --json', ['context', input.file, '--json']);
      if (input.name === 'pi short turns') {
        await run('compact offline', ['compact', input.file, '--provider', 'offline', '--json']);
        truncateSync(input.file, size);
      }
    }
  } finally {
    await fsp.rm(agentDir, { recursive: true, force: true });
    if (process.env.ARBOR_BENCH_KEEP !== '1') for (const input of inputs) await fsp.rm(input.file, { force: true });
  }
  const load = os.loadavg()[0].toFixed(1);
  process.stdout.write(`load average at the end: ${load} (${os.cpus().length} cores)\n`);
  for (const { r, input, command } of rows) {
    const base = rows.find((b) => b.input === 'pi' && b.command === command)?.r;
    const note =
      base && input !== 'pi'
        ? `  (${(r.seconds / base.seconds).toFixed(2)}x time, ${(r.maxRssMB / base.maxRssMB).toFixed(2)}x RSS of pi)`
        : '';
    process.stdout.write(measuredRow(r, note));
  }
}

function describe(g: { entries: number; turns: number }): string {
  return `${g.entries} entries, ${g.turns} turns`;
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
