/**
 * `node out/bench/treeScale.js` (after `npm run build`): `arbor tree` on
 * sessions generated into bench/.data (never committed):
 *  - 1e6 entries in one chain with side branches (issue 11 item 8: under 10 s, under 1 GB);
 *  - 1e6 entries in one linear chain (`linear`), and 1e6 entries as 500,000
 *    nested branch points (`deep`: every row past MAX_DRAWN_DEPTH has a depth marker);
 *  - 20,000 nested branch points (bounded indentation; output size);
 *  - one 500 MB entry (issue 13 item 1: neither crashes nor stalls).
 * Each run is the built CLI in a fresh process under /usr/bin/time -v, output
 * counted through `wc -c`, reported with wall time, as a ratio to a baseline
 * measured in the same run (reading the file and JSON.parse of every line),
 * and the machine's load average when it ran. Memory: GNU time's maximum RSS
 * is that of the largest single process, not counting child processes (an
 * older build, given as ARBOR_TREE_BEFORE, made rows in worker processes);
 * so the process tree is also sampled every 50 ms
 * (VmRSS of every node process under the run, from /proc) and the peak of
 * their sum is reported, with the CPU time they used (utime + stime, as the
 * last sample of each process saw it) as a ratio to the baseline's: the
 * share of the wall time the other engineers' load on the machine cannot
 * explain. Set ARBOR_TREE_BENCH=wide,linear,deep,nested,huge to choose
 * (default wide,linear,deep,nested,huge) and ARBOR_TREE_RUNS=N to run each
 * command N times and report the median time and the largest peak RSS.
 * ARBOR_TREE_BEFORE=path/to/cli.js (another build, such as main's) runs each
 * command with that CLI too, in the same run, just before this build's: a
 * change is measured against the same baseline and the same load.
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { loadavg } from 'node:os';
import * as path from 'node:path';
import { generateTreeSession } from './generateTreeSession';

const repo = path.resolve(__dirname, '..', '..');
const dataDir = path.join(repo, 'bench', '.data');
const cli = path.join(repo, 'dist', 'cli.js');

interface Run {
  ms: number;
  maxRssMB: number;
  /** Peak of the summed RSS of every node process of the run (the command and any child of it). */
  treeRssMB: number;
  /** CPU seconds of those processes. */
  cpuS: number;
  /** The 1-minute load average as the run ended. */
  load: number;
  outBytes: number;
  code: number;
  stderr: string;
}

/** One command in a fresh process under /usr/bin/time -v; stdout counted through `wc -c`. */
/** The lines /usr/bin/time -v adds to stderr. */
const TIME_REPORT_LINE = new RegExp(
  `^\\s*(${[
    'Command being timed',
    'User time',
    'System time',
    'Percent',
    'Elapsed',
    'Average',
    'Maximum resident',
    'Major',
    'Minor',
    'Voluntary',
    'Involuntary',
    'Swaps',
    'File system',
    'Socket',
    'Signals',
    'Page size',
    'Exit status',
  ].join('|')})`,
);

/** The pids under `root` (its descendants), from /proc/<pid>/task/<tid>/children. */
function descendants(root: number): number[] {
  const out: number[] = [];
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    let tasks: string[] = [];
    try {
      tasks = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean);
    } catch {
      continue; // gone
    }
    for (const t of tasks) {
      out.push(Number(t));
      stack.push(Number(t));
    }
  }
  return out;
}

