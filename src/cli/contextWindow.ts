import type { ModelRef } from '../engine/context/buildContext';

/** Context window used when neither a flag nor the model table knows the model. */
export const DEFAULT_CONTEXT_WINDOW = 128000;

/** The context window of the session's model. */
export function contextWindowForModel(model: ModelRef | null): number {
  void model;
  return DEFAULT_CONTEXT_WINDOW;
}
