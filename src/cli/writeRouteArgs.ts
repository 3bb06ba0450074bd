import { piAgentDir } from '../engine/session/piAgentDir';
import { resolveWriteRoute, type WriteRoute } from '../engine/livePi/writeRoute';
import { stringFlag, type Flags } from './args';
import type { Io } from './output';
import type { OptionSpec } from './commandSpec';
import { ArborUsageError } from '../engine/session/diagnostics';
import type { SessionIndex } from '../engine/session/sessionIndex';

/** The options every command that writes a session takes (see README "Using Arbor while Pi runs"). */
export const WRITE_ROUTE_OPTIONS: Record<string, OptionSpec> = {
  force: {
    type: 'boolean',
    description: 'write even while other Pis hold the session (a Pi without the bridge, or more than one Pi); they will not see the write',
  },
  'pi-wait': {
    type: 'string',
    value: 'SECONDS',
    description: 'how long a busy running Pi may take to become idle before the write is refused',
    default: '15',
  },
};

export interface WriteRouteForOptions {
  signal?: AbortSignal;
  /** Where "Pi is working" is said at once (stderr). */
  io?: Io;
  /** What waits for Pi: `plan` (compact, navigate: Arbor waits, then plans at Pi's leaf) or `write` (label: the bridge waits). */
  waitFor?: 'plan' | 'write';
}

/** How this command's write reaches the session: through its live Pi, else the file (see engine/livePi/writeRoute.ts). */
export function writeRouteFor(index: SessionIndex, flags: Flags, options: WriteRouteForOptions = {}): Promise<WriteRoute> {
  const wait = stringFlag(flags, 'pi-wait');
  const seconds = wait === undefined ? undefined : Number(wait);
  if (seconds !== undefined && (!wait!.trim() || !Number.isFinite(seconds) || seconds < 0 || seconds > 120)) {
    throw new ArborUsageError(`--pi-wait takes a number of seconds from 0 to 120, got "${wait}"`);
  }
  const waitMs = seconds === undefined ? undefined : Math.round(seconds * 1000);
  return resolveWriteRoute(index.file, {
    agentDir: piAgentDir(),
    cwd: String(index.header.cwd ?? ''),
    sessionId: typeof index.header.id === 'string' ? index.header.id : undefined,
    force: flags.force === true,
    waitMs,
    signal: options.signal,
    waitForIdle: options.waitFor === 'plan',
    onBusy: (state) =>
      options.io?.err(
        `arbor: Pi (pid ${state.pid}) is working; Arbor will ${options.waitFor === 'plan' ? 'plan' : 'write'} when it stops ` +
          `(up to ${waitMs === undefined ? 15 : Math.round(waitMs / 1000)} s, --pi-wait; Ctrl-C cancels)`,
      ),
  });
}

/** Pi's leaf when the write goes through Pi (it may differ from the file's last entry), else undefined (the file's). */
export function plannedLeaf(route: WriteRoute): string | null | undefined {
  return route.via === 'pi' ? route.state.leafId : undefined;
}

/** How the write went, for `--json`: `via`, and for a forced write the Pis that hold the file and will not see it. */
export function routeJson(route: WriteRoute): { via: 'pi' | 'file'; piPid?: number; forced?: true; orphanedBy?: number[] } {
  return {
    via: route.via,
    ...(route.via === 'pi' ? { piPid: route.state.pid } : {}),
    ...(route.forced ? { forced: true as const, orphanedBy: route.orphanedBy ?? [] } : {}),
  };
}

/** For a forced write: says so, and which Pis it leaves behind (their next entries go under their own leaves). */
export function reportForced(io: Io, route: WriteRoute): void {
  if (!route.forced) return;
  const pids = route.orphanedBy ?? [];
  io.out(
    `forced (--force): written although ${pids.length === 1 ? `Pi pid ${pids[0]} holds` : `Pis pid ${pids.join(', ')} hold`} this session; ` +
      `${pids.length === 1 ? 'it does' : 'they do'} not see the write, and ${pids.length === 1 ? 'its next entry goes' : 'their next entries go'} ` +
      'under their own leaf, leaving what Arbor wrote on a side branch',
  );
}
