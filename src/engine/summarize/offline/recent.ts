import { callPath, isShell, sameTarget, type Turn } from './extract';

/**
 * The identifiers of the last turns that a continuation still uses: the
 * commands run and the paths the calls touched. The offline summarizer lists
 * them and the retention check looks for them, by this one definition.
 */

/** How many of each (commands, paths) count. */
export const RECENT_IDENTIFIERS = 3;
/** How many of the newest unresolved errors count (a span with dozens keeps the newest: older ones are history). */
export const RECENT_ERRORS = 8;
/** Over how many of the last turns. */
export const RECENT_TURNS = 2;

/** Commands of the last turns that did not fail (the model's shell calls and the user's own runs), oldest first. */
export function recentCommands(turns: readonly Turn[]): string[] {
  return turns
    .slice(-RECENT_TURNS)
    .flatMap((t) => [
      ...t.calls.filter((c) => isShell(c.tool) && c.target && !c.result?.isError).map((c) => c.target!),
      ...t.userRuns.filter((r) => !r.cancelled).map((r) => r.command.trim()),
    ]);
}

/** Paths the last turns' calls used (not failed), relative to cwd, oldest first. */
export function recentPaths(turns: readonly Turn[], cwd: string | undefined): string[] {
  return turns
    .slice(-RECENT_TURNS)
    .flatMap((t) => t.calls.filter((c) => !c.result?.isError && !isShell(c.tool)).map((c) => callPath(c)))
    .filter((f): f is string => !!f)
    .map((f) => sameTarget(f, cwd));
}
