import { Projection } from '../context/projection';
import type { SessionIndex } from '../session/sessionIndex';

/**
 * What a compaction entry already in a file replaced (the one home of this span): the context at its parent,
 * after the previous compaction (its kept entries, then what follows it), up to the entry's firstKeptEntryId
 * (the whole context when that id is not in it). The summary panel lists these entries; `arbor check-summary`
 * and the panel's retention checklist read their messages (engine/summarize/retention/spans.ts).
 */
export interface CompactedSpan {
  /** The context at the compaction's parent. */
  projection: Projection;
  /** Positions in `projection` the compaction summarized, oldest first. */
  positions: number[];
  /** The entry index of the first kept entry, or the parent's when the id is not in the context. */
  keptIndex: number;
}

/** The span the compaction entry at `i` replaced, or null for a compaction with no parent (or not a compaction). */
export function compactedSpan(index: SessionIndex, i: number): CompactedSpan | null {
  const e = index.entryOfType(i, 'compaction');
  const parent = index.parentIndex(i);
  if (parent < 0 || !e) return null;
  const p = new Projection(index, parent);
  // The previous compaction's summary is not part of the span (first in Pi's context, later in Codex's).
  const summary = p.summaryPos;
  let kept = p.entries.findIndex((x, pos) => pos > summary && index.record(x).id === e.firstKeptEntryId);
  if (kept < 0) kept = p.entries.length;
  const positions: number[] = [];
  for (let pos = 0; pos < kept; pos++) if (pos !== summary) positions.push(pos);
  return { projection: p, positions, keptIndex: kept < p.entries.length ? p.entries[kept] : parent };
}

/** The entries of the span that are messages in the file (not system prompts, older compactions or bookkeeping). */
export function compactedEntries(index: SessionIndex, i: number): number[] {
  const span = compactedSpan(index, i);
  if (!span) return [];
  return span.positions
    .map((pos) => span.projection.entries[pos])
    .filter((x) => {
      const rec = index.record(x);
      return rec.type === 'message' ? rec.role !== 'system' : rec.type === 'custom_message' || rec.type === 'branch_summary';
    });
}
