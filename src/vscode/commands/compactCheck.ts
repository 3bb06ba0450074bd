import { planSessionCompaction } from '../../engine/operations/sessionCompactionPlan';
import { estimatorByName } from '../../engine/tokens/estimators';
import { compactKeepingLessLabel, nothingToCompactText, type NothingToCompact } from '../../engine/compaction/nothingToCompact';
import type { ArborServices } from '../services';
import type { SessionModel } from '../sessions/sessionStore';
import type { SessionIndex } from '../../engine/session/sessionIndex';

/**
 * Why Compact has nothing to do on a session right now, planned on the
 * store's index with the session's settings (the engine's one plan, planSessionCompaction, that Compact makes),
 * or undefined when there is something to summarize. Asked before Compact
 * asks for instructions, and for the Sessions view's rows.
 */
export async function nothingToCompact(
  arbor: ArborServices,
  model: SessionModel,
  options: { keepRecentTokens?: number; signal?: AbortSignal } = {},
): Promise<NothingToCompact | undefined> {
  return nothingToCompactIn(arbor, model, await arbor.store.ensureLoaded(model), options);
}

/** nothingToCompact on a given index of the session (the Sessions view's note reads a small session it has not loaded). */
export async function nothingToCompactIn(
  arbor: ArborServices,
  model: SessionModel,
  index: SessionIndex,
  options: { keepRecentTokens?: number; signal?: AbortSignal } = {},
): Promise<NothingToCompact | undefined> {
  const engine = await arbor.engineOptions(model);
  const { plan } = await planSessionCompaction(index, {
    ...engine,
    compaction: options.keepRecentTokens === undefined ? undefined : { keepRecentTokens: options.keepRecentTokens },
    estimator: estimatorByName(engine.estimator),
    signal: options.signal,
  });
  return plan.kind === 'nothing' ? plan : undefined;
}

/** What Compact shows when there is nothing to compact: the sentence and, when keeping less would work, the action that does. */
export function nothingToCompactNotice(
  title: string,
  nothing: NothingToCompact,
): { message: string; keepLess?: { label: string; keepRecentTokens: number } } {
  const message = `Arbor: ${nothingToCompactText(nothing.why, { in: `"${title}"` })}.`;
  const label = compactKeepingLessLabel(nothing.why);
  if (!label || nothing.why.kind !== 'withinKeptBudget' || nothing.why.suggestedKeepRecentTokens === null) return { message };
  return { message, keepLess: { label, keepRecentTokens: nothing.why.suggestedKeepRecentTokens } };
}
