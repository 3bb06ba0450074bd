// A child process in its own process group, so that stopping it also ends everything it started
// (code-server's extension host, pty host, ...). The group is killed if this process exits or is
// interrupted first (a terminal's Ctrl-C does not reach another process group).
import { spawn } from 'child_process';
import * as fs from 'fs';

export interface ProcessGroup {
  pid: number;
  /** Settles with the exit code (null when killed by a signal or not started). */
  exited: Promise<number | null>;
  /** True once the leader has exited. */
  hasExited(): boolean;
  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves when the group is gone. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnGroupOptions {
  env: NodeJS.ProcessEnv;
  /** stdout and stderr are appended here. */
  logFile: string;
  /** Also run on exit or interruption of this process (e.g. removing temp dirs). */
  onAbandon?: () => void;
}

const TERMINATING: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function signalGroup(pgid: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, sig);
    return true;
  } catch {
    return false; // no process left in the group
  }
}

export function spawnGroup(command: string, args: string[], options: SpawnGroupOptions): ProcessGroup {
  const out = fs.openSync(options.logFile, 'a');
  const child = spawn(command, args, { detached: true, stdio: ['ignore', out, out], env: options.env });
  fs.closeSync(out);
  let done = false;
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => ((done = true), resolve(code)));
    child.once('error', () => ((done = true), resolve(null)));
  });
  const pgid = child.pid ?? 0;

  const onExit = () => {
    if (pgid) signalGroup(pgid, 'SIGKILL');
    options.onAbandon?.();
  };
  const onSignal = (sig: NodeJS.Signals) => {
    unwatch();
    onExit();
    if (process.listenerCount(sig) === 0) process.kill(process.pid, sig); // default action: terminate
  };
  const unwatch = () => {
    process.off('exit', onExit);
    for (const sig of TERMINATING) process.off(sig, onSignal);
  };
  process.on('exit', onExit);
  for (const sig of TERMINATING) process.on(sig, onSignal);

  let stopping: Promise<void> | undefined;
  const stop = (graceMs = 5000) =>
    (stopping ??= (async () => {
      if (pgid && signalGroup(pgid, 'SIGTERM')) {
        for (let t = 0; t < graceMs && signalGroup(pgid, 0); t += 100) await sleep(100);
        signalGroup(pgid, 'SIGKILL');
      }
      await Promise.race([exited, sleep(2000)]);
      unwatch();
    })());

  return { pid: pgid, exited, hasExited: () => done, stop };
}
