import { resolveContextWindow } from '../engine/summarize/providers/models';
import type { ModelRef } from '../engine/context/buildContext';

/** The CLI's context window: --context-window when given, else the shared resolver's (model table, else the one default). */
export function contextWindowForModel(model: ModelRef | null, explicit?: number): number {
  return resolveContextWindow({ explicit, model });
}
