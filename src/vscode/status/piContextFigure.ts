import type { PiState } from '../../engine/livePi/protocol';
import { contextUseReported, type ContextUse } from '../../engine/operations/contextUse';

/**
 * The context use a running Pi reports for its session (its last usage after
 * the latest compaction plus an estimate of what follows, over its model's
 * window), in place of Arbor's own figure, when Pi knows it. Undefined when Pi
 * does not know yet (right after a compaction, before its next answer).
 */
export function withPiFigure(use: ContextUse, pi: PiState | undefined): (ContextUse & { fromPi: PiState }) | undefined {
  const u = pi?.contextUsage;
  if (!pi || !u || u.tokens === null || !(u.contextWindow > 0)) return undefined;
  const source = `the running Pi (pid ${pi.pid}, ${pi.idle ? 'idle' : 'busy'})`;
  return {
    ...contextUseReported(use, { tokens: u.tokens, contextWindow: u.contextWindow, windowSource: `the model of ${source}` }),
    fromPi: pi,
  };
}
