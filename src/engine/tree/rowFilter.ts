import type { SessionIndex } from '../session/sessionIndex';
import { ARBOR_LEAF_MARKER } from '../operations/navigate';
import { oneLine } from './oneLine';
import type { SessionLayout } from './layout';

/**
 * Which entries are rows of the Sessions view (no vscode import:
 * unit-testable). As in Pi's /tree, bookkeeping entries (labels, model and
 * thinking changes, the session name, extension state) are not rows by
 * default: what they say is shown on the rows they concern (a label on the
 * entry it names, a model change on the next message, a jump's leaf move on
 * its target).
 */
export type TreeFilter = 'default' | 'noTools' | 'userOnly' | 'labeledOnly' | 'all';

export interface TreeFilterInfo {
  id: TreeFilter;
  /** Shown in menus and the view's description. */
  title: string;
  detail: string;
}

export const TREE_FILTERS: readonly TreeFilterInfo[] = [
  {
    id: 'default',
    title: 'Default',
    detail: 'The conversation; labels, model changes and other bookkeeping are shown on the entries they concern',
  },
  { id: 'noTools', title: 'No Tools', detail: 'Like Default, without tool results' },
  { id: 'userOnly', title: 'User Only', detail: 'Only your messages' },
  { id: 'labeledOnly', title: 'Labeled Only', detail: 'Only entries with a label' },
  { id: 'all', title: 'All Entries', detail: 'Every entry of the file, bookkeeping included' },
];

export function isTreeFilter(value: unknown): value is TreeFilter {
  return TREE_FILTERS.some((f) => f.id === value);
}

export function filterTitle(filter: TreeFilter): string {
  return TREE_FILTERS.find((f) => f.id === filter)?.title ?? filter;
}

/** What a session shows when no entry of it passes the filter (instead of expanding to nothing): what is missing first. */
export function emptyUnderFilterText(filter: TreeFilter): string {
  const what = filter === 'labeledOnly' ? 'No labeled entries' : filter === 'userOnly' ? 'No messages of yours' : 'No entries shown';
  return `${what} (filter: ${filterTitle(filter)}; Filter Tree... shows more)`;
}

/** Entry types that record a setting or a note about other entries rather than a step of the conversation. */
const BOOKKEEPING = new Set(['label', 'model_change', 'thinking_level_change', 'session_info', 'custom', 'usage']);

export function isBookkeeping(type: string): boolean {
  return BOOKKEEPING.has(type);
}

/** Whether entry `i` passes the filter (from its index record and labels: no parse). */
export function passesFilter(index: SessionIndex, i: number, filter: TreeFilter): boolean {
  const rec = index.record(i);
  switch (filter) {
    case 'all':
      return true;
    case 'userOnly':
      return rec.type === 'message' && rec.role === 'user';
    case 'labeledOnly':
      return index.labelOf(rec.id) !== undefined;
    case 'noTools':
      return !BOOKKEEPING.has(rec.type) && !(rec.type === 'message' && rec.role === 'toolResult');
    default:
      return !BOOKKEEPING.has(rec.type);
  }
}

/**
 * The rows of one line under a filter: the entries that pass it, and the
 * filtered-out entries where side branches start (shown as those branches,
 * so no part of the tree becomes unreachable). Cached per layout, line,
 * filter and entry count. A layout is only ever extended in place by entries
 * that continue its leaf (SessionLayout.extend: no new branch point, old
 * entries unchanged), so after an append only the line's new entries are
 * filtered; except under Labeled Only, where an appended label changes
 * whether an older entry is a row.
 */
export class LineRows {
  private cache = new WeakMap<SessionLayout, Map<string, { count: number; length: number; rows: readonly number[] }>>();

