import { planSessionCompaction } from '../../engine/operations/sessionCompactionPlan';
import { estimatorByName } from '../../engine/tokens/estimators';
import type { ArborServices } from '../services';
import type { SessionModel } from '../sessions/sessionStore';

/**
 * Why Compact has nothing to do on a session right now, planned on the
 * store's index with the session's settings (the engine's one plan, planSessionCompaction, that Compact makes),
 * or undefined when there is something to summarize. Asked before Compact
 * asks for instructions.
 */
export async function nothingToCompact(arbor: ArborServices, model: SessionModel): Promise<string | undefined> {
  const index = await arbor.store.ensureLoaded(model);
  const engine = await arbor.engineOptions(model);
  const { plan, settings } = await planSessionCompaction(index, { ...engine, estimator: estimatorByName(engine.estimator) });
  if (plan.kind !== 'nothing') return undefined;
  return plan.reason.includes('keepRecentTokens')
    ? `${plan.reason} (${settings.keepRecentTokens.toLocaleString('en-US')} tokens)`
    : plan.reason;
}

/** The one sentence Compact shows when there is nothing to compact. */
export function nothingToCompactMessage(title: string, reason: string): string {
  const why = reason.replace(/^nothing to summarize: /, '');
  return `Arbor: nothing to compact in "${title}": ${why}.`;
}
