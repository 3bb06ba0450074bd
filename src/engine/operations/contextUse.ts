import { buildContext, type ModelRef } from '../context/buildContext';
import { compactionThreshold, shouldCompact, type ContextTokens } from '../context/contextTokens';
import { contextFigure, contextTokensAt, percentOfWindow, type ContextFigure } from '../context/contextNumbers';
import type { TokenEstimator } from '../tokens/estimators';
import { resolveSettings } from './sessionSettings';
import type { CompactionSettings } from '../compaction/planCompaction';
import type { SessionIndex } from '../session/sessionIndex';
import type { AgentMessage } from '../session/types';
import { defaultCompactionSettings, type PiSettings } from '../settings/piSettings';
import type { ResolvedContextWindow } from '../summarize/providers/models';
import { recordedContextWindow } from '../session/agents/agentKind';
import { withContextLoaded } from './entryLoads';
import { contextParts, type ContextParts } from '../context/contextParts';
import { isOversizedEntry } from '../session/oversizedEntry';
import { entryTokens } from '../context/entryTokens';

/**
 * Context use of a session at a leaf (spec 3): the one figure (engine/context/contextNumbers.ts), the window and its source,
 * and the auto-compaction threshold from Pi's settings. The one home of these numbers: `arbor context`, the
 * status bar and the context panel all call contextUse; each caller only says where the window's explicit
 * value and Pi's settings come from (flags and process.env for the CLI, VS Code settings for the extension).
 */
export interface ContextUse {
  file: string;
  leafId: string | null;
  model: ModelRef | null;
  thinkingLevel: string;
  tokens: ContextTokens;
  contextWindow: number;
  /** Where the window comes from ("Pi's models.json", "Arbor's model table", ...). */
  windowSource: string;
  /** The one figure (engine/context/contextNumbers.ts), as `arbor context` prints it. */
  figure: ContextFigure;
  settings: CompactionSettings;
  /** contextWindow - reserveTokens: auto-compaction starts above this. */
  threshold: number;
  overThreshold: boolean;
  /** The context's messages with their tokens (only when asked for: counting them all is slow on a big session). */
  messages: { entryIndex: number; message: AgentMessage; tokens: number }[];
  /** The figure split into the messages by role and "other" (only with `messages`; the parts add up to the figure). */
  parts: ContextParts | undefined;
  /** Error reading Pi's settings or its models.json, if any (defaults are used then). */
  settingsError: string | undefined;
}

export interface ContextUseOptions {
  estimator: TokenEstimator;
  /**
   * The window for the model at the leaf, by the one resolver (resolveContextWindowSource) with the caller's
   * explicit value; `error` when a source could not be read (reported as settingsError, not thrown).
   */
  contextWindowFor: (model: ModelRef | null, recorded: number | undefined) => ResolvedContextWindow & { error?: string };
  /** Pi's settings for the session (default: read for the session's cwd). A failure is reported as settingsError. */
  piSettings?: () => Promise<PiSettings>;
  /** Environment for reading Pi's settings (its agent folder). */
  env?: NodeJS.ProcessEnv;
  /** Count every context message too (slow on a big session). */
  messages?: boolean;
  /** The context's entries join the bounded cache after (a caller that asks again reads them from memory: the status bar). */
  keepEntries?: boolean;
}

/** The use at `leafIndex`: the context's entries are loaded first (withContextLoaded) and released after. */
export async function contextUse(index: SessionIndex, leafIndex: number, options: ContextUseOptions): Promise<ContextUse> {
  const { estimator } = options;
  const { ctx, tokens } = await withContextLoaded(
    index,
    leafIndex,
    () => ({ ctx: buildContext(index, leafIndex), tokens: contextTokensAt(index, leafIndex, estimator) }),
    { keep: options.keepEntries },
  );
  let settings: CompactionSettings = defaultCompactionSettings();
  let settingsError: string | undefined;
  try {
    const piSettings = options.piSettings ? await options.piSettings() : undefined;
    settings = (await resolveSettings(index.header.cwd, ctx.model, { env: options.env, piSettings })).compaction;
  } catch (err) {
    settingsError = err instanceof Error ? err.message : String(err);
  }
  const window = options.contextWindowFor(ctx.model, recordedContextWindow(index));
  settingsError ??= window.error;
  const figure = contextFigure(index, leafIndex, tokens, estimator, window);
  // An entry too large to parse reads as empty: its row carries the estimate from its size.
  const messages = options.messages
    ? ctx.messages.map((m) => ({
        ...m,
        tokens: isOversizedEntry(index, m.entryIndex) ? entryTokens(index, m.entryIndex, estimator) : estimator.estimate(m.message),
      }))
    : [];
  return {
    file: index.file,
    leafId: ctx.leafId,
    model: ctx.model,
    thinkingLevel: ctx.thinkingLevel,
    tokens,
    contextWindow: window.contextWindow,
    windowSource: window.source,
    figure,
    settings,
    threshold: compactionThreshold(window.contextWindow, settings),
    overThreshold: shouldCompact(tokens.tokens, window.contextWindow, settings),
    messages,
    parts: options.messages ? contextParts(figure, messages) : undefined,
    settingsError,
  };
}

/**
 * The same use with a figure reported from elsewhere (a running agent's own count over its model's window):
 * the figure, the window and the threshold state follow it; Pi's settings stay.
 */
export function contextUseReported(use: ContextUse, reported: { tokens: number; contextWindow: number; windowSource: string }): ContextUse {
  const tokens = Math.max(0, Math.round(reported.tokens));
  const contextWindow = reported.contextWindow;
  const figure: ContextFigure = {
    ...use.figure,
    tokens,
    usageTokens: tokens,
    trailingTokens: 0,
    estimated: false,
    estimatedBecause: undefined,
    contextWindow,
    windowSource: reported.windowSource,
    percent: percentOfWindow(tokens, contextWindow),
  };
  return {
    ...use,
    tokens: { ...use.tokens, tokens },
    contextWindow,
    windowSource: reported.windowSource,
    figure,
    parts: use.parts ? contextParts(figure, use.messages) : undefined,
    threshold: compactionThreshold(contextWindow, use.settings),
    overThreshold: shouldCompact(tokens, contextWindow, use.settings),
  };
}
