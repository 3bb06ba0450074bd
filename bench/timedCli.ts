import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import * as path from 'node:path';

/** The built CLI the benches run, each job in its own process (ARBOR_BENCH_CLI: a copy, so a rebuild meanwhile does not touch it). */
export const builtCliPath = process.env.ARBOR_BENCH_CLI || path.join(path.resolve(__dirname, '..', '..'), 'dist', 'cli.js');

export interface Measured {
  job: string;
  seconds: number;
  maxRssMB: number;
  code: number | null;
}

/**
 * Runs `node dist/cli.js ARGS` under GNU time (`/usr/bin/time -v`): wall
 * time and the process's maximum resident set size. Its standard output is
 * thrown away (or written to `stdoutFile`).
 */
export async function timedCli(job: string, args: string[], env: NodeJS.ProcessEnv = {}, stdoutFile?: string): Promise<Measured> {
  const child = spawn('/usr/bin/time', ['-v', process.execPath, builtCliPath, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', stdoutFile ? 'pipe' : 'ignore', 'pipe'],
  });
  if (stdoutFile) child.stdout!.pipe(createWriteStream(stdoutFile));
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(err);
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(err);
  const seconds = wall ? Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3]) : NaN;
  if (code !== 0) process.stderr.write(err.split('\n').slice(0, 5).join('\n') + '\n');
  return { job, seconds, maxRssMB: rss ? Math.round(Number(rss[1]) / 1024) : NaN, code };
}

/** One row of a bench's table: job, seconds, peak RSS (and the exit code when not 0). */
export function measuredRow(r: Measured, note = ''): string {
  const exit = r.code === 0 ? '' : `  (exit ${r.code})`;
  return `${r.job.padEnd(44)} ${r.seconds.toFixed(1).padStart(7)} s ${String(r.maxRssMB).padStart(6)} MB peak RSS${note}${exit}\n`;
}
