import { appendEntries, type AppendOptions } from '../session/writer';
import { ArborUsageError } from '../session/diagnostics';
import { requestLabel } from '../livePi/client';
import { entriesWrittenByPi } from '../livePi/writtenByPi';
import type { WriteRoute } from '../livePi/writeRoute';
import type { SessionIndex } from '../session/sessionIndex';
import type { SessionEntry } from '../session/types';

export interface SetLabelOptions {
  index: SessionIndex;
  entryId: string;
  /** The new label; empty or null clears it. */
  label: string | null;
  /** Where the label entry is written (default: the file). */
  route?: WriteRoute;
  beforeWrite?: AppendOptions['beforeWrite'];
  signal?: AbortSignal;
}

export interface SetLabelResult {
  /** The label entry written, or undefined when the entry already had that label. */
  entry: SessionEntry | undefined;
  label: string | null;
}

/** One line, trimmed: labels are tree bookmarks (Pi's `/label` takes one line too). */
export function normalizeLabel(label: string | null | undefined): string | null {
  const l = (label ?? '').replace(/\s+/g, ' ').trim();
  return l ? l : null;
}

/**
 * Writes Pi's label entry for `entryId` (pins are labels). The entry is a
 * child of the current leaf, as Pi writes it, so the leaf stays where it is.
 * Through a live Pi, Pi writes it itself.
 */
export async function setLabel(options: SetLabelOptions): Promise<SetLabelResult> {
  const { index, entryId } = options;
  if (!index.has(entryId)) throw new ArborUsageError(`entry "${entryId}" is not in ${index.file}`);
  const label = normalizeLabel(options.label);
  if ((index.labelOf(entryId) ?? null) === label) return { entry: undefined, label };
  if (options.route?.via === 'pi') {
    const result = await requestLabel(options.route.entry, { entryId, label, waitMs: options.route.waitMs }, { signal: options.signal });
    const [entry] = await entriesWrittenByPi(index, result, options.signal);
    return { entry, label };
  }
  const entry: { type: string; targetId: string; label?: string } = { type: 'label', targetId: entryId };
  if (label) entry.label = label;
  const [written] = await appendEntries(index, [entry], { beforeWrite: options.beforeWrite, signal: options.signal });
  return { entry: written, label };
}