/** VmRSS (kB) and utime + stime (clock ticks) of a node process, or undefined (gone, or not node). */
function sample(pid: number): { rssKB: number; ticks: number } | undefined {
  try {
    if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'node') return undefined;
    const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { rssKB: rss ? Number(rss[1]) : 0, ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

const TICKS_PER_SECOND = 100;

/** One command in a fresh process under /usr/bin/time -v; stdout counted through `wc -c`; its process tree sampled (see the module comment). */
async function timed(args: string[]): Promise<Run> {
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const t0 = performance.now();
  const child = spawn('bash', ['-c', `set -o pipefail; /usr/bin/time -v ${quoted} 2>/tmp/arbor-tree-bench.time | wc -c`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => (stdout += d));
  let peakKB = 0;
  const ticks = new Map<number, number>();
  const tick = () => {
    let sum = 0;
    for (const pid of descendants(child.pid!)) {
      const s = sample(pid);
      if (!s) continue;
      sum += s.rssKB;
      ticks.set(pid, Math.max(ticks.get(pid) ?? 0, s.ticks));
    }
    peakKB = Math.max(peakKB, sum);
  };
  const timer = setInterval(tick, 50);
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
  clearInterval(timer);
  const ms = performance.now() - t0;
  const time = execFileSync('cat', ['/tmp/arbor-tree-bench.time'], { encoding: 'utf8' });
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(time);
  const stderr = time
    .split('\n')
    .filter((l) => !TIME_REPORT_LINE.test(l.replace(/^\t/, '')))
    .join('\n')
    .trim();
  let cpuTicks = 0;
  for (const t of ticks.values()) cpuTicks += t;
  return {
    ms,
    maxRssMB: rss ? Number(rss[1]) / 1024 : NaN,
    treeRssMB: peakKB / 1024,
    cpuS: cpuTicks / TICKS_PER_SECOND,
    load: loadavg()[0],
    outBytes: Number(stdout.trim()),
    code,
    stderr: stderr.slice(0, 300),
  };
}

const baselineScript =
  "const t=require('fs').readFileSync(process.argv[1],'utf8');let n=0;for(const l of t.split('\\n'))if(l){JSON.parse(l);n++}";

function median(runs: Run[]): Run {
  const r = [...runs].sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)];
  return {
    ...r,
    maxRssMB: Math.max(...runs.map((x) => x.maxRssMB)),
    treeRssMB: Math.max(...runs.map((x) => x.treeRssMB)),
    cpuS: [...runs].sort((a, b) => a.cpuS - b.cpuS)[Math.floor(runs.length / 2)].cpuS,
  };
}

function figures(r: Run): string {
  return (
    `${r.ms.toFixed(0).padStart(7)} ms  ${r.maxRssMB.toFixed(0).padStart(5)} MB max RSS (GNU time)  ` +
    `${r.treeRssMB.toFixed(0).padStart(5)} MB peak RSS sum  ${r.cpuS.toFixed(1).padStart(5)} s CPU  load ${r.load.toFixed(1)}`
  );
}

/**
 * The baseline and each command, N rounds of them (ARBOR_TREE_RUNS) taken in turn rather than each N times in a row,
 * so that a change in the machine's load falls on all of them alike; each reported by its median.
 */
async function report(name: string, file: string, runs: [string, string[]][]): Promise<void> {
  const mb = statSync(file).size / 1048576;
  process.stdout.write(`\n${name} (${mb.toFixed(0)} MB)\n`);
  const n = Number(process.env.ARBOR_TREE_RUNS ?? 1);
  const before = process.env.ARBOR_TREE_BEFORE;
  const clis: [string, string][] = before
    ? [
        ['before: ', before],
        ['after:  ', cli],
      ]
    : [['', cli]];
  const commands: [string, string[]][] = [];
  if (mb < 450) commands.push(['baseline: read + JSON.parse every line', ['--max-old-space-size=4096', '-e', baselineScript, file]]);
  for (const [label, args] of runs) for (const [which, script] of clis) commands.push([which + label, [script, ...args]]);
  const measured: Run[][] = commands.map(() => []);
  for (let round = 0; round < n; round++) {
    for (const [k, [, args]] of commands.entries()) measured[k].push(await timed([process.execPath, ...args]));
  }
  const base = mb < 450 ? median(measured[0]) : undefined;
  for (const [k, [label]] of commands.entries()) {
    const r = median(measured[k]);
    if (base && k === 0) {
      process.stdout.write(`  ${label.padEnd(38)} ${figures(r)}\n`);
      continue;
    }
    const ratio = base ? `  ${(r.ms / base.ms).toFixed(2)}x baseline time, ${(r.cpuS / base.cpuS).toFixed(2)}x its CPU` : '';
    process.stdout.write(`  ${label.padEnd(38)} ${figures(r)}  exit ${r.code}  ${(r.outBytes / 1048576).toFixed(1)} MB out${ratio}\n`);
    if (r.stderr) process.stdout.write(`    stderr: ${r.stderr.split('\n')[0]}\n`);
  }
}

/** A session whose second entry is one message of `mb` MB (a pasted blob), in Pi's key order. */
function writeHugeEntry(file: string, mb: number): void {
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, `${JSON.stringify({ type: 'session', version: 3, id: 'huge', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/bench' })}\n`);
    writeSync(
      fd,
      `${JSON.stringify({
        type: 'message',
        id: 'u1',
        parentId: null,
        timestamp: '2026-01-01T00:00:01.000Z',
        message: { role: 'user', content: [{ type: 'text', text: 'here is the file' }], timestamp: 1 },
      })}\n`,
    );
    writeSync(
      fd,
      '{"type":"message","id":"big","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z",' +
        '"message":{"role":"toolResult","toolCallId":"c","toolName":"read","content":[{"type":"text","text":"',
    );
    const block = Buffer.alloc(1 << 20, 'QUJD');
    for (let k = 0; k < mb; k++) writeSync(fd, block);
    writeSync(fd, '"}],"isError":false,"timestamp":2}}\n');
    writeSync(
      fd,
      `${JSON.stringify({
        type: 'message',
        id: 'a1',
        parentId: 'big',
        timestamp: '2026-01-01T00:00:03.000Z',
        message: { role: 'assistant', content: [{ type: 'text', text: 'done' }], stopReason: 'stop', timestamp: 3 },
      })}\n`,
    );
  } finally {
    closeSync(fd);
  }
}

