/**
 * The one protocol between Arbor's webview panels and the extension: the
 * views each kind of panel shows (the summary panel, the entry panel, the
 * context view), the messages both ways as discriminated unions, and the one
 * validator of what a page sends. Both sides import this module; it holds
 * types and pure helpers only (no DOM, no vscode).
 */
import type { EntryPart } from '../engine/export/entryParts';

/** The kinds of panel: one host, one page script, one protocol; each kind draws its own view. */
export type PanelKind = 'summary' | 'entry' | 'context';

/** VS Code's viewType of each kind's panel (the summary panel's is restored after a reload). */
export const PANEL_VIEW_TYPES: Readonly<Record<PanelKind, string>> = {
  summary: 'arbor.summary',
  entry: 'arbor.entry',
  context: 'arbor.contextView',
};
export const PANEL_VIEW_TYPE = PANEL_VIEW_TYPES.summary;

/** The structured sections of a summary, each as markdown: the engine's one section model. */
export type { SummarySections } from '../engine/summarize/summarySections';
import type { SummarySections } from '../engine/summarize/summarySections';
import type { ContradictionKind } from '../engine/summarize/retention/titles';
import type { PinnedPartView } from '../engine/compaction/pinnedParts';
export type { PinnedPartView } from '../engine/compaction/pinnedParts';
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

/** One fact of the summarized span a continuation needs (issues 19 and 32), and whether the summary keeps it. */
export interface RetentionItem {
  kind: 'constraint' | 'request' | 'status' | 'result' | 'error' | 'decision' | 'file' | 'pin' | 'identifier';
  text: string;
  /** The entry it came from, or null. */
  entryId: string | null;
  kept: boolean;
  /** Missing, and "Put back" can add it without a model (a constraint or the request verbatim, a pin, a file name). */
  restorable: boolean;
}

/** Something the summary states that its span contradicts (issue 32): the summary's words, the span's evidence. */
export interface ContradictionItem {
  kind: ContradictionKind;
  summary: string;
  evidence: string;
  /** The entry the evidence is in, or null. */
  entryId: string | null;
}

/** The retention check of a text as the summary panel shows it. */
export interface RetentionView {
  items: RetentionItem[];
  contradictions: ContradictionItem[];
  /** Why the span cannot be checked (shown instead of a count), or undefined. */
  cannotCheck?: string;
  /** What the check says of the span it read (a Pi 0.73 branch summary's branch found in the tree), or undefined. */
  note?: string;
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
  /** The pinned entries the summary carries (its `<pinned>` blocks), shown as pins, oldest first. */
  pins?: PinnedPartView[];
  /** The note naming pinned entries left out over the limit. */
  pinsNote?: string;
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
  /** A jump's branch summary (issue 34 item 2): where the leaf lands, and the label the jump writes (or the entry has). */
  jump?: { newLeafId: string | null; label?: string; replaceInstructions?: boolean };
  /** The retention check of the text shown: missing facts first. */
  retention?: RetentionItem[];
  /** What the text shown states that the span contradicts (issue 32). */
  contradictions?: ContradictionItem[];
  /** Why the span cannot be checked: the panel says so instead of a count. */
  retentionCannotCheck?: string;
  /** What the check says of the span it read, or undefined. */
  retentionNote?: string;
}

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
  /** The figure's parts (engine/context/contextParts.ts): byRole plus other add up to `tokens`. */
  byRole: { role: string; tokens: number; count: number }[];
  /** What the figure holds besides the messages (negative when their estimates exceed it), and what that is. */
  other: { tokens: number; meaning: string };
  series: ContextPoint[];
}

/** What a panel shows: a kind of view per kind of panel (told apart by `kind`). */
export type PanelView = SummaryView | EntryView | ContextView;

/** The kind of panel that shows a view. */
export function panelKindOf(view: PanelView): PanelKind {
  return view.kind === 'entry' || view.kind === 'context' ? view.kind : 'summary';
}

export function isSummaryView(view: PanelView): view is SummaryView {
  return panelKindOf(view) === 'summary';
}

/** Persisted with the webview's setState; the summary panel's is handed to its serializer after a reload. */
export interface PanelState {
  view: PanelView | undefined;
  /** The text being edited (the summary panel in review mode), if the editor was open. */
  editing?: string;
}

/** Messages from the extension to a page. */
export type ToWebview =
  | { type: 'show'; view: PanelView }
  /** The retention check of the proposal's current text; with `summary`, an edit to open (facts put back), not written. */
  | {
      type: 'retention';
      proposalId: string;
      items: RetentionItem[];
      contradictions?: ContradictionItem[];
      cannotCheck?: string;
      summary?: string;
      /** The context the proposal leaves with the checked text as its summary (an edit changes tokens after and saved). */
      tokensAfter?: number;
    }
  | { type: 'busy'; busy: boolean; message?: string }
  | { type: 'error'; message: string }
  /** An action of the entry panel or the context view failed. */
  | { type: 'notice'; message: string };

