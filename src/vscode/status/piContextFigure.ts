import { compactionThreshold, shouldCompact } from '../../engine/context/contextTokens';
import type { PiState } from '../../engine/livePi/protocol';
import type { ContextUse } from './contextInfo';
import { percentOfWindow } from '../../engine/context/contextNumbers';

/**
 * The context use a running Pi reports for its session (its last usage after
 * the latest compaction plus an estimate of what follows, over its model's
 * window), in place of Arbor's own figure, when Pi knows it. Undefined when Pi
 * does not know yet (right after a compaction, before its next answer).
 */
export function withPiFigure(use: ContextUse, pi: PiState | undefined): (ContextUse & { fromPi: PiState }) | undefined {
  const u = pi?.contextUsage;
  if (!pi || !u || u.tokens === null || !(u.contextWindow > 0)) return undefined;
  const tokens = Math.max(0, Math.round(u.tokens));
  const source = `the running Pi (pid ${pi.pid}, ${pi.idle ? 'idle' : 'busy'})`;
  return {
    ...use,
    tokens: { ...use.tokens, tokens },
    contextWindow: u.contextWindow,
    figure: {
      ...use.figure,
      tokens,
      usageTokens: tokens,
      trailingTokens: 0,
      estimated: false,
      estimatedBecause: undefined,
      contextWindow: u.contextWindow,
      windowSource: `the model of ${source}`,
      percent: percentOfWindow(tokens, u.contextWindow),
    },
    threshold: compactionThreshold(u.contextWindow, use.settings),
    overThreshold: shouldCompact(tokens, u.contextWindow, use.settings),
    fromPi: pi,
  };
}
