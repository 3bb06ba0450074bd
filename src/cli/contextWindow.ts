import { lookupModel } from '../engine/summarize/providers/models';
import type { ModelRef } from '../engine/context/buildContext';

/** Context window used when neither a flag nor the model table knows the model. */
export const DEFAULT_CONTEXT_WINDOW = 128000;

/** The context window of the session's model, from the built-in model table when it knows it. */
export function contextWindowForModel(model: ModelRef | null): number {
  return (model && lookupModel(model.modelId)?.contextWindow) || DEFAULT_CONTEXT_WINDOW;
}
