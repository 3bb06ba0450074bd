import { listRegistry, removeQuietly, sameFile, type RegistryEntry } from './registry';
import { BridgeError, requestState } from './client';
import { piProcessesIn, type PiProcess } from './piProcesses';
import type { PiState } from './protocol';

/**
 * Whether a running Pi holds a session file, and how Arbor can reach it:
 * - `bridge`: a Pi with Arbor's bridge announced this file and answered its state;
 * - `unbridged`: no bridge holds it, but Pi processes run in the session's
 *   working directory (one of them may hold it: a write to the file would
 *   not reach its memory);
 * - `none`: no Pi to worry about.
 */
export type LivePi =
  | { kind: 'bridge'; entry: RegistryEntry; state: PiState }
  /** A Pi with the bridge announced this file but did not answer (hung, or a very loaded machine). */
  | { kind: 'unanswered'; entry: RegistryEntry; error: string }
  | { kind: 'unbridged'; processes: PiProcess[] }
  | { kind: 'none' };

export interface FindLivePiOptions {
  /** Pi's agent folder (where the bridge registry lives). */
  agentDir: string;
  /** The session's working directory (for Pi processes without the bridge); omitted: not looked for. */
  cwd?: string;
  signal?: AbortSignal;
  /** How long a bridge may take to answer its state, in ms. */
  timeoutMs?: number;
}

type Asked = { entry: RegistryEntry; state: PiState } | { entry: RegistryEntry; error: string };

/** Every announced bridge of an agent folder, asked for its state: the state, or why it did not answer. */
async function askBridges(agentDir: string, options: { signal?: AbortSignal; timeoutMs?: number }): Promise<Asked[]> {
  const out: Asked[] = [];
  for (const { file, entry } of await listRegistry(agentDir)) {
    try {
      out.push({ entry, state: await requestState(entry, { signal: options.signal, timeoutMs: options.timeoutMs ?? 3000 }) });
    } catch (err) {
      options.signal?.throwIfAborted();
      // Nothing listens there: the bridge is gone (a bridge listens before it announces and withdraws before it
      // stops listening) and the pid belongs to another process now. The entry is stale.
      if (err instanceof BridgeError && (err.socketError === 'ENOENT' || err.socketError === 'ECONNREFUSED')) await removeQuietly(file);
      // Otherwise a process that announced a bridge but does not answer (hung, or starved on a loaded machine).
      else out.push({ entry, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return out;
}

/** Live bridges of an agent folder with their state (those that answer). */
export async function liveBridges(
  agentDir: string,
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<{ entry: RegistryEntry; state: PiState }[]> {
  return (await askBridges(agentDir, options)).filter((b): b is { entry: RegistryEntry; state: PiState } => 'state' in b);
}

export async function findLivePi(file: string, options: FindLivePiOptions): Promise<LivePi> {
  const bridges = await askBridges(options.agentDir, options);
  for (const b of bridges) {
    const holds =
      ('state' in b && (await sameFile(b.state.sessionFile || b.entry.sessionFile, file))) || (await sameFile(b.entry.sessionFile, file));
    if (!holds) continue;
    return 'state' in b ? { kind: 'bridge', entry: b.entry, state: b.state } : { kind: 'unanswered', entry: b.entry, error: b.error };
  }
  if (options.cwd === undefined) return { kind: 'none' };
  // A Pi whose bridge announced another session does not hold this one (answering or not).
  const bridged = new Set(bridges.map((b) => b.entry.pid));
  const processes = (await piProcessesIn(options.cwd)).filter((p) => !bridged.has(p.pid));
  return processes.length > 0 ? { kind: 'unbridged', processes } : { kind: 'none' };
}
