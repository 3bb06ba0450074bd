/**
 * Messages between the entry and context panels (webviews) and the
 * extension. Types and pure validation only (no DOM, no vscode).
 */
import type { EntryPart } from '../engine/export/entryParts';
import type { UsageView } from './protocol';

export const ENTRY_VIEW_TYPE = 'arbor.entry';
export const CONTEXT_VIEW_TYPE = 'arbor.contextView';

/** One part of an entry (engine/export/entryParts.ts), its text cut to what the panel shows. */
export type PartView = EntryPart & {
  /** Characters of this part left out (not sent to the panel). */
  more?: number;
};

export interface EntryView {
  kind: 'entry';
  file: string;
  sessionTitle: string;
  entryId: string;
  parentId: string | null;
  /** 1-based line of the entry in the session file. */
  line: number;
  type: string;
  title: string;
  role: string;
  timestamp: string;
  model?: string;
  usage?: UsageView;
  /** Estimated tokens of the entry's message (the tree's number). */
  tokens: number | undefined;
  estimator: string;
  label?: string;
  parts: PartView[];
  /** Parts left out because the entry is too large to show whole. */
  moreParts: number;
  /** The entry is where the session stands: its leaf, or the entry a trailing label or leaf move hangs from (the tree's "● current"). */
  isLeaf: boolean;
}

export interface ContextMessageView {
  entryId: string;
  role: string;
  title: string;
  preview: string;
  tokens: number;
}

/** One point of the context-size chart: the context's tokens right after an entry on the active path. */
export interface ContextPoint {
  entryId: string;
  tokens: number;
  marker?: 'compaction' | 'branch_summary';
}

export interface ContextView {
  kind: 'context';
  file: string;
  sessionTitle: string;
  leafId: string | null;
  model: string | undefined;
  thinkingLevel: string;
  estimator: string;
  /** What the status bar shows for this session (same function, same numbers). */
  tokens: number;
  usageTokens: number;
  trailingTokens: number;
  contextWindow: number;
  threshold: number;
  reserveTokens: number;
  overThreshold: boolean;
  settingsError?: string;
  /** Short forms as the status bar writes them (formatTokens): the status line, the window, the threshold. */
  /** status: the status bar's text; source: where the figure's parts come from (contextFigureSources). */
  short: { status: string; source: string; window: string; threshold: string };
  /** The chart's vertical scale: its top and labelled ticks. */
  axis: { max: number; ticks: { value: number; label: string }[] };
  messages: ContextMessageView[];
  byRole: { role: string; tokens: number; count: number }[];
  series: ContextPoint[];
}

export type PanelView = EntryView | ContextView;

export type ToViews = { type: 'show'; view: PanelView } | { type: 'notice'; message: string };

export type FromViews =
  | { type: 'ready' }
  | { type: 'copy'; what: 'text' | 'id' }
  | { type: 'openAtLine' }
  | { type: 'jump' }
  | { type: 'showEntry'; entryId: string };

/** Validates a message from a panel (untrusted input). */
export function parseFromViews(v: unknown): FromViews | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const m = v as Record<string, unknown>;
  switch (m.type) {
    case 'ready':
    case 'openAtLine':
    case 'jump':
      return { type: m.type };
    case 'copy':
      return m.what === 'text' || m.what === 'id' ? { type: 'copy', what: m.what } : undefined;
    case 'showEntry':
      return typeof m.entryId === 'string' && m.entryId.length <= 200 ? { type: 'showEntry', entryId: m.entryId } : undefined;
    default:
      return undefined;
  }
}
