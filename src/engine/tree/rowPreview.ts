import { entryPreview, type EntryPreview } from './entryPreview';
import { isOversizedEntry } from '../session/oversizedEntry';
import type { SessionIndex } from '../session/sessionIndex';

/**
 * The row preview of entry i (the CLI's and the editor's tree): an entry too
 * large to parse shows empty, so its row says so instead (its tokens are
 * estimated from its size).
 */
export function rowPreview(index: SessionIndex, i: number, max?: number): EntryPreview {
  const pv = entryPreview(index.entry(i), max);
  if (!isOversizedEntry(index, i)) return pv;
  const rec = index.record(i);
  return { ...pv, text: `(${((rec.end - rec.start) / 1048576).toFixed(0)} MB entry, too large to show; tokens estimated from its size)` };
}
