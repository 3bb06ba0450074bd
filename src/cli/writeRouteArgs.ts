import { piAgentDir } from '../engine/settings/piSettings';
import { resolveWriteRoute, type WriteRoute } from '../engine/livePi/writeRoute';
import type { Flags } from './args';
import type { SessionIndex } from '../engine/session/sessionIndex';

/** The flag every writing command takes: write to the file even while a Pi without the bridge runs in the session's folder. */
export const FORCE_FLAG = { force: { type: 'boolean' } } as const;

/** How this command's write reaches the session: through its live Pi, else the file (see engine/livePi/writeRoute.ts). */
export function writeRouteFor(index: SessionIndex, flags: Flags, signal?: AbortSignal): Promise<WriteRoute> {
  return resolveWriteRoute(index.file, { agentDir: piAgentDir(), cwd: String(index.header.cwd ?? ''), force: flags.force === true, signal });
}

/** Pi's leaf when the write goes through Pi (it may differ from the file's last entry), else undefined (the file's). */
export function plannedLeaf(route: WriteRoute): string | null | undefined {
  return route.via === 'pi' ? route.state.leafId : undefined;
}
