/**
 * `node out/bench/treeScale.js` (after `npm run build`): `arbor tree` on
 * sessions generated into bench/.data (never committed):
 *  - 1e6 entries in one chain with side branches (issue 11 item 8: under 10 s, under 1 GB);
 *  - 1e6 entries in one linear chain (`linear`), and 1e6 entries as 500,000
 *    nested branch points (`deep`: every row past MAX_DRAWN_DEPTH has a depth marker);
 *  - 20,000 nested branch points (bounded indentation; output size);
 *  - one 500 MB entry (issue 13 item 1: neither crashes nor stalls).
 * Each run is the built CLI in a fresh process under /usr/bin/time -v, output
 * to /dev/null (counted), reported with wall time and peak RSS, and as a ratio
 * to a baseline measured in the same run: reading the file and JSON.parse of
 * every line. Set ARBOR_TREE_BENCH=wide,linear,deep,nested,huge to choose
 * (default wide,linear,deep,nested,huge) and ARBOR_TREE_RUNS=N to run each
 * command N times and report the median time and the largest peak RSS.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, statSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import { generateTreeSession } from './generateTreeSession';

const repo = path.resolve(__dirname, '..', '..');
const dataDir = path.join(repo, 'bench', '.data');
const cli = path.join(repo, 'dist', 'cli.js');

interface Run {
  ms: number;
  maxRssMB: number;
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

function timed(args: string[]): Run {
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const t0 = performance.now();
  const r = spawnSync('bash', ['-c', `set -o pipefail; /usr/bin/time -v ${quoted} 2>/tmp/arbor-tree-bench.time | wc -c`], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  const ms = performance.now() - t0;
  const time = execFileSync('cat', ['/tmp/arbor-tree-bench.time'], { encoding: 'utf8' });
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(time);
  const stderr = time
    .split('\n')
    .filter((l) => !TIME_REPORT_LINE.test(l.replace(/^\t/, '')))
    .join('\n')
    .trim();
  return {
    ms,
    maxRssMB: rss ? Number(rss[1]) / 1024 : NaN,
    outBytes: Number(r.stdout.trim()),
    code: r.status ?? 1,
    stderr: stderr.slice(0, 300),
  };
}

const baselineScript =
  "const t=require('fs').readFileSync(process.argv[1],'utf8');let n=0;for(const l of t.split('\\n'))if(l){JSON.parse(l);n++}";

function report(name: string, file: string, runs: [string, string[]][]): void {
  const mb = statSync(file).size / 1048576;
  process.stdout.write(`\n${name} (${mb.toFixed(0)} MB)\n`);
  const base = mb < 450 ? timed([process.execPath, '--max-old-space-size=4096', '-e', baselineScript, file]) : undefined;
  if (base)
    process.stdout.write(
      `  baseline: read + JSON.parse every line   ${base.ms.toFixed(0).padStart(7)} ms  ${base.maxRssMB.toFixed(0).padStart(5)} MB peak RSS\n`,
    );
  const n = Number(process.env.ARBOR_TREE_RUNS ?? 1);
  for (const [label, args] of runs) {
    const all = Array.from({ length: n }, () => timed([process.execPath, cli, ...args]));
    const r = { ...[...all].sort((a, b) => a.ms - b.ms)[Math.floor(n / 2)], maxRssMB: Math.max(...all.map((x) => x.maxRssMB)) };
    const ratio = base ? `  ${(r.ms / base.ms).toFixed(2)}x baseline` : '';
    process.stdout.write(
      `  ${label.padEnd(38)} ${r.ms.toFixed(0).padStart(7)} ms  ${r.maxRssMB.toFixed(0).padStart(5)} MB peak RSS  exit ` +
        `${r.code}  ${(r.outBytes / 1048576).toFixed(1)} MB out${ratio}\n`,
    );
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

function main(): void {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);
  mkdirSync(dataDir, { recursive: true });
  const which = new Set((process.env.ARBOR_TREE_BENCH ?? 'wide,linear,deep,nested,huge').split(','));
  if (which.has('wide')) {
    const file = path.join(dataDir, 'tree-1e6.jsonl');
    if (!existsSync(file)) generateTreeSession({ file, entries: 1_000_000, branchEvery: 100 });
    report('1e6 entries, a side branch every 100', file, [
      ['arbor tree (tokenizer)', ['tree', file]],
      ['arbor tree --estimator chars', ['tree', file, '--estimator', 'chars']],
      ['arbor tree --json', ['tree', file, '--json']],
    ]);
  }
  if (which.has('linear')) {
    const file = path.join(dataDir, 'tree-linear-1e6.jsonl');
    if (!existsSync(file)) generateTreeSession({ file, entries: 1_000_000, branchEvery: 1e9 });
    report('1e6 entries, one linear chain', file, [
      ['arbor tree (tokenizer)', ['tree', file]],
      ['arbor tree --estimator chars', ['tree', file, '--estimator', 'chars']],
      ['arbor tree --json', ['tree', file, '--json']],
    ]);
  }
  if (which.has('deep')) {
    const file = path.join(dataDir, 'tree-nested-1e6.jsonl');
    if (!existsSync(file)) generateTreeSession({ file, entries: 1_000_000, nested: true });
    report('1e6 entries, 500,000 nested branch points', file, [
      ['arbor tree (tokenizer)', ['tree', file]],
      ['arbor tree --estimator chars', ['tree', file, '--estimator', 'chars']],
      ['arbor tree --json', ['tree', file, '--json']],
    ]);
  }
  if (which.has('nested')) {
    const file = path.join(dataDir, 'tree-nested-20k.jsonl');
    if (!existsSync(file)) generateTreeSession({ file, entries: 40_000, nested: true });
    report('20,000 nested branch points (40,000 entries)', file, [
      ['arbor tree', ['tree', file]],
      ['arbor tree --json', ['tree', file, '--json']],
    ]);
  }
  if (which.has('huge')) {
    const file = path.join(dataDir, 'huge-entry-500mb.jsonl');
    if (!existsSync(file)) writeHugeEntry(file, 500);
    report('one 500 MB entry', file, [
      ['arbor tree', ['tree', file]],
      ['arbor context', ['context', file]],
      ['arbor tree --json', ['tree', file, '--json']],
    ]);
  }
}

main();
