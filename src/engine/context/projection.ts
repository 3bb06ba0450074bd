import { applyContextEdit, entryContextMessages, entryContextRoles } from './entryMessages';
import type { SessionIndex } from '../session/sessionIndex';
import type { AgentMessage, ContextEditEntry, SessionEntry } from '../session/types';
import { entryRead, type EntryWalk } from '../session/entryWalk';

/** How many positions' parsed messages a projection keeps (the oldest read go first). */
const MESSAGE_CACHE_POSITIONS = 4096;

/**
 * The compaction-aware view of one path (spec 2, Pi 1.6's projection): the
 * newest compaction on the path first, then the path entries from its
 * `firstKeptEntryId` up to it (system messages left out), then everything
 * after it. Without a compaction: the whole path. A compaction whose
 * `details.summaryFollows` is N (Codex, which sends the history it rebuilt
 * and then the summary) comes after the N entries that follow it instead. `context_edit` entries on the
 * projected entries apply, the latest per target.
 *
 * Message bodies are parsed only when asked for, so planning on a huge file
 * touches only the entries it needs, and only the last MESSAGE_CACHE_POSITIONS
 * positions read are kept parsed.
 */
export class Projection {
  readonly index: SessionIndex;
  /** The entry index of the leaf it projects. */
  readonly leaf: number;
  /** Entry indexes of the path, root first. */
  readonly path: readonly number[];
  /** Entry indexes in projected order. */
  readonly entries: readonly number[];
  /** Position in `path` of the newest compaction, or -1. */
  readonly compactionPathPos: number;
  /** Position in `entries` of the newest compaction (its summary): 0 (first, as Pi sends it), later when it says so, or -1. */
  readonly summaryPos: number;
  private readonly edits: Map<string, ContextEditEntry>;
  private readonly messageCache = new Map<number, AgentMessage[]>();
  /** The cached positions in the order they were read, and the slot the next one takes. */
  private readonly cacheRing: number[] = [];
  private cacheNext = 0;

  constructor(index: SessionIndex, leafIndex: number) {
    this.index = index;
    this.leaf = leafIndex;
    const path = index.pathTo(leafIndex);
    this.path = path;
    let compactionPos = -1;
    for (let i = path.length - 1; i >= 0; i--) {
      if (index.record(path[i]).type === 'compaction') {
        compactionPos = i;
        break;
      }
    }
    this.compactionPathPos = compactionPos;
    let entries: readonly number[];
    let summaryPos = compactionPos < 0 ? -1 : 0;
    if (compactionPos < 0) {
      // The path itself (both read-only): on a 1 GB session without a compaction a copy would be another 5e5 slots.
      entries = path;
    } else {
      const compaction = index.entryOfType(path[compactionPos], 'compaction');
      const projected: number[] = [];
      let found = false;
      for (let i = 0; i < compactionPos; i++) {
        const rec = index.record(path[i]);
        if (rec.id === compaction?.firstKeptEntryId) found = true;
        if (found && !(rec.type === 'message' && rec.role === 'system')) projected.push(path[i]);
      }
      // Pi puts the summary first; a compaction that says its summary follows N rebuilt entries (Codex) goes after them.
      const follows = Math.min(summaryFollows(compaction?.details), path.length - compactionPos - 1);
      const after = compactionPos + 1 + follows;
      for (let i = compactionPos + 1; i < after; i++) projected.push(path[i]);
      if (follows > 0) {
        summaryPos = projected.length;
        projected.push(path[compactionPos]);
      } else projected.unshift(path[compactionPos]);
      for (let i = after; i < path.length; i++) projected.push(path[i]);
      entries = projected;
    }
    this.summaryPos = summaryPos;
    this.entries = entries;
    this.edits = new Map();
    for (const i of entries) {
      if (index.record(i).type === 'context_edit') {
        const e = index.entryOfType(i, 'context_edit');
        if (e && typeof e.targetId === 'string') this.edits.set(e.targetId, e);
      }
    }
  }

  get length(): number {
    return this.entries.length;
  }

  get hasCompaction(): boolean {
    return this.compactionPathPos >= 0;
  }

  editFor(pos: number): ContextEditEntry | undefined {
    // Most paths have no edit: no id is made to look one up.
    if (this.edits.size === 0) return undefined;
    return this.edits.get(this.index.record(this.entries[pos]).id);
  }

  /** Roles of the messages at `pos`, without parsing message bodies when it can. */
  roles(pos: number): string[] {
    const i = this.entries[pos];
    const rec = this.index.record(i);
    if (rec.type === 'compaction' && pos !== this.summaryPos) return [];
    const edit = this.editFor(pos);
    if (edit && (edit.replacement === null || edit.replacement === undefined)) return [];
    return entryContextRoles(rec.type, rec.role, () => this.index.entry(i));
  }

  /** The context messages at `pos` (an older compaction kept inside the range contributes nothing). */
  messages(pos: number): AgentMessage[] {
    let cached = this.messageCache.get(pos);
    if (!cached) {
      cached = this.readMessages(pos, (i) => this.index.entry(i));
      // Bounded: a walk over a 1 GB span keeps only the last positions it read (a ring, not a Map's oldest key, which is slow to find).
      const slot = this.cacheRing.length < MESSAGE_CACHE_POSITIONS ? this.cacheRing.length : this.cacheNext;
      if (slot < this.cacheRing.length) this.messageCache.delete(this.cacheRing[slot]);
      this.cacheRing[slot] = pos;
      this.cacheNext = (slot + 1) % MESSAGE_CACHE_POSITIONS;
      this.messageCache.set(pos, cached);
    }
    return cached;
  }

  /**
   * The messages at `pos` for one use (a pass over a span, oldest to newest
   * or back): neither they nor their entry are kept (see
   * SessionIndex.transientEntry), unless already cached.
   */
  transientMessages(pos: number): AgentMessage[] {
    return this.messageCache.get(pos) ?? this.readMessages(pos, (i) => this.index.transientEntry(i));
  }

  private readMessages(pos: number, entryAt: (i: number) => SessionEntry): AgentMessage[] {
    const i = this.entries[pos];
    if (this.index.record(i).type === 'compaction' && pos !== this.summaryPos) return [];
    return applyContextEdit(entryContextMessages(entryAt(i)), this.editFor(pos));
  }

  /**
   * For a walk (session/entryWalk.ts) about to read messages(pos) or
   * transientMessages(pos), going on in `step`'s direction: asks for the
   * entry unless its messages are cached.
   */
  *read(pos: number, step: 1 | -1): EntryWalk<void> {
    if (!this.isCached(pos)) yield entryRead(this.entries, pos, step);
  }

  /** Whether the messages at `pos` are cached (reading them reads no entry). */
  isCached(pos: number): boolean {
    return this.messageCache.has(pos);
  }

  /** Every context message, in order, with the entry index that produced it. */
  allMessages(): { entryIndex: number; message: AgentMessage }[] {
    const out: { entryIndex: number; message: AgentMessage }[] = [];
    for (let pos = 0; pos < this.entries.length; pos++) {
      for (const message of this.messages(pos)) out.push({ entryIndex: this.entries[pos], message });
    }
    return out;
  }
}

/** The number of entries after a compaction that its summary follows in the context (`details.summaryFollows`, else 0). */
function summaryFollows(details: unknown): number {
  const n = typeof details === 'object' && details !== null ? (details as { summaryFollows?: unknown }).summaryFollows : undefined;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : 0;
}
