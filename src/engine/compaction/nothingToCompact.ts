import { agentName, type AgentKind } from '../session/agents/agentKind';
import { counted } from '../text/plural';

/**
 * Why a session cannot be compacted now (issue 34 item 1): the one typed
 * answer the plan gives (planCompaction, planSessionCompaction), which the
 * CLI (`compact`, `plan-compaction`), the extension's Compact and the
 * Sessions view's rows all read; and every wording of it, here and nowhere
 * else (the extension never parses engine text).
 */
export type NothingToCompactWhy =
  /** The session holds no entry at all. */
  | { kind: 'empty' }
  /** The leaf is a compaction: nothing happened since. */
  | { kind: 'alreadyCompacted' }
  /** Another agent's session (Claude Code, Codex): Arbor never writes it. */
  | { kind: 'readOnly'; agent: Exclude<AgentKind, 'pi'> }
  /**
   * Everything since the last compaction (or the start) is within the kept
   * budget: `spanTokens` (counted as the cut counts them) against
   * `keepRecentTokens`. `suggestedKeepRecentTokens` is a smaller budget
   * with which the same plan finds something to summarize (null: none
   * does, or it was not looked for).
   */
  | {
      kind: 'withinKeptBudget';
      spanTokens: number;
      /** Whether the span starts after a compaction (else at the session's start). */
      afterCompaction: boolean;
      keepRecentTokens: number;
      suggestedKeepRecentTokens: number | null;
    };

/** The plan's answer when there is nothing to compact: the typed why and its sentence. */
export interface NothingToCompact {
  kind: 'nothing';
  why: NothingToCompactWhy;
  /** nothingToCompactReason(why), for the places that print it as it is. */
  reason: string;
}

export function nothingToCompact(why: NothingToCompactWhy): NothingToCompact {
  return { kind: 'nothing', why, reason: nothingToCompactReason(why) };
}

const tokens = (n: number) => counted(n, 'token');

/** Why there is nothing to compact, as one clause (no leading capital, no full stop). */
export function nothingToCompactReason(why: NothingToCompactWhy): string {
  switch (why.kind) {
    case 'empty':
      return 'the session has no entries';
    case 'alreadyCompacted':
      return 'the session already ends in a compaction';
    case 'readOnly':
      return `read-only: a ${agentName(why.agent)} session, which Arbor reads but never writes`;
    case 'withinKeptBudget': {
      const messages = `the session's messages${why.afterCompaction ? ' since its last compaction' : ''} (${tokens(why.spanTokens)})`;
      const budget = `the kept budget (keepRecentTokens ${tokens(why.keepRecentTokens)})`;
      return why.spanTokens < why.keepRecentTokens
        ? `${messages} all fit in ${budget}`
        : `${budget} reaches back to the first place where ${messages} can be cut: nothing before it to summarize`;
    }
  }
}

/**
 * The answer as the CLI, Compact's notice and a row's tooltip word it: "nothing to compact[ in X][ now]: why"
 * (no leading capital, no full stop).
 */
export function nothingToCompactText(why: NothingToCompactWhy, where: { in?: string; now?: boolean } = {}): string {
  return `nothing to compact${where.in ? ` in ${where.in}` : ''}${where.now ? ' now' : ''}: ${nothingToCompactReason(why)}`;
}

/** The CLI's way forward (the flag with a value that works), or undefined when keeping less does not help. */
export function nothingToCompactCliHint(why: NothingToCompactWhy): string | undefined {
  if (why.kind !== 'withinKeptBudget' || why.suggestedKeepRecentTokens === null) return undefined;
  return `to compact, keep less: --keep-recent-tokens ${why.suggestedKeepRecentTokens}`;
}

/** The label of the extension's action that compacts keeping less, or undefined when keeping less does not help. */
export function compactKeepingLessLabel(why: NothingToCompactWhy): string | undefined {
  if (why.kind !== 'withinKeptBudget' || why.suggestedKeepRecentTokens === null) return undefined;
  return `Compact Keeping Less (${tokens(why.suggestedKeepRecentTokens)})`;
}

/** A few words for a session row (its description): whether Compact does something now, and if not why. */
export function compactabilityShort(why: NothingToCompactWhy | undefined): string {
  if (!why) return 'can compact';
  switch (why.kind) {
    case 'empty':
      return 'empty';
    case 'alreadyCompacted':
      return 'compacted';
    case 'readOnly':
      return 'read-only';
    case 'withinKeptBudget':
      return `${tokens(why.spanTokens)} ≤ kept ${why.keepRecentTokens.toLocaleString('en-US')}`;
  }
}

/** One sentence for a session row's tooltip: whether it can be compacted now, and if not why and what to do. */
export function compactabilitySentence(why: NothingToCompactWhy | undefined): string {
  if (!why) return 'Compact: can be compacted now.';
  const keepLess = compactKeepingLessLabel(why);
  return `Compact: ${nothingToCompactText(why, { now: true })}.${keepLess ? ` Compact offers "${keepLess}".` : ''}`;
}

/**
 * Budgets tried, in order, for a session whose span is within the kept
 * budget: half, a quarter, an eighth of its tokens (two significant digits,
 * rounded down), each below the current budget.
 */
export function keepLessCandidates(spanTokens: number, keepRecentTokens: number): number[] {
  const out: number[] = [];
  for (const part of [2, 4, 8]) {
    const n = roundDown2(Math.floor(spanTokens / part));
    if (n >= 1 && n < keepRecentTokens && !out.includes(n)) out.push(n);
  }
  return out;
}

/** n rounded down to two significant digits (1,217 → 1,200; 87 → 87). */
function roundDown2(n: number): number {
  if (n < 100) return n;
  const step = 10 ** (Math.floor(Math.log10(n)) - 1);
  return Math.floor(n / step) * step;
}
