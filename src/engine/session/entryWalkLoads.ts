import type { EntryWalk } from './entryWalk';
import type { EntryLease, SessionIndex } from './sessionIndex';
import type { LineReadOptions } from './lineFile';

/**
 * Entries a walk has loaded at a time (those read from disk), and at most this many bytes of their lines (at least one
 * entry). Small enough that a batch's parsed entries die young in V8's heap: 256 entries / 8 MB (loadBranchPlan's
 * batch) raised the peak of planning a 100 MB compaction by 10 MB over reading an entry at a time; 64 / 1 MB the peak
 * of a 1 GB compaction's facts pass by about 100 MB (an LLM summarizer), 16 / 256 KB by about 30 MB (measured, one run
 * each, in the noise of a shared box); 8 / 128 KB was no better and slower.
 */
export const WALK_BATCH_ENTRIES = 16;
export const WALK_BATCH_BYTES = 256 * 1024;

export interface EntryWalkLoadOptions extends LineReadOptions {
  /** Batch bounds (default WALK_BATCH_ENTRIES and WALK_BATCH_BYTES); tests make them small. */
  batchEntries?: number;
  batchBytes?: number;
}

/**
 * The run step of an EntryWalk (entryWalk.ts): when the walk asks for an
 * entry that is not in memory, the batch from it on, in the walk's direction,
 * is loaded (SessionIndex.load, keep: false, strict: a line gone or holding
 * another entry since the index was made throws StaleSessionError naming the
 * file and line) and the previous batch released. Memory stays at one batch
 * however long the walk; a walk that stops early never reads what lies
 * beyond its batch. The signal is checked before each read.
 */
export async function runEntryWalk<T>(index: SessionIndex, walk: EntryWalk<T>, options: EntryWalkLoadOptions = {}): Promise<T> {
  const maxEntries = options.batchEntries ?? WALK_BATCH_ENTRIES;
  const maxBytes = options.batchBytes ?? WALK_BATCH_BYTES;
  const reads = { keep: false, strict: true, signal: options.signal, open: options.open };
  let lease: EntryLease | undefined;
  try {
    let step = walk.next();
    while (!step.done) {
      const { order, at, step: dir } = step.value;
      if (!index.isLoaded(order[at])) {
        lease?.release();
        lease = undefined;
        lease = await index.load(batchFrom(index, order, at, dir, maxEntries, maxBytes), reads);
      }
      step = walk.next();
    }
    return step.value;
  } finally {
    lease?.release();
  }
}

/** The entries to load from order[at] on, in `dir`'s direction: those not in memory, bounded by count and bytes. */
function batchFrom(index: SessionIndex, order: readonly number[], at: number, dir: 1 | -1, maxEntries: number, maxBytes: number): number[] {
  const out: number[] = [];
  let bytes = 0;
  // Entries in memory are passed over, a bounded number of them (the walk asks again past them).
  const end = dir > 0 ? Math.min(order.length, at + maxEntries * 16) : Math.max(-1, at - maxEntries * 16);
  for (let k = at; k !== end && out.length < maxEntries; k += dir) {
    const i = order[k];
    if (index.isLoaded(i)) continue;
    const rec = index.record(i);
    if (out.length > 0 && bytes + rec.end - rec.start > maxBytes) break;
    bytes += rec.end - rec.start;
    out.push(i);
  }
  return out;
}