/** Messages from a page to the extension (untrusted: read only through parseFromWebview). */
export type FromWebview =
  | { type: 'ready' }
  // The summary panel.
  | { type: 'apply'; proposalId: string; summary?: string }
  | { type: 'discard'; proposalId: string }
  | { type: 'openFile'; path: string }
  | { type: 'reveal'; file: string; entryId: string }
  | { type: 'compactAgain'; file: string }
  /** Put the missing restorable facts back into `summary` (the edited text, or the proposal's when absent). */
  | { type: 'putBack'; proposalId: string; summary?: string }
  /** Check the edited text again. */
  | { type: 'recheck'; proposalId: string; summary: string }
  // The entry panel (and, for showEntry, the context view).
  | { type: 'copy'; what: 'text' | 'id' }
  | { type: 'openAtLine' }
  | { type: 'jump' }
  | { type: 'showEntry'; entryId: string };

/** What each kind of panel may send: a message another kind sends is not this page's and is dropped. */
export const PANEL_MESSAGES: Readonly<Record<PanelKind, ReadonlySet<FromWebview['type']>>> = {
  summary: new Set(['ready', 'apply', 'discard', 'openFile', 'reveal', 'compactAgain', 'putBack', 'recheck']),
  entry: new Set(['ready', 'copy', 'openAtLine', 'jump', 'showEntry']),
  context: new Set(['ready', 'showEntry']),
};

/** Longest entry id a page may name (Pi's are 8 hex characters). */
const MAX_ENTRY_ID_CHARS = 200;

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

function optionalString(v: unknown): v is string | undefined {
  return v === undefined || typeof v === 'string';
}

/** One message of any kind, checked field by field and copied (nothing else of the object goes on). */
function parseMessage(v: Record<string, unknown>): FromWebview | undefined {
  switch (v.type) {
    case 'ready':
    case 'openAtLine':
    case 'jump':
      return { type: v.type };
    case 'apply':
    case 'putBack':
      return typeof v.proposalId === 'string' && optionalString(v.summary)
        ? { type: v.type, proposalId: v.proposalId, summary: v.summary }
        : undefined;
    case 'discard':
      return typeof v.proposalId === 'string' ? { type: 'discard', proposalId: v.proposalId } : undefined;
    case 'openFile':
      return typeof v.path === 'string' ? { type: 'openFile', path: v.path } : undefined;
    case 'reveal':
      return typeof v.file === 'string' && typeof v.entryId === 'string' ? { type: 'reveal', file: v.file, entryId: v.entryId } : undefined;
    case 'compactAgain':
      return typeof v.file === 'string' ? { type: 'compactAgain', file: v.file } : undefined;
    case 'recheck':
      return typeof v.proposalId === 'string' && typeof v.summary === 'string'
        ? { type: 'recheck', proposalId: v.proposalId, summary: v.summary }
        : undefined;
    case 'copy':
      return v.what === 'text' || v.what === 'id' ? { type: 'copy', what: v.what } : undefined;
    case 'showEntry':
      return typeof v.entryId === 'string' && v.entryId.length <= MAX_ENTRY_ID_CHARS
        ? { type: 'showEntry', entryId: v.entryId }
        : undefined;
    default:
      return undefined;
  }
}

/**
 * The one validator of what a page sends (untrusted input: the pages show
 * text from session files): a well-formed message the `kind` of panel sends,
 * else undefined.
 */
export function parseFromWebview(v: unknown, kind: PanelKind): FromWebview | undefined {
  if (!isObj(v) || typeof v.type !== 'string') return undefined;
  const msg = parseMessage(v);
  return msg && PANEL_MESSAGES[kind].has(msg.type) ? msg : undefined;
}

/** What the checklist calls each kind of contradiction (the CLI's words too). */
export { CONTRADICTION_TITLES as CONTRADICTION_KIND_TITLES } from '../engine/summarize/retention/titles';

/** What the checklist calls each kind of fact. */
export const RETENTION_KIND_TITLES: Record<RetentionItem['kind'], string> = {
  constraint: 'Constraint',
  request: 'Open request',
  status: 'Status',
  result: 'Result',
  error: 'Unresolved error',
  decision: 'Decision',
  file: 'Modified file',
  pin: 'Pinned entry',
  identifier: 'Identifier',
};
