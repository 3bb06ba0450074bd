import { Projection } from './projection';
import { estimateProjectedContextTokens, projectedContextTokensWalk, type ContextTokens } from './contextTokens';
import type { TokenEstimator } from '../tokens/estimators';
import type { SessionIndex } from '../session/sessionIndex';
import { projectedEntryTokensWalk } from './entryTokens';
import { walkInMemory, type EntryWalk } from '../session/entryWalk';
import { formatTokens } from '../tokens/formatTokens';
import { mergeSystemMessages } from './systemMessage';
import type { SystemMessage } from '../session/types';

/**
 * The one home of the token numbers Arbor shows for a session: the tree's
 * compaction rows, the summary panel, the status bar and `arbor context` all
 * call these, so they agree for the same session, leaf and estimator.
 *
 * - context tokens at a leaf: the projected estimate (provider usage reported
 *   before the newest compaction or context edit on the path is stale, so it
 *   is not used past one);
 * - a compaction's "before": the `tokensBefore` it recorded;
 * - a compaction's "after": the context tokens with the compaction as the leaf
 *   (its summary plus every kept message), the same estimate as above.
 * The window comes from resolveContextWindow (engine/summarize/providers/models.ts).
 */

/** Context tokens of the session with `leafIndex` as the leaf. */
export function contextTokensAt(index: SessionIndex, leafIndex: number, estimator: TokenEstimator): ContextTokens {
  return estimateProjectedContextTokens(new Projection(index, leafIndex), estimator);
}

export interface CompactionNumbers {
  /** As recorded in the entry (undefined when it has none). */
  tokensBefore: number | undefined;
  /** The context right after the compaction: summary plus kept messages. */
  tokensAfter: number;
}

// An entry's path never changes once written (the file is append-only): its numbers are cached per index.
const afterCache = new WeakMap<SessionIndex, Map<string, number>>();

/**
 * Before and after of the compaction entry at `entryIndex`, from entries in memory or from the cache a run step
 * filled (compactionNumbersWalk through runEntryWalk: the tree's pages, the summary panel).
 */
export function compactionNumbers(index: SessionIndex, entryIndex: number, estimator: TokenEstimator): CompactionNumbers {
  return walkInMemory(compactionNumbersWalk(index, entryIndex, estimator));
}

/** compactionNumbers as a walk (session/entryWalk.ts): the "after" reads the context the compaction left, once per index. */
export function* compactionNumbersWalk(index: SessionIndex, entryIndex: number, estimator: TokenEstimator): EntryWalk<CompactionNumbers> {
  const entry = index.entry(entryIndex);
  if (entry.type !== 'compaction') throw new Error(`entry ${index.record(entryIndex).id} is not a compaction`);
  let cache = afterCache.get(index);
  if (!cache) afterCache.set(index, (cache = new Map()));
  const key = `${estimator.name}:${entryIndex}`;
  let after = cache.get(key);
  if (after === undefined) {
    after = (yield* projectedContextTokensWalk(new Projection(index, entryIndex), estimator)).tokens;
    cache.set(key, after);
  }
  // A foreign session's figures come from its own records: a Codex compaction records no size before (its reader's 0 is
  // "not recorded", never shown as "0 → N tokens").
  const recorded = typeof entry.tokensBefore === 'number' && !(index.agent !== 'pi' && entry.tokensBefore === 0);
  return { tokensBefore: recorded ? (entry.tokensBefore as number) : undefined, tokensAfter: after };
}

/** What the "after" of a compaction not yet written is computed from. */
export interface ProposedAfter {
  projection: Projection;
  summary: string;
  tokensBefore: number;
  firstKeptEntryId: string;
  /** The system message the entry will carry (spec 4.8: systemMessage), counted as the written context counts it. */
  systemMessage?: SystemMessage;
}

/**
 * The "after" of a compaction not yet written (the review panel): the
 * context the written entry leaves, counted as compactionNumbers counts it
 * (the whole estimate: no usage is current after a compaction): the summary,
 * every kept message of the planned projection from `firstKeptEntryId`, and
 * the system prompt in effect once (the entry's systemMessage merged with
 * the kept system messages).
 */
export function proposedTokensAfter(proposal: ProposedAfter, estimator: TokenEstimator): number {
  return walkInMemory(proposedTokensAfterWalk(proposal, estimator));
}