async function main(): Promise<void> {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);
  mkdirSync(dataDir, { recursive: true });
  const which = new Set((process.env.ARBOR_TREE_BENCH ?? 'wide,linear,deep,nested,huge').split(','));
  if (which.has('wide')) {
    const file = path.join(dataDir, 'tree-1e6.jsonl');
    if (!existsSync(file)) generateTreeSession({ file, entries: 1_000_000, branchEvery: 100 });
    await report('1e6 entries, a side branch every 100', file, [
      ['arbor tree (tokenizer)', ['tree', file]],
      ['arbor tree --estimator chars', ['tree', file, '--estimator', 'chars']],
      ['arbor tree --json', ['tree', file, '--json']],
    ]);
  }
  if (which.has('linear')) {
    const file = path.join(dataDir, 'tree-linear-1e6.jsonl');
    if (!existsSync(file)) generateTreeSession({ file, entries: 1_000_000, branchEvery: 1e9 });
    await report('1e6 entries, one linear chain', file, [
      ['arbor tree (tokenizer)', ['tree', file]],
      ['arbor tree --estimator chars', ['tree', file, '--estimator', 'chars']],
      ['arbor tree --json', ['tree', file, '--json']],
    ]);
  }
  if (which.has('deep')) {
    const file = path.join(dataDir, 'tree-nested-1e6.jsonl');
    if (!existsSync(file)) generateTreeSession({ file, entries: 1_000_000, nested: true });
    await report('1e6 entries, 500,000 nested branch points', file, [
      ['arbor tree (tokenizer)', ['tree', file]],
      ['arbor tree --estimator chars', ['tree', file, '--estimator', 'chars']],
      ['arbor tree --json', ['tree', file, '--json']],
    ]);
  }
  if (which.has('nested')) {
    const file = path.join(dataDir, 'tree-nested-20k.jsonl');
    if (!existsSync(file)) generateTreeSession({ file, entries: 40_000, nested: true });
    await report('20,000 nested branch points (40,000 entries)', file, [
      ['arbor tree', ['tree', file]],
      ['arbor tree --json', ['tree', file, '--json']],
    ]);
  }
  if (which.has('huge')) {
    const file = path.join(dataDir, 'huge-entry-500mb.jsonl');
    if (!existsSync(file)) writeHugeEntry(file, 500);
    await report('one 500 MB entry', file, [
      ['arbor tree', ['tree', file]],
      ['arbor context', ['context', file]],
      ['arbor tree --json', ['tree', file, '--json']],
    ]);
  }
}

void main();
