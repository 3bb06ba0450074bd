import { loadSession, type LoadSessionOptions } from '../engine/session/loadSession';
import { ArborUsageError } from '../engine/session/diagnostics';
import { ESTIMATOR_NAMES, estimatorByName, isEstimatorName, type TokenEstimator } from '../engine/tokens/estimators';
import { orList } from '../engine/text/orList';
import type { Flags } from './args';
import type { SessionIndex } from '../engine/session/sessionIndex';

export type OpenSessionOptions = Pick<LoadSessionOptions, 'onEntry'>;

/**
 * A session as the CLI's commands read it: entries whose lines are on disk are loaded by the command
 * (`index.load` / `withLoaded`, see cliLoads.ts) before the pure engine functions that read them.
 */
export async function openSession(file: string, options: OpenSessionOptions = {}): Promise<SessionIndex> {
  return loadSession(file, { onEntry: options.onEntry });
}

export function leafIndexFrom(index: SessionIndex, flags: Flags): number {
  const leaf = flags.leaf;
  if (typeof leaf !== 'string') return index.leafIndex;
  const i = index.indexOf(leaf);
  if (i < 0) throw new ArborUsageError(`--leaf ${leaf}: no such entry in ${index.file}`);
  return i;
}

export function estimatorFrom(flags: Flags): TokenEstimator {
  const name = flags.estimator;
  if (name !== undefined && !isEstimatorName(name)) {
    throw new ArborUsageError(`--estimator takes ${orList(ESTIMATOR_NAMES)}, got "${String(name)}"`);
  }
  return estimatorByName(name);
}
