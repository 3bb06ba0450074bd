import { contextSettingsWalk, type ModelRef } from '../context/buildContext';
import { planCompactionWalk, type CompactionPlanResult, type CompactionSettings } from '../compaction/planCompaction';
import { runEntryWalk } from '../session/entryWalkLoads';
import type { SessionIndex } from '../session/sessionIndex';
import { Projection } from '../context/projection';
import type { TokenEstimator } from '../tokens/estimators';
import { resolveSettings, type SettingsOverrides } from './sessionSettings';
import { DEFAULT_PI_SETTINGS } from '../settings/piSettings';
import { keepLessCandidates, nothingToCompact } from '../compaction/nothingToCompact';

export interface SessionCompactionPlanOptions extends SettingsOverrides {
  estimator: TokenEstimator;
  /** Entry index of the leaf to plan at (default: the session's leaf). */
  leafIndex?: number;
  /** When given, the plan says whether the context crosses the auto-compaction threshold of the model's window. */
  contextWindowFor?: (model: ModelRef | null) => number;
  /**
   * Plan another agent's (read-only) session anyway, with Pi's default settings, for a preview that shows what a
   * compaction would summarize (`arbor plan-compaction`); without it such a session's plan is "read-only".
   */
  previewReadOnly?: boolean;
  /** Internal: the preview's own planning pass of a read-only session (see previewReadOnly). */
  agentPreview?: boolean;
  signal?: AbortSignal;
}

/**
 * The one way a session's compaction is planned (Compact in the extension, its "nothing to compact" check,
 * the Sessions view's "can compact" note, `arbor compact` and `arbor plan-compaction`): the model on the path to
 * the leaf picks Pi's modelOverrides, the caller's overrides win, then spec 4's plan. Another agent's session is
 * never compacted (read-only); one whose span is within the kept budget gets a smaller budget that would work, when
 * one does (planned again with it: at most three more walks of a span no larger than the budget).
 */
export async function planSessionCompaction(
  index: SessionIndex,
  options: SessionCompactionPlanOptions,
): Promise<{
  plan: CompactionPlanResult;
  settings: CompactionSettings;
  model: ModelRef | null;
  leafIndex: number;
  contextWindow: number | undefined;
}> {
  const leafIndex = options.leafIndex ?? index.leafIndex;
  const agent = index.agent;
  if (agent !== 'pi' && options.previewReadOnly) {
    // A preview of another agent's session: Pi's defaults, never the settings of that agent's working directory.
    return planSessionCompaction(index, { ...options, previewReadOnly: false, piSettings: DEFAULT_PI_SETTINGS, agentPreview: true });
  }
  if (agent !== 'pi' && !options.agentPreview) {
    // Pi's settings of another agent's working directory are not read: nothing is planned there.
    const settings = (await resolveSettings(index.header.cwd, null, { ...options, piSettings: DEFAULT_PI_SETTINGS })).compaction;
    return { plan: nothingToCompact({ kind: 'readOnly', agent }), settings, model: null, leafIndex, contextWindow: undefined };
  }
  // One projection (and one path) for the whole plan: on a 1 GB session each is an array of 5e5 entries.
  const projection = leafIndex >= 0 ? new Projection(index, leafIndex) : undefined;
  const path = projection?.path ?? [];
  const model = (await runEntryWalk(index, contextSettingsWalk(index, path), { signal: options.signal })).model;
  const { compaction: settings } = await resolveSettings(index.header.cwd, model, options);
  const contextWindow = options.contextWindowFor?.(model);
  // The plan (pure) reads the file-operation hints of the projected entries: a streamed load leaves a tool result's
  // undecided, and deciding it reads the line's bytes, so it is done here, asynchronously, before planning.
  if (projection) await index.decideFileOpHints(projection.entries, { signal: options.signal });
  // The entries the plan reads (the newest back to the cut, and to the last provider usage; the summarized ones that may
  // hold a file operation; the pinned ones) are loaded a batch at a time as the plan walks them, and dropped after.
  const walk = planCompactionWalk(index, {
    settings,
    estimator: options.estimator,
    leafIndex,
    projection,
    contextWindow,
    signal: options.signal,
  });
  const plan = await runEntryWalk(index, walk, { signal: options.signal });
  if (plan.kind === 'nothing' && plan.why.kind === 'withinKeptBudget') {
    for (const keepRecentTokens of keepLessCandidates(plan.why.spanTokens, settings.keepRecentTokens)) {
      const retry = planCompactionWalk(index, {
        settings: { ...settings, keepRecentTokens },
        estimator: options.estimator,
        leafIndex,
        projection,
        signal: options.signal,
      });
      if ((await runEntryWalk(index, retry, { signal: options.signal })).kind !== 'plan') continue;
      return {
        plan: nothingToCompact({ ...plan.why, suggestedKeepRecentTokens: keepRecentTokens }),
        settings,
        model,
        leafIndex,
        contextWindow,
      };
    }
  }
  return { plan, settings, model, leafIndex, contextWindow };
}