/** proposedTokensAfter as a walk (session/entryWalk.ts): it reads the kept entries whose counts are not known yet. */
export function* proposedTokensAfterWalk(proposal: ProposedAfter, estimator: TokenEstimator): EntryWalk<number> {
  const p = proposal.projection;
  let after = estimator.estimate({ role: 'compactionSummary', summary: proposal.summary, tokensBefore: proposal.tokensBefore });
  const systems: SystemMessage[] = proposal.systemMessage ? [proposal.systemMessage] : [];
  const firstKeptPos = p.entries.findIndex((i) => p.index.record(i).id === proposal.firstKeptEntryId);
  if (firstKeptPos >= 0)
    for (let pos = firstKeptPos; pos < p.length; pos++) {
      if (p.index.record(p.entries[pos]).type === 'compaction') continue;
      if (!p.roles(pos).includes('system')) {
        after += yield* projectedEntryTokensWalk(p, pos, estimator, 1);
        continue;
      }
      yield* p.read(pos, 1);
      for (const m of p.messages(pos)) {
        if (m.role === 'system') systems.push(m);
        else after += estimator.estimate(m);
      }
    }
  const system = mergeSystemMessages(systems);
  return system ? after + estimator.estimate(system) : after;
}

/** Share of the window in whole percent, as every view shows it. */
export function percentOfWindow(tokens: number, contextWindow: number): number {
  return contextWindow > 0 ? Math.round((tokens / contextWindow) * 100) : 0;
}

/**
 * The one context figure every view shows (`arbor context`, the tree, the
 * panel, the status bar), with where its parts come from: the tokens at the
 * leaf (provider usage after the latest compaction plus an estimate of what
 * follows it, else an estimate of the whole projected context, marked
 * estimated) and the window with its source.
 */
export interface ContextFigure {
  tokens: number;
  usageTokens: number;
  trailingTokens: number;
  /** No provider usage counts: the whole figure is an estimate. */
  estimated: boolean;
  /** Why it is estimated, in words (when it is). */
  estimatedBecause: string | undefined;
  estimator: string;
  contextWindow: number;
  windowSource: string;
  percent: number;
}

/** The figure from the numbers above: `tokens` from contextTokensAt, the window from the shared resolver. */
export function contextFigure(
  index: SessionIndex,
  leafIndex: number,
  tokens: ContextTokens,
  estimator: TokenEstimator,
  window: { contextWindow: number; source: string },
): ContextFigure {
  const estimated = tokens.usageTokens === 0;
  let estimatedBecause: string | undefined;
  if (estimated) {
    const path = leafIndex >= 0 ? index.pathTo(leafIndex) : [];
    const compacted = path.some((i) => index.record(i).type === 'compaction');
    estimatedBecause = compacted ? 'no response since the latest compaction' : 'no provider usage on this path';
  }
  return {
    tokens: tokens.tokens,
    usageTokens: tokens.usageTokens,
    trailingTokens: tokens.trailingTokens,
    estimated,
    estimatedBecause,
    estimator: estimator.name,
    contextWindow: window.contextWindow,
    windowSource: window.source,
    percent: percentOfWindow(tokens.tokens, window.contextWindow),
  };
}

/** `687 of 32,768 tokens (2%)`: the figure itself, as the status bar, the panel and the CLI write it. */
export function contextFigureShort(f: ContextFigure): string {
  return `${f.estimated ? '~' : ''}${f.tokens.toLocaleString('en-US')} of ${f.contextWindow.toLocaleString('en-US')} tokens (${f.percent}%)`;
}

/** `~687 / 32.8k (2%)`: the status bar's text (and the panel's), `~` when estimated. */
export function contextFigureStatus(f: ContextFigure): string {
  return `${f.estimated ? '~' : ''}${formatTokens(f.tokens)} / ${formatTokens(f.contextWindow)} (${f.percent}%)`;
}

/** Where the figure's parts come from, in words. */
export function contextFigureSources(f: ContextFigure): string {
  const tokens = f.estimated
    ? `estimated (${f.estimator}): ${f.estimatedBecause}`
    : `${f.usageTokens.toLocaleString('en-US')} reported by the provider + ${f.trailingTokens.toLocaleString('en-US')} estimated (${f.estimator})`;
  return `${tokens}; window: ${f.windowSource}`;
}
