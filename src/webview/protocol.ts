/**
 * Messages between the summary panel (webview) and the extension. Both sides
 * import this module; it holds types and pure helpers only (no DOM, no vscode).
 */

export const PANEL_VIEW_TYPE = 'arbor.summary';

/** The structured sections of a summary, each as markdown: the engine's one section model. */
export type { SummarySections } from '../engine/summarize/summarySections';
import type { SummarySections } from '../engine/summarize/summarySections';
export { SECTION_TITLES } from '../engine/summarize/summarySections';

export interface FileLink {
  /** The path as written in the summary. */
  path: string;
  /** Absolute path, resolved against the session's cwd. */
  resolved: string;
  exists: boolean;
}

export interface UsageView {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  /** Total cost in USD, when the provider reported it. */
  cost: number | undefined;
}

export interface ReplacedEntry {
  id: string;
  title: string;
  text: string;
  /** The entry's label (bookmark), if it has one. */
  label?: string;
}

export interface ReplacedRange {
  /** Number of entries whose messages the summary replaces in the context. */
  count: number;
  entries: ReplacedEntry[];
  /** The first entry kept verbatim after the summary (compaction). */
  firstKeptEntryId?: string;
  /** The abandoned leaf (branch summary). */
  fromId?: string;
}

export type SummaryKind = 'compaction' | 'branch_summary';

/** One fact of the summarized span a continuation needs (issue 19), and whether the summary keeps it. */
export interface RetentionItem {
  kind: 'constraint' | 'request' | 'error' | 'decision' | 'file' | 'pin' | 'identifier';
  text: string;
  /** The entry it came from, or null. */
  entryId: string | null;
  kept: boolean;
  /** Missing, and "Put back" can add it without a model (a constraint or the request verbatim, a pin, a file name). */
  restorable: boolean;
}

export interface SummaryView {
  /** 'review': a proposal not written yet; 'entry': an entry in the file; 'expired': a proposal lost on reload. */
  mode: 'review' | 'entry' | 'expired';
  kind: SummaryKind;
  file: string;
  sessionTitle: string;
  entryId?: string;
  proposalId?: string;
  timestamp?: string;
  markdown: string;
  sections: SummarySections;
  readFiles: FileLink[];
  modifiedFiles: FileLink[];
  tokensBefore?: number;
  /** Estimated tokens of the context right after the summary (summary + kept entries). */
  tokensAfter?: number;
  usage?: UsageView;
  /** Shown instead of call sizes and cost when no model was called (e.g. "offline summary: 12 messages read, no model call"). */
  summarizerNote?: string;
  /** Who wrote it: "offline/arbor-offline", "openai/gpt-4.1-mini", or "hook". */
  author?: string;
  fromHook?: boolean;
  replaced?: ReplacedRange;
  customInstructions?: string;
  /** The retention check of the text shown: missing facts first. */
  retention?: RetentionItem[];
}

/** Persisted with the webview's setState, and handed to the panel serializer after a reload. */
export interface PanelState {
  view: SummaryView | undefined;
  /** The text being edited (review mode), if the editor was open. */
  editing: string | undefined;
}

export type ToWebview =
  | { type: 'show'; view: SummaryView }
  /** The retention check of the proposal's current text; with `summary`, an edit to open (facts put back), not written. */
  | { type: 'retention'; proposalId: string; items: RetentionItem[]; summary?: string }
  | { type: 'busy'; busy: boolean; message?: string }
  | { type: 'error'; message: string };

export type FromWebview =
  | { type: 'ready' }
  | { type: 'apply'; proposalId: string; summary?: string }
  | { type: 'discard'; proposalId: string }
  | { type: 'openFile'; path: string }
  | { type: 'reveal'; file: string; entryId: string }
  | { type: 'compactAgain'; file: string }
  /** Put the missing restorable facts back into `summary` (the edited text, or the proposal's when absent). */
  | { type: 'putBack'; proposalId: string; summary?: string }
  /** Check the edited text again. */
  | { type: 'recheck'; proposalId: string; summary: string };

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

/** Validates a message from the webview (it is untrusted input). */
export function parseFromWebview(v: unknown): FromWebview | undefined {
  if (!isObj(v) || typeof v.type !== 'string') return undefined;
  switch (v.type) {
    case 'ready':
      return { type: 'ready' };
    case 'apply':
      if (typeof v.proposalId !== 'string') return undefined;
      if (v.summary !== undefined && typeof v.summary !== 'string') return undefined;
      return { type: 'apply', proposalId: v.proposalId, summary: v.summary as string | undefined };
    case 'discard':
      return typeof v.proposalId === 'string' ? { type: 'discard', proposalId: v.proposalId } : undefined;
    case 'openFile':
      return typeof v.path === 'string' ? { type: 'openFile', path: v.path } : undefined;
    case 'reveal':
      return typeof v.file === 'string' && typeof v.entryId === 'string' ? { type: 'reveal', file: v.file, entryId: v.entryId } : undefined;
    case 'compactAgain':
      return typeof v.file === 'string' ? { type: 'compactAgain', file: v.file } : undefined;
    case 'putBack':
      if (typeof v.proposalId !== 'string') return undefined;
      if (v.summary !== undefined && typeof v.summary !== 'string') return undefined;
      return { type: 'putBack', proposalId: v.proposalId, summary: v.summary as string | undefined };
    case 'recheck':
      return typeof v.proposalId === 'string' && typeof v.summary === 'string'
        ? { type: 'recheck', proposalId: v.proposalId, summary: v.summary }
        : undefined;
    default:
      return undefined;
  }
}

/** What the checklist calls each kind of fact. */
export const RETENTION_KIND_TITLES: Record<RetentionItem['kind'], string> = {
  constraint: 'Constraint',
  request: 'Open request',
  error: 'Unresolved error',
  decision: 'Decision',
  file: 'Modified file',
  pin: 'Pinned entry',
  identifier: 'Identifier',
};
