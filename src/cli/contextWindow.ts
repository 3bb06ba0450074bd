import { resolveContextWindowSource, type ResolvedContextWindow } from '../engine/summarize/providers/models';
import { readPiModelWindows } from '../engine/settings/piModels';
import type { ModelRef } from '../engine/context/buildContext';

/**
 * The CLI's context window and its source, from the shared resolver: --context-window when given,
 * else Pi's models.json, else Arbor's model table, else the one default.
 */
export function contextWindowSourceForModel(
  model: ModelRef | null,
  explicit?: number,
  env: NodeJS.ProcessEnv = process.env,
  recorded?: number,
): ResolvedContextWindow {
  return resolveContextWindowSource({ explicit, explicitName: '--context-window', model, recorded, piModels: readPiModelWindows(env) });
}

export function contextWindowForModel(model: ModelRef | null, explicit?: number): number {
  return contextWindowSourceForModel(model, explicit).contextWindow;
}