  rows(layout: SessionLayout, line: number, entries: readonly number[], filter: TreeFilter): readonly number[] {
    if (filter === 'all') return entries;
    let perLayout = this.cache.get(layout);
    if (!perLayout) this.cache.set(layout, (perLayout = new Map()));
    const key = `${line}:${filter}`;
    const count = layout.index.entryCount;
    const hit = perLayout.get(key);
    const isRow = (i: number) => passesFilter(layout.index, i, filter) || layout.branchesAt(i).length > 0;
    if (hit && hit.count === count && hit.length === entries.length) return hit.rows;
    let rows: readonly number[];
    if (hit && filter !== 'labeledOnly' && hit.count < count && hit.length <= entries.length) {
      rows = hit.rows.concat(entries.slice(hit.length).filter(isRow));
    } else {
      rows = entries.filter(isRow);
    }
    perLayout.set(key, { count, length: entries.length, rows });
    return rows;
  }

  clear(): void {
    this.cache = new WeakMap();
  }
}

/** How far up the tree a row looks for the bookkeeping entries it stands for. */
const MAX_WALK = 64;

/** The row shown as current, and what of the active path below it the filter hides. */
export interface ShownLeaf {
  /** The leaf, or its nearest ancestor that passes the filter (an entry row of the main line); -1: none. */
  index: number;
  /**
   * Conversation entries (not bookkeeping) after `index` up to the leaf:
   * entries the filter hides that Default would show (Labeled Only over the
   * replies after the last label, User Only over the replies after the last
   * request). 0 when the leaf is the row, or only bookkeeping (a label, a
   * jump's leaf move) follows it: that row *is* where the conversation stands.
   */
  hidden: number;
}

/**
 * The entry shown as current: the leaf, or when the leaf is not a row under
 * the filter (a label, a leaf move, a reply Labeled Only hides), its nearest
 * ancestor that is, with the count of conversation entries hidden between.
 */
export function shownLeaf(layout: Pick<SessionLayout, 'index' | 'leafIndex'>, filter: TreeFilter): ShownLeaf {
  const index = layout.index;
  let hidden = 0;
  for (let i = layout.leafIndex, steps = 0; i >= 0 && steps <= index.entryCount; i = index.parentIndex(i), steps++) {
    if (passesFilter(index, i, filter)) return { index: i, hidden };
    if (!BOOKKEEPING.has(index.record(i).type)) hidden++;
  }
  return { index: -1, hidden };
}

/** The entry a hidden entry is shown on: itself when it passes the filter, else its nearest ancestor that does (-1: none). */
export function shownAncestor(index: SessionIndex, i: number, filter: TreeFilter): number {
  for (let p = i, steps = 0; p >= 0 && steps <= index.entryCount; p = index.parentIndex(p), steps++) {
    if (passesFilter(index, p, filter)) return p;
  }
  return -1;
}

/**
 * Model and thinking-level changes that took effect just before entry `i`
 * and are not rows themselves: the filtered-out entries between `i` and the
 * previous row ("model anthropic/claude-x", "thinking high"), nearest first.
 */
export function changesBefore(index: SessionIndex, i: number, filter: TreeFilter): string[] {
  if (filter === 'all') return [];
  const out: string[] = [];
  let sawModel = false;
  let sawThinking = false;
  for (let p = index.parentIndex(i), steps = 0; p >= 0 && steps < MAX_WALK; p = index.parentIndex(p), steps++) {
    if (passesFilter(index, p, filter)) break;
    const type = index.record(p).type;
    if (type === 'model_change' && !sawModel) {
      sawModel = true;
      const e = index.entryOfType(p, 'model_change');
      out.push(`model ${oneLine(`${String(e?.provider ?? '?')}/${String(e?.modelId ?? '?')}`, 60)}`);
    } else if (type === 'thinking_level_change' && !sawThinking) {
      sawThinking = true;
      out.push(`thinking ${oneLine(String(index.entryOfType(p, 'thinking_level_change')?.thinkingLevel ?? '?'), 20)}`);
    }
  }
  return out;
}

/** Whether Arbor jumped to entry `i` without a summary (a leaf-move entry is one of its children). */
export function isJumpTarget(index: SessionIndex, i: number): boolean {
  for (const c of index.children(i)) {
    if (index.record(c).type !== 'custom') continue;
    if (index.entryOfType(c, 'custom')?.customType === ARBOR_LEAF_MARKER) return true;
  }
  return false;
}
