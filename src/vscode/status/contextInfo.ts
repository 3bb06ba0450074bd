import { contextUse as engineContextUse, type ContextUse } from '../../engine/operations/contextUse';
import { estimatorByName } from '../../engine/tokens/estimators';
import type { SessionIndex } from '../../engine/session/sessionIndex';
import { contextWindowFor, engineEnv, readConfig, type ArborConfig } from '../platform/settings';
import { loadPiSettings, type PiSettings } from '../../engine/settings/piSettings';
import { baseDirFor } from '../sessions/sessionBaseDir';

export type { ContextUse } from '../../engine/operations/contextUse';

/**
 * Pi's settings for a session: global, then the project's (.pi/settings.json
 * in the session's cwd; for a session whose cwd does not exist here, in the
 * workspace folder). Invalid values throw, naming the file and key.
 */
export async function loadSessionPiSettings(cwd: string, config: ArborConfig = readConfig()): Promise<PiSettings> {
  return (await loadPiSettings({ cwd: baseDirFor(cwd), env: engineEnv(config) })).settings;
}

/**
 * Context use of a session at its leaf (engine/operations/contextUse.ts), with VS Code's settings: the estimator,
 * arbor.contextWindow / arbor.modelContextWindows, and Pi's settings from where the extension finds them.
 */
export async function contextUse(
  index: SessionIndex,
  leafIndex: number = index.leafIndex,
  options: { messages?: boolean } = {},
): Promise<ContextUse> {
  const config = readConfig();
  return engineContextUse(index, leafIndex, {
    estimator: estimatorByName(config.estimator),
    contextWindowFor: (model, recorded) => contextWindowFor(model, config, recorded),
    piSettings: () => loadSessionPiSettings(index.header.cwd, config),
    env: engineEnv(config),
    messages: options.messages,
    // Asked again after every append (the status bar): the context stays in the bounded cache, only new lines are read.
    keepEntries: true,
  });
}
