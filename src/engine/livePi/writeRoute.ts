import { ArborUsageError } from '../session/diagnostics';
import { assertWritableFile } from '../session/agents/readOnly';
import { findLivePi } from './findLivePi';
import { BridgeError } from './client';
import { waitForPiIdle } from './waitForIdle';
import { PI_HOLD_TEXT, type PiOnFile } from './piProcesses';
import type { PiState } from './protocol';
import type { RegistryEntry } from './registry';

/**
 * How a write to a session reaches it: through the running Pi that holds it
 * (its bridge), or straight to the file when no Pi holds it.
 */
export type WriteRoute =
  | {
      via: 'file';
      /** Written to the file although Pis hold it (the user said so): `orphanedBy` names them. */
      forced?: boolean;
      /** The Pis that hold the file and will not see the write (their next entry goes under their own leaf). */
      orphanedBy?: number[];
    }
  | {
      via: 'pi';
      entry: RegistryEntry;
      state: PiState;
      /** Pi's state when the write was asked, when Pi was working then and Arbor waited for it to stop (`state` is after). */
      busyWhenAsked?: PiState;
      waitMs?: number;
      /** Written through this Pi although other Pis hold the file too (the user said so): `orphanedBy` names them. */
      forced?: boolean;
      orphanedBy?: number[];
    };

/** How one Pi on a session is named to the user. */
function describePi(p: { pid: number; bridged: boolean; why?: string }): string {
  return `pid ${p.pid} (${p.bridged ? "with Arbor's bridge" : 'without the bridge'}${p.why ? `, ${p.why}` : ''})`;
}

/**
 * Pis hold the session that Arbor cannot write beside: one without Arbor's
 * bridge (a write to the file would not reach its memory; its next entry
 * would go under its own leaf), or more than one Pi, bridged or not (what
 * one writes, the others orphan). Nothing was written.
 */
export class PiRunningError extends ArborUsageError {
  /** Every Pi holding the file, bridged ones included. */
  readonly pids: number[];

  constructor(
    readonly file: string,
    readonly processes: PiOnFile[],
    readonly bridges: RegistryEntry[] = [],
  ) {
    const all = [
      ...bridges.map((b) => ({ pid: b.pid, bridged: true })),
      ...processes.map((p) => ({ pid: p.pid, bridged: false, why: PI_HOLD_TEXT[p.hold] })),
    ];
    const several = all.length > 1;
    super(
      (several
        ? `${all.length} Pis hold ${file}: ${all.map(describePi).join('; ')}. Whatever Arbor writes, through one of them or to the file, ` +
          'the others would not see: their next entries would go under their own leaves. Nothing was written. ' +
          "Quit all but one Pi (with Arbor's bridge) and try again. "
        : `Pi ${describePi(all[0] ?? { pid: 0, bridged: false })} holds ${file}: ` +
          'what Arbor writes to the file would not reach that Pi, and its next entry would go under its own leaf. Nothing was written. ' +
          'Either install the bridge (`arbor pi-bridge install`, or "Arbor: Install Pi Bridge") and `/reload` in Pi, so Arbor works through Pi, ' +
          'or quit Pi and try again. ') + '`--force` writes anyway.',
    );
    this.name = 'PiRunningError';
    this.pids = all.map((p) => p.pid);
  }
}

export interface WriteRouteOptions {
  agentDir: string;
  /** The session's working directory (from its header). */
  cwd: string;
  /** The session's id (from its header): `pi --session <id>` names it. */
  sessionId?: string;
  /** Write even when other Pis hold the file (through the one bridge if there is one, else to the file). */
  force?: boolean;
  /** How long Pi may take to become idle before a write through it is refused (the bridge's default when omitted). */
  waitMs?: number;
  /** Told at once when the Pi the write goes through is working (before any wait). */
  onBusy?: (state: PiState) => void;
  /**
   * Wait (up to `waitMs`) for a working Pi to stop before returning, so that what is planned next is planned at
   * Pi's leaf once it stops (a turn moves the leaf: a plan made before it ends is stale). Without it the bridge
   * waits for idle itself (enough for a write with no plan, a label).
   */
  waitForIdle?: boolean;
  signal?: AbortSignal;
}

/** Finds how to write `file`: through its one live Pi's bridge, else the file (refusing while other Pis hold it, unless forced). */
export async function resolveWriteRoute(file: string, options: WriteRouteOptions): Promise<WriteRoute> {
  // Before anything is planned or asked of a summarizer: another agent's session is never written.
  await assertWritableFile(file);
  const live = await findLivePi(file, {
    agentDir: options.agentDir,
    cwd: options.cwd,
    sessionId: options.sessionId,
    signal: options.signal,
  });
  if (live.kind === 'bridge')
    return { via: 'pi', entry: live.entry, ...(await idleState(live.entry, live.state, options)), waitMs: options.waitMs };
  if (live.kind === 'unanswered') {
    throw new BridgeError(
      'unreachable',
      `Pi (pid ${live.entry.pid}) holds ${file} with Arbor's bridge but did not answer (${live.error}); nothing was written. ` +
        'Try again; if Pi is hung, quit it.',
    );
  }
  if (live.kind === 'none') return { via: 'file' };
  const bridges = live.kind === 'several' ? live.bridges : [];
  const refusal = new PiRunningError(
    file,
    live.processes,
    bridges.map((b) => b.entry),
  );
  if (!options.force) throw refusal;
  // Forced: through the one answering bridge when there is exactly one (its Pi keeps the write), else to the file.
  const answering = bridges.filter((b): b is { entry: RegistryEntry; state: PiState } => 'state' in b);
  const through = bridges.length === 1 ? answering[0] : undefined;
  const orphanedBy = refusal.pids.filter((pid) => pid !== through?.entry.pid);
  if (through)
    return {
      via: 'pi',
      entry: through.entry,
      ...(await idleState(through.entry, through.state, options)),
      waitMs: options.waitMs,
      forced: true,
      orphanedBy,
    };
  return { via: 'file', forced: true, orphanedBy };
}

/** Pi's state to plan at: said at once when Pi is working, and (when asked) waited for until it stops. */
async function idleState(
  entry: RegistryEntry,
  state: PiState,
  options: WriteRouteOptions,
): Promise<{ state: PiState; busyWhenAsked?: PiState }> {
  if (state.idle) return { state };
  options.onBusy?.(state);
  if (!options.waitForIdle) return { state };
  return { state: await waitForPiIdle(entry, state, { waitMs: options.waitMs, signal: options.signal }), busyWhenAsked: state };
}
