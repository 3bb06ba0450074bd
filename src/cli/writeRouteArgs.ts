import { piAgentDir } from '../engine/session/piAgentDir';
import { resolveWriteRoute, type WriteRoute } from '../engine/livePi/writeRoute';
import { stringFlag, type Flags } from './args';
import type { OptionSpec } from './commandSpec';
import { ArborUsageError } from '../engine/session/diagnostics';
import type { SessionIndex } from '../engine/session/sessionIndex';

/** The options every command that writes a session takes (see README "Using Arbor while Pi runs"). */
export const WRITE_ROUTE_OPTIONS: Record<string, OptionSpec> = {
  force: { type: 'boolean', description: "write to the file even while a Pi without the bridge runs in the session's folder" },
  'pi-wait': {
    type: 'string',
    value: 'SECONDS',
    description: 'how long a busy running Pi may take to become idle before the write is refused',
    default: '15',
  },
};

/** How this command's write reaches the session: through its live Pi, else the file (see engine/livePi/writeRoute.ts). */
export function writeRouteFor(index: SessionIndex, flags: Flags, signal?: AbortSignal): Promise<WriteRoute> {
  const wait = stringFlag(flags, 'pi-wait');
  const seconds = wait === undefined ? undefined : Number(wait);
  if (seconds !== undefined && (!wait!.trim() || !Number.isFinite(seconds) || seconds < 0 || seconds > 120)) {
    throw new ArborUsageError(`--pi-wait takes a number of seconds from 0 to 120, got "${wait}"`);
  }
  const waitMs = seconds === undefined ? undefined : Math.round(seconds * 1000);
  return resolveWriteRoute(index.file, {
    agentDir: piAgentDir(),
    cwd: String(index.header.cwd ?? ''),
    force: flags.force === true,
    waitMs,
    signal,
  });
}

/** Pi's leaf when the write goes through Pi (it may differ from the file's last entry), else undefined (the file's). */
export function plannedLeaf(route: WriteRoute): string | null | undefined {
  return route.via === 'pi' ? route.state.leafId : undefined;
}
