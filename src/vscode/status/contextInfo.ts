import { buildContext, type ModelRef } from '../../engine/context/buildContext';
import { compactionThreshold, shouldCompact, type ContextTokens } from '../../engine/context/contextTokens';
import { contextFigure, contextTokensAt, type ContextFigure } from '../../engine/context/contextNumbers';
import { estimatorByName } from '../../engine/tokens/estimators';
import { resolveSettings } from '../../engine/operations/sessionSettings';
import type { CompactionSettings } from '../../engine/compaction/planCompaction';
import type { SessionIndex } from '../../engine/session/sessionIndex';
import type { AgentMessage } from '../../engine/session/types';
import { contextWindowFor, engineEnv, readConfig, type ArborConfig } from '../platform/settings';
import { defaultCompactionSettings, loadPiSettings, type PiSettings } from '../../engine/settings/piSettings';
import { baseDirFor } from '../sessions/sessionBaseDir';
import { recordedContextWindow } from '../../engine/session/agents/agentKind';

/**
 * Pi's settings for a session: global, then the project's (.pi/settings.json
 * in the session's cwd; for a session whose cwd does not exist here, in the
 * workspace folder). Invalid values throw, naming the file and key.
 */
export async function loadSessionPiSettings(cwd: string, config: ArborConfig = readConfig()): Promise<PiSettings> {
  return (await loadPiSettings({ cwd: baseDirFor(cwd), env: engineEnv(config) })).settings;
}

/** Context use of a session at its leaf (spec 3), with the threshold from Pi's settings. */
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
  /** Error reading Pi's settings, if any (defaults are used then). */
  settingsError: string | undefined;
}

export async function contextUse(
  index: SessionIndex,
  leafIndex: number = index.leafIndex,
  options: { messages?: boolean } = {},
): Promise<ContextUse> {
  const config = readConfig();
  const ctx = buildContext(index, leafIndex);
  const estimator = estimatorByName(config.estimator);
  // The one number for context tokens (engine/context/contextNumbers.ts), as `arbor context` reports it.
  const tokens = contextTokensAt(index, leafIndex, estimator);
  let settings: CompactionSettings = defaultCompactionSettings();
  let settingsError: string | undefined;
  try {
    const piSettings = await loadSessionPiSettings(index.header.cwd, config);
    settings = (await resolveSettings(index.header.cwd, ctx.model, { env: engineEnv(config), piSettings })).compaction;
  } catch (err) {
    settingsError = err instanceof Error ? err.message : String(err);
  }
  const window = contextWindowFor(ctx.model, config, recordedContextWindow(index));
  const contextWindow = window.contextWindow;
  settingsError ??= window.error;
  return {
    file: index.file,
    leafId: ctx.leafId,
    model: ctx.model,
    thinkingLevel: ctx.thinkingLevel,
    tokens,
    contextWindow,
    windowSource: window.source,
    figure: contextFigure(index, leafIndex, tokens, estimator, window),
    settings,
    threshold: compactionThreshold(contextWindow, settings),
    overThreshold: shouldCompact(tokens.tokens, contextWindow, settings),
    messages: options.messages ? ctx.messages.map((m) => ({ ...m, tokens: estimator.estimate(m.message) })) : [],
    settingsError,
  };
}
