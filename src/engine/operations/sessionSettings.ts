import { loadPiSettings, compactionSettingsFor, type PiSettings } from '../settings/piSettings';
import type { CompactionSettings } from '../compaction/planCompaction';
import type { ModelRef } from '../context/buildContext';
import { branchSummaryBudget } from './branchBudget';

export interface SettingsOverrides {
  /** Pi settings to use instead of reading them from disk. */
  piSettings?: PiSettings;
  compaction?: Partial<CompactionSettings>;
  branchSummaryReserveTokens?: number;
  env?: NodeJS.ProcessEnv;
}

/** Pi's settings for the session's cwd with modelOverrides applied, then the caller's overrides (flags win). */
export async function resolveSettings(
  cwd: string,
  model: ModelRef | null,
  overrides: SettingsOverrides = {},
): Promise<{ pi: PiSettings; compaction: CompactionSettings }> {
  const pi = overrides.piSettings ?? (await loadPiSettings({ cwd, env: overrides.env })).settings;
  const base = compactionSettingsFor(pi, model);
  const compaction: CompactionSettings = {
    enabled: overrides.compaction?.enabled ?? base.enabled,
    reserveTokens: overrides.compaction?.reserveTokens ?? base.reserveTokens,
    keepRecentTokens: overrides.compaction?.keepRecentTokens ?? base.keepRecentTokens,
  };
  return { pi, compaction };
}

/** The branch-summary budget for a session (branchBudget.ts) with its reserve from Pi's settings, unless overridden. */
export async function resolveBranchBudget(
  cwd: string,
  summarizerWindow: number | undefined,
  overrides: SettingsOverrides = {},
): Promise<number> {
  const { pi } = await resolveSettings(cwd, null, overrides);
  return branchSummaryBudget(summarizerWindow, overrides.branchSummaryReserveTokens ?? pi.branchSummary.reserveTokens);
}
