import { readAppended } from '../session/tail';
import { StaleSessionError } from '../session/writeErrors';
import { locateBranch } from '../branch/planBranch';
import { DEFAULT_ESTIMATOR, estimatorByName, type EstimatorName } from '../tokens/estimators';
import { nothingToCompactText } from '../compaction/nothingToCompact';
import { planSessionCompaction } from './sessionCompactionPlan';
import { withLiveSettings } from './liveSettings';
import type { SessionIndex } from '../session/sessionIndex';
import type { SettingsOverrides } from './sessionSettings';
import type { WriteRoute } from '../livePi/writeRoute';

/**
 * Pi was working when the write was asked, and its turn changed what the write would do (another cut, another
 * branch left behind): nothing was written, and the message says what changed. Planning again at Pi's new leaf is
 * the user's choice, not Arbor's (issue 36 item 1, the CLI: it cannot show the new plan for review).
 */
export class PiMovedOnError extends StaleSessionError {
  constructor(message: string) {
    super(message);
    this.name = 'PiMovedOnError';
  }
}

/**
 * Brings `index` to the end of the file once Arbor has waited for a working Pi: Pi wrote its turn's entries there
 * before it went idle, and the plan is made at its new leaf. A leaf the file does not hold is stale.
 */
export async function catchUpWithPi(index: SessionIndex, route: WriteRoute, signal?: AbortSignal): Promise<void> {
  if (route.via !== 'pi') return;
  const tail = await readAppended(index, { signal });
  if (tail.replaced) throw new StaleSessionError(`${index.file} was truncated or replaced while Pi worked; nothing was written.`);
  const leaf = route.state.leafId;
  if (leaf !== null && !index.has(leaf))
    throw new StaleSessionError(
      `Pi (pid ${route.state.pid}) is at entry ${leaf}, which ${index.file} does not hold: is Pi writing another file? Nothing was written.`,
    );
}

/** Pi's leaf when the write was asked while it was working, else undefined (nothing was waited for). */
function askedLeaf(route: WriteRoute): string | null | undefined {
  return route.via === 'pi' && route.busyWhenAsked ? route.busyWhenAsked.leafId : undefined;
}

export interface SameCompactionOptions extends SettingsOverrides {
  estimator?: EstimatorName;
  signal?: AbortSignal;
}

/**
 * After waiting for a working Pi: the compaction planned at Pi's leaf when it was asked and the one planned at
 * Pi's leaf now must keep from the same entry (the same cut), else PiMovedOnError. Nothing to wait for: nothing checked.
 */
export async function assertSameCompaction(index: SessionIndex, route: WriteRoute, options: SameCompactionOptions): Promise<void> {
  const asked = askedLeaf(route);
  if (asked === undefined || route.via !== 'pi') return;
  await catchUpWithPi(index, route, options.signal);
  const now = route.state.leafId;
  if (asked === now) return;
  const planOptions = { ...withLiveSettings({ ...options, route }), estimator: estimatorByName(options.estimator ?? DEFAULT_ESTIMATOR) };
  const cutAt = async (leaf: string | null) => {
    const { plan } = await planSessionCompaction(index, { ...planOptions, leafIndex: leaf === null ? -1 : index.indexOf(leaf) });
    return plan.kind === 'nothing' ? nothingToCompactText(plan.why) : `keeping from entry ${plan.firstKeptEntryId}`;
  };
  const before = await cutAt(asked);
  const after = await cutAt(now);
  if (before === after) return;
  throw new PiMovedOnError(
    `Pi (pid ${route.state.pid}) was working when the compaction was asked; its turn moved its leaf from ${asked ?? '(root)'} ` +
      `to ${now ?? '(root)'}, and the compaction asked (${before}) is now another (${after}). Nothing was written. ` +
      "Run the command again to compact at Pi's new leaf (`arbor plan-compaction FILE` shows it first).",
  );
}

/**
 * After waiting for a working Pi: the jump to `targetId` planned from Pi's leaf when it was asked and the one from
 * Pi's leaf now must land on the same entry and leave the same branch point, else PiMovedOnError (Pi moved
 * elsewhere on its own, e.g. by its own /tree). Pi's turn added on its leaf only grows the branch left behind.
 */
export async function assertSameJump(index: SessionIndex, route: WriteRoute, targetId: string, signal?: AbortSignal): Promise<void> {
  const asked = askedLeaf(route);
  if (asked === undefined || route.via !== 'pi') return;
  await catchUpWithPi(index, route, signal);
  const now = route.state.leafId;
  if (asked === now) return;
  const from = (leaf: string | null) => {
    const at = locateBranch(index, { targetId, fromId: leaf ?? undefined });
    return at.commonAncestorIndex < 0 ? '(root)' : index.record(at.commonAncestorIndex).id;
  };
  const before = from(asked);
  const after = from(now);
  if (now !== targetId && before === after) return;
  throw new PiMovedOnError(
    `Pi (pid ${route.state.pid}) was working when the jump to ${targetId} was asked; its leaf moved from ${asked ?? '(root)'} to ` +
      `${now ?? '(root)'}, ` +
      (now === targetId
        ? 'which is the entry asked: there is nothing to jump. '
        : `and the jump would now leave the branch from ${after} instead of ${before}. `) +
      'Nothing was written. Look at the tree (`arbor tree FILE`) and run the command again if you still want the jump.',
  );
}
