import { listRegistry, removeQuietly, sameFile, type RegistryEntry } from './registry';
import { BridgeError, requestState } from './client';
import { piProcessesOn, type PiOnFile } from './piProcesses';
import type { PiState } from './protocol';

/**
 * Whether a running Pi holds a session file, and how Arbor can reach it:
 * - `bridge`: one Pi holds it, with Arbor's bridge, and answered its state;
 * - `unbridged`: no bridge holds it, but Pi processes do (piProcesses.ts: the
 *   file open, named on the command line, or Pi started in the session's
 *   folder): a write to the file would not reach their memory;
 * - `several`: more than one Pi holds it, bridged or not: whatever one of them
 *   writes, the others' next entries orphan;
 * - `none`: no Pi to worry about.
 */
export type LivePi =
  | { kind: 'bridge'; entry: RegistryEntry; state: PiState }
  /** A Pi with the bridge announced this file but did not answer (hung, or a very loaded machine). */
  | { kind: 'unanswered'; entry: RegistryEntry; error: string }
  | { kind: 'unbridged'; processes: PiOnFile[] }
  | { kind: 'several'; bridges: Asked[]; processes: PiOnFile[] }
  | { kind: 'none' };

/** Every Pi on one session file: the bridges that announced it (with their state, or why they did not answer) and the Pis without one. */
export interface PisOnFile {
  bridges: Asked[];
  processes: PiOnFile[];
}

export interface FindLivePiOptions {
  /** Pi's agent folder (where the bridge registry lives). */
  agentDir: string;
  /** The session's working directory (a Pi without the bridge started there may hold it). */
  cwd?: string;
  /** The session's id (`pi --session <id>` names it). */
  sessionId?: string;
  signal?: AbortSignal;
  /** How long a bridge may take to answer its state, in ms. */
  timeoutMs?: number;
}

export type Asked = { entry: RegistryEntry; state: PiState } | { entry: RegistryEntry; error: string };

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

/** Every running Pi that holds `file`: bridges that announced it, and Pi processes without a bridge that hold it. */
export async function pisOnFile(file: string, options: FindLivePiOptions): Promise<PisOnFile> {
  const all = await askBridges(options.agentDir, options);
  const bridges: Asked[] = [];
  for (const b of all) {
    const holds =
      ('state' in b && (await sameFile(b.state.sessionFile || b.entry.sessionFile, file))) || (await sameFile(b.entry.sessionFile, file));
    if (holds) bridges.push(b);
  }
  options.signal?.throwIfAborted();
  // A Pi with a bridge is judged by its bridge's announcement (it may have switched sessions from inside).
  const bridged = new Set(all.map((b) => b.entry.pid));
  const processes = (await piProcessesOn(file, { agentDir: options.agentDir, cwd: options.cwd, sessionId: options.sessionId })).filter(
    (p) => !bridged.has(p.pid),
  );
  return { bridges, processes };
}

export async function findLivePi(file: string, options: FindLivePiOptions): Promise<LivePi> {
  const { bridges, processes } = await pisOnFile(file, options);
  if (bridges.length + processes.length > 1) return { kind: 'several', bridges, processes };
  const b = bridges[0];
  if (b) return 'state' in b ? { kind: 'bridge', entry: b.entry, state: b.state } : { kind: 'unanswered', entry: b.entry, error: b.error };
  return processes.length > 0 ? { kind: 'unbridged', processes } : { kind: 'none' };
}
