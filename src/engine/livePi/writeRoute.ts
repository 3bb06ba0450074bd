import { ArborUsageError } from '../session/diagnostics';
import { assertWritableFile } from '../session/agents/readOnly';
import { findLivePi } from './findLivePi';
import { BridgeError } from './client';
import type { PiProcess } from './piProcesses';
import type { PiState } from './protocol';
import type { RegistryEntry } from './registry';

/**
 * How a write to a session reaches it: through the running Pi that holds it
 * (its bridge), or straight to the file when no Pi holds it.
 */
export type WriteRoute =
  /** `forced`: written to the file although a Pi without the bridge runs in the session's folder (the user said so). */
  { via: 'file'; forced?: boolean } | { via: 'pi'; entry: RegistryEntry; state: PiState; waitMs?: number };

/**
 * A Pi without Arbor's bridge runs in the session's folder: a write to the
 * file would not reach its memory (its next entry would go under its own
 * leaf). Nothing was written.
 */
export class PiRunningError extends ArborUsageError {
  constructor(
    readonly file: string,
    readonly processes: PiProcess[],
  ) {
    const pids = processes.map((p) => p.pid).join(', ');
    super(
      `Pi is running in ${processes[0]?.cwd ?? "this session's folder"} (pid ${pids}) and may hold ${file}: ` +
        'what Arbor writes to the file would not reach that Pi, and its next entry would go under its own leaf. Nothing was written. ' +
        'Either install the bridge (`arbor pi-bridge install`, or "Arbor: Install Pi Bridge") and restart Pi, so Arbor works through Pi, ' +
        'or quit Pi and try again. `--force` writes to the file anyway.',
    );
    this.name = 'PiRunningError';
  }
}

export interface WriteRouteOptions {
  agentDir: string;
  /** The session's working directory (from its header). */
  cwd: string;
  /** Write to the file even when a Pi without the bridge runs in the session's folder. */
  force?: boolean;
  /** How long Pi may take to become idle before a write through it is refused (the bridge's default when omitted). */
  waitMs?: number;
  signal?: AbortSignal;
}

/** Finds how to write `file`: through its live Pi's bridge, else the file (refusing while an unbridged Pi runs there, unless forced). */
export async function resolveWriteRoute(file: string, options: WriteRouteOptions): Promise<WriteRoute> {
  // Before anything is planned or asked of a summarizer: another agent's session is never written.
  await assertWritableFile(file);
  const live = await findLivePi(file, { agentDir: options.agentDir, cwd: options.force ? undefined : options.cwd, signal: options.signal });
  if (live.kind === 'bridge') return { via: 'pi', entry: live.entry, state: live.state, waitMs: options.waitMs };
  if (live.kind === 'unbridged') throw new PiRunningError(file, live.processes);
  if (live.kind === 'unanswered') {
    throw new BridgeError(
      'unreachable',
      `Pi (pid ${live.entry.pid}) holds ${file} with Arbor's bridge but did not answer (${live.error}); nothing was written. ` +
        'Try again; if Pi is hung, quit it.',
    );
  }
  return options.force ? { via: 'file', forced: true } : { via: 'file' };
}
