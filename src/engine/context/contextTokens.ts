import { mergeSystemMessages } from './systemMessage';
import type { Projection } from './projection';
import type { AgentMessage, SystemMessage, Usage } from '../session/types';
import type { TokenEstimator } from '../tokens/estimators';
import { projectedEntryTokensWalk } from './entryTokens';
import { walkInMemory, type EntryWalk } from '../session/entryWalk';

export interface ContextTokens {
  tokens: number;
  /** Tokens reported by the provider for the last assistant message with valid usage (0 if none). */
  usageTokens: number;
  /** Estimated tokens of the messages after it (everything, if no usage). */
  trailingTokens: number;
  /** Index into the context messages of that assistant message, or null. */
  lastUsageIndex: number | null;
}

export function usageTotal(usage: Usage): number {
  return usage.totalTokens || (usage.input || 0) + (usage.output || 0) + (usage.cacheRead || 0) + (usage.cacheWrite || 0);
}

/** Usage of an assistant message that completed normally and reported a non-zero count. */
export function validUsage(message: AgentMessage): Usage | undefined {
  if (message.role !== 'assistant') return undefined;
  const m = message;
  if (m.stopReason === 'aborted' || m.stopReason === 'error' || !m.usage || typeof m.usage !== 'object') return undefined;
  return usageTotal(m.usage) > 0 ? m.usage : undefined;
}

/** Spec 3: usage of the last valid assistant message plus an estimate of every message after it. */
export function estimateContextTokens(messages: readonly AgentMessage[], estimator: TokenEstimator): ContextTokens {
  let usageIndex = -1;
  let usage: Usage | undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    usage = validUsage(messages[i]);
    if (usage) {
      usageIndex = i;
      break;
    }
  }
  let trailing = 0;
  for (let i = usageIndex + 1; i < messages.length; i++) trailing += estimator.estimate(messages[i]);
  if (!usage) return { tokens: trailing, usageTokens: 0, trailingTokens: trailing, lastUsageIndex: null };
  const usageTokens = usageTotal(usage);
  return { tokens: usageTokens + trailing, usageTokens, trailingTokens: trailing, lastUsageIndex: usageIndex };
}

/**
 * Context tokens for planning a compaction: like estimateContextTokens, but a
 * usage recorded before the latest compaction or context edit on the path is
 * stale, and then the whole context is estimated (the current system prompt
 * once, plus every non-system message). Parses only what it needs: it walks
 * back from the leaf to the last valid usage. Its entries must be in memory;
 * a run step walks projectedContextTokensWalk instead (runEntryWalk).
 */
export function estimateProjectedContextTokens(projection: Projection, estimator: TokenEstimator): ContextTokens {
  return walkInMemory(projectedContextTokensWalk(projection, estimator));
}

/** estimateProjectedContextTokens as a walk (session/entryWalk.ts): newest first, stopping at the last valid usage. */
export function* projectedContextTokensWalk(projection: Projection, estimator: TokenEstimator): EntryWalk<ContextTokens> {
  const { index, path } = projection;
  let latestInvalidating = -1;
  for (let k = path.length - 1; k >= 0; k--) {
    const type = index.record(path[k]).type;
    if (type === 'context_edit' || type === 'compaction') {
      latestInvalidating = k;
      break;
    }
  }
  let trailing = 0;
  let messagesAfter = 0;
  let totalMessages = 0;
  for (let pos = 0; pos < projection.length; pos++) totalMessages += projection.roles(pos).length;
  for (let pos = projection.length - 1; pos >= 0; pos--) {
    const roles = projection.roles(pos);
    if (roles.length === 0) continue;
    yield* projection.read(pos, -1);
    const msgs = projection.messages(pos);
    if (!msgs.some((m) => validUsage(m))) {
      // No usage here: the entry's count (cached per entry) is what it adds.
      trailing += yield* projectedEntryTokensWalk(projection, pos, estimator, -1);
      messagesAfter += msgs.length;
      continue;
    }
    for (let j = msgs.length - 1; j >= 0; j--) {
      const usage = validUsage(msgs[j]);
      if (usage) {
        // The entry's place on the path (entry indexes compared: no id made per entry).
        const usagePathPos = path.lastIndexOf(projection.entries[pos]);
        if (usagePathPos > latestInvalidating) {
          const usageTokens = usageTotal(usage);
          return {
            tokens: usageTokens + trailing,
            usageTokens,
            trailingTokens: trailing,
            lastUsageIndex: totalMessages - messagesAfter - 1,
          };
        }
        return yield* wholeEstimate(projection, estimator);
      }
      trailing += estimator.estimate(msgs[j]);
      messagesAfter++;
    }
  }
  return yield* wholeEstimate(projection, estimator);
}

function* wholeEstimate(projection: Projection, estimator: TokenEstimator): EntryWalk<ContextTokens> {
  const systems: SystemMessage[] = [];
  let tokens = 0;
  for (let pos = 0; pos < projection.length; pos++) {
    const roles = projection.roles(pos);
    if (roles.length === 0) continue;
    yield* projection.read(pos, 1);
    const msgs = projection.messages(pos);
    if (!msgs.some((m) => m.role === 'system')) {
      tokens += yield* projectedEntryTokensWalk(projection, pos, estimator, 1);
      continue;
    }
    for (const m of msgs) {
      if (m.role === 'system') systems.push(m);
      else tokens += estimator.estimate(m);
    }
  }
  const system = mergeSystemMessages(systems);
  if (system) tokens += estimator.estimate(system);
  return { tokens, usageTokens: 0, trailingTokens: tokens, lastUsageIndex: null };
}

/** The auto-compaction threshold (spec 3): the window minus Pi's reserveTokens. The one number the CLI, status bar and panels show. */
export function compactionThreshold(contextWindow: number, settings: { reserveTokens: number }): number {
  return contextWindow - settings.reserveTokens;
}

/** Auto-compaction is due: compaction enabled and the context over the threshold. */
export function shouldCompact(
  contextTokens: number,
  contextWindow: number,
  settings: { enabled: boolean; reserveTokens: number },
): boolean {
  return settings.enabled && contextTokens > compactionThreshold(contextWindow, settings);
}
