import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

/**
 * Running Pi processes whose working directory is a given folder, found from
 * the process table: /proc on Linux, `ps` and `lsof` on macOS. Windows is not
 * covered (it has no portable way to read another process's working
 * directory): there Arbor relies on the bridge's own announcement only.
 */

export interface PiProcess {
  pid: number;
  cwd: string;
  command: string;
}

/** Whether a command line (argv) is Pi's: the `pi` launcher, Pi's CLI script, or a Pi binary. */
export function isPiCommandLine(argv: readonly string[]): boolean {
  if (argv.length === 0) return false;
  const base = (s: string) => path.basename(s).toLowerCase();
  const exe = base(argv[0]);
  if (exe === 'pi' || exe === 'pi.exe') return true;
  if (!/^(node|nodejs|bun|node\d+)(\.exe)?$/.test(exe)) return false;
  const script = argv.slice(1).find((a) => !a.startsWith('-'));
  if (!script) return false;
  if (base(script) === 'pi') return true;
  const norm = script.replace(/\\/g, '/');
  return /pi-coding-agent\/dist\/(bundle\/)?cli\.js$/.test(norm);
}

async function linuxProcesses(): Promise<PiProcess[]> {
  let names: string[];
  try {
    names = await fsp.readdir('/proc');
  } catch {
    return [];
  }
  const out: PiProcess[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    try {
      const raw = await fsp.readFile(`/proc/${pid}/cmdline`);
      if (raw.length > 64 * 1024) continue;
      const argv = raw
        .toString('utf8')
        .split('\0')
        .filter((a) => a.length > 0);
      if (!isPiCommandLine(argv)) continue;
      const cwd = await fsp.readlink(`/proc/${pid}/cwd`);
      out.push({ pid, cwd, command: argv.join(' ').slice(0, 300) });
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: 5000, maxBuffer: 8 << 20 }, (err, stdout) => resolve(err ? '' : stdout));
  });
}

async function macProcesses(): Promise<PiProcess[]> {
  const out: PiProcess[] = [];
  const listing = await run('ps', ['-Ao', 'pid=,command=']);
  for (const line of listing.split('\n')) {
    const m = /^\s*(\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || !isPiCommandLine(m[2].split(/\s+/))) continue;
    const cwdOut = await run('lsof', ['-a', '-d', 'cwd', '-p', String(pid), '-Fn']);
    const cwd = /^n(.*)$/m.exec(cwdOut)?.[1];
    if (cwd) out.push({ pid, cwd, command: m[2].slice(0, 300) });
  }
  return out;
}

/** Pi processes (other than this one) running in `cwd` (compared after resolving links). */
export async function piProcessesIn(cwd: string): Promise<PiProcess[]> {
  const all = process.platform === 'linux' ? await linuxProcesses() : process.platform === 'darwin' ? await macProcesses() : [];
  const want = await fsp.realpath(cwd).catch(() => path.resolve(cwd));
  const matches: PiProcess[] = [];
  for (const p of all) {
    const real = await fsp.realpath(p.cwd).catch(() => p.cwd);
    if (real === want) matches.push(p);
  }
  return matches;
}
