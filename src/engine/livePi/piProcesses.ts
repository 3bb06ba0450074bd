import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

/**
 * Running Pi processes that hold a given session file, found from the process
 * table: /proc on Linux (command line, working directory, open descriptors),
 * `ps` and `lsof` on macOS. A Pi holds a file when it has it open, when its
 * command line names it (`--session FILE` or its id), or, started without a
 * session named (`pi`, `pi -c`, `pi -r`, `--fork`), when it runs in the
 * session's working directory. Pi 1.6 sets its process title to `pi`, which
 * hides its command line (and it keeps no descriptor open on its session
 * between writes): such a Pi, of the same agent folder, may hold any of its
 * sessions, and is counted as holding this one (`unknown`), so Arbor never
 * writes under it unseen. A Pi that switched sessions from inside
 * (`/resume`, `/new`) is judged by how it was started. Windows is not covered
 * (no portable way to read another process's working directory): there
 * Arbor relies on the bridge's own announcement only.
 */

export interface PiProcess {
  pid: number;
  cwd: string;
  command: string;
  /** The command line, as the process table gives it. */
  argv: string[];
  /** Paths the process has open (Linux only; empty elsewhere). */
  openFiles: string[];
  /** The agent folder it runs with (PI_CODING_AGENT_DIR, else HOME's ~/.pi/agent), when its environment can be read. */
  agentDir?: string;
}

/** Why a Pi process is taken to hold a session file. */
export type PiHold = 'open' | 'named' | 'folder' | 'unknown';

export interface PiOnFile extends PiProcess {
  hold: PiHold;
}

/** How each kind of hold is said to the user. */
export const PI_HOLD_TEXT: Record<PiHold, string> = {
  open: 'has the file open',
  named: 'started on this file',
  folder: "started in the session's folder without naming a session",
  unknown: 'may hold it: Pi hides its command line, so Arbor cannot tell which session it has',
};

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
      out.push({
        pid,
        cwd,
        command: argv.join(' ').slice(0, 300),
        argv,
        openFiles: await openFilesOf(pid),
        agentDir: await agentDirOf(pid),
      });
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

/** The regular files a process has open (its /proc descriptors), bounded. */
async function openFilesOf(pid: number): Promise<string[]> {
  let fds: string[];
  try {
    fds = await fsp.readdir(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const fd of fds.slice(0, 4096)) {
    const target = await fsp.readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    if (target.startsWith('/')) out.push(target);
  }
  return out;
}

/** The agent folder a process runs with, from its environment (as Pi resolves it), or undefined when unreadable. */
async function agentDirOf(pid: number): Promise<string | undefined> {
  let raw: Buffer;
  try {
    raw = await fsp.readFile(`/proc/${pid}/environ`);
  } catch {
    return undefined;
  }
  if (raw.length > 1024 * 1024) return undefined;
  const env = new Map<string, string>();
  for (const kv of raw.toString('utf8').split('\0')) {
    const eq = kv.indexOf('=');
    if (eq > 0) env.set(kv.slice(0, eq), kv.slice(eq + 1));
  }
  const home = env.get('HOME') ?? '';
  const dir = env.get('PI_CODING_AGENT_DIR');
  if (dir) return dir === '~' ? home : dir.startsWith('~/') ? path.join(home, dir.slice(2)) : path.resolve(dir);
  return home ? path.join(home, '.pi', 'agent') : undefined;
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
    // ps gives the command line as one string: split on spaces (a path with spaces in it is not matched by name).
    if (cwd) out.push({ pid, cwd, command: m[2].slice(0, 300), argv: m[2].split(/\s+/), openFiles: [] });
  }
  return out;
}

/** Every running Pi process (other than this one) the process table shows; none on Windows. */
export async function piProcesses(): Promise<PiProcess[]> {
  return process.platform === 'linux' ? await linuxProcesses() : process.platform === 'darwin' ? await macProcesses() : [];
}

/** What a Pi command line says about its session: the `--session` value, or whether it runs without one. */
function sessionArgument(argv: readonly string[]): { session?: string; noSession: boolean } {
  let session: string | undefined;
  let noSession = false;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--no-session') noSession = true;
    else if (a === '--session' && i + 1 < argv.length) session = argv[++i];
    else if (a.startsWith('--session=')) session = a.slice('--session='.length);
  }
  return { session, noSession };
}

export interface PiOnFileOptions {
  /** Arbor's Pi agent folder: a Pi of another agent folder whose session cannot be told is not counted. */
  agentDir?: string;
  /** The session's working directory (its header's cwd): a Pi started there without naming a session may hold it. */
  cwd?: string;
  /** The session's id (its header's id): `--session <id prefix>` names it. */
  sessionId?: string;
}

/** Whether a Pi process holds `file` (see the file comment), and why; undefined when it does not. */
export async function piHold(p: PiProcess, file: string, options: PiOnFileOptions): Promise<PiHold | undefined> {
  const real = await fsp.realpath(file).catch(() => path.resolve(file));
  if (p.openFiles.some((f) => f === real || f === path.resolve(file))) return 'open';
  const { session, noSession } = sessionArgument(p.argv);
  if (noSession) return undefined;
  if (session !== undefined) {
    if (session.includes('/') || session.includes('\\') || session.endsWith('.jsonl')) {
      const named = path.resolve(p.cwd, session);
      const namedReal = await fsp.realpath(named).catch(() => named);
      return namedReal === real ? 'named' : undefined;
    }
    const id = options.sessionId ?? /_([0-9a-f-]{8,})\.jsonl$/i.exec(path.basename(file))?.[1];
    return session.length > 0 && id?.startsWith(session) ? 'named' : undefined;
  }
  if (options.cwd) {
    const want = await fsp.realpath(options.cwd).catch(() => path.resolve(options.cwd!));
    const at = await fsp.realpath(p.cwd).catch(() => p.cwd);
    if (at === want) return 'folder';
  }
  // A command line that names no session: started with `pi`, `-c`, `-r`, or hidden by Pi's process title.
  const hidden = p.argv.length <= 1;
  if (!hidden) return undefined;
  if (options.agentDir && p.agentDir && !(await sameFolder(p.agentDir, options.agentDir))) return undefined;
  return 'unknown';
}

async function sameFolder(a: string, b: string): Promise<boolean> {
  const [ra, rb] = await Promise.all([fsp.realpath(a).catch(() => path.resolve(a)), fsp.realpath(b).catch(() => path.resolve(b))]);
  return ra === rb;
}

/** The Pi processes (other than this one) that hold `file`, each with why. */
export async function piProcessesOn(file: string, options: PiOnFileOptions): Promise<PiOnFile[]> {
  const out: PiOnFile[] = [];
  for (const p of await piProcesses()) {
    const hold = await piHold(p, file, options);
    if (hold) out.push({ ...p, hold });
  }
  return out;
}
