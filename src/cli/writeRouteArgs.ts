import { piAgentDir } from '../engine/settings/piSettings';
import { resolveWriteRoute, type WriteRoute } from '../engine/livePi/writeRoute';
import { stringFlag, type Flags } from './args';
import { ArborUsageError } from '../engine/session/diagnostics';
import type { SessionIndex } from '../engine/session/sessionIndex';

/**
 * The flags every writing command takes: --force writes to the file even while a Pi without the bridge
 * runs in the session's folder; --pi-wait SECONDS is how long a busy Pi may take to become idle (default 15).
 */
export const FORCE_FLAG = { force: { type: 'boolean' }, 'pi-wait': { type: 'string' } } as const;

/** How this command's write reaches the session: through its live Pi, else the file (see engine/livePi/writeRoute.ts). */
export function writeRouteFor(index: SessionIndex, flags: Flags, signal?: AbortSignal): Promise<WriteRoute> {
  const wait = stringFlag(flags, 'pi-wait');
  const seconds = wait === undefined ? undefined : Number(wait);
  if (seconds !== undefined && (!wait!.trim() || !Number.isFinite(seconds) || seconds < 0 || seconds > 120)) {
    throw new ArborUsageError(`--pi-wait takes a number of seconds from 0 to 120, got "${wait}"`);
  }
  const waitMs = seconds === undefined ? undefined : Math.round(seconds * 1000);
  return resolveWriteRoute(index.file, { agentDir: piAgentDir(), cwd: String(index.header.cwd ?? ''), force: flags.force === true, waitMs, signal });
}

/** Pi's leaf when the write goes through Pi (it may differ from the file's last entry), else undefined (the file's). */
export function plannedLeaf(route: WriteRoute): string | null | undefined {
  return route.via === 'pi' ? route.state.leafId : undefined;
}
