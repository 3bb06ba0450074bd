/**
 * Types of the Pi coding agent's JSONL session format (version 3, plus the
 * entry kinds Pi 1.6 adds). Field names are the on-disk contract: never rename.
 */

export const CURRENT_SESSION_VERSION = 3;

export interface SessionHeader {
  type: 'session';
  version?: number;
  id: string;
  timestamp: string;
  cwd: string;
  parentSession?: string;
  [key: string]: unknown;
}

export interface TextBlock {
  type: 'text';
  text: string;
}
export interface ImageBlock {
  type: 'image';
  data: string;
  mimeType: string;
}
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  [key: string]: unknown;
}
export interface ToolCallBlock {
  type: 'toolCall';
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}
export type UserContentBlock = TextBlock | ImageBlock;
export type AssistantContentBlock = TextBlock | ThinkingBlock | ToolCallBlock;

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens?: number;
  cost?: Record<string, unknown>;
  [key: string]: unknown;
}

export type StopReason = 'stop' | 'length' | 'toolUse' | 'error' | 'aborted';

export interface UserMessage {
  role: 'user';
  content: string | UserContentBlock[];
  timestamp?: number;
}
export interface AssistantMessage {
  role: 'assistant';
  content: AssistantContentBlock[];
  api?: string;
  provider?: string;
  model?: string;
  usage?: Usage;
  stopReason?: StopReason;
  errorMessage?: string;
  timestamp?: number;
  [key: string]: unknown;
}
export interface ToolResultMessage {
  role: 'toolResult';
  toolCallId: string;
  toolName: string;
  content: UserContentBlock[];
  details?: unknown;
  isError?: boolean;
  timestamp?: number;
  /** Tool calls made inside this tool (a subagent's), when the tool reports them; read defensively. */
  nestedCalls?: unknown;
}
export interface BashExecutionMessage {
  role: 'bashExecution';
  command: string;
  output: string;
  exitCode?: number | null;
  cancelled?: boolean;
  truncated?: boolean;
  fullOutputPath?: string;
  excludeFromContext?: boolean;
  timestamp?: number;
}
export interface CustomMessage {
  role: 'custom';
  customType: string;
  content: string | UserContentBlock[];
  display?: boolean;
  details?: unknown;
  timestamp?: number;
}
export interface SystemMessage {
  role: 'system';
  content: string | UserContentBlock[];
  sections?: Record<string, string | null>;
  toolsAdded?: unknown[];
  /** Tools removed since the previous system message (declarations with a `name`). */
  toolsRemoved?: unknown[];
  timestamp?: number;
}
export interface BranchSummaryMessage {
  role: 'branchSummary';
  summary: string;
  fromId: string;
  timestamp?: number;
}
export interface CompactionSummaryMessage {
  role: 'compactionSummary';
  summary: string;
  tokensBefore: number;
  timestamp?: number;
}

export type AgentMessage =
  | UserMessage
  | AssistantMessage
  | ToolResultMessage
  | BashExecutionMessage
  | CustomMessage
  | SystemMessage
  | BranchSummaryMessage
  | CompactionSummaryMessage;

export type MessageRole = AgentMessage['role'];

interface EntryBase {
  id: string;
  parentId: string | null;
  timestamp: string;
}

export interface MessageEntry extends EntryBase {
  type: 'message';
  message: AgentMessage;
}
export interface ModelChangeEntry extends EntryBase {
  type: 'model_change';
  provider: string;
  modelId: string;
}
export interface ThinkingLevelChangeEntry extends EntryBase {
  type: 'thinking_level_change';
  thinkingLevel: string;
}
export interface FileDetails {
  readFiles: string[];
  modifiedFiles: string[];
}
export interface CompactionEntry extends EntryBase {
  type: 'compaction';
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  usage?: Usage;
  fromHook?: boolean;
  details?: unknown;
  systemMessage?: SystemMessage;
}
export interface BranchSummaryEntry extends EntryBase {
  type: 'branch_summary';
  summary: string;
  fromId: string;
  usage?: Usage;
  fromHook?: boolean;
  details?: unknown;
}
export interface CustomEntry extends EntryBase {
  type: 'custom';
  customType: string;
  data?: unknown;
}
export interface CustomMessageEntry extends EntryBase {
  type: 'custom_message';
  customType: string;
  content: string | UserContentBlock[];
  display?: boolean;
  details?: unknown;
}
export interface LabelEntry extends EntryBase {
  type: 'label';
  targetId: string;
  label?: string;
}
export interface SessionInfoEntry extends EntryBase {
  type: 'session_info';
  name?: string;
}
export interface ContextEditEntry extends EntryBase {
  type: 'context_edit';
  targetId: string;
  replacement: { content: string | UserContentBlock[] } | null;
}
export interface UsageEntry extends EntryBase {
  type: 'usage';
  usage?: Usage;
  [key: string]: unknown;
}
/**
 * An entry whose `type` Arbor does not know: loaded, shown, preserved, never
 * in the context. The parser wraps it so the union narrows on `type` (its
 * own `type` is 'unknown'); `originalType` is the type as written and `raw`
 * the parsed line itself, every field as read: anything that writes the
 * entry out writes `raw` (see entryJson), never this wrapper.
 */
export interface UnknownEntry extends Omit<EntryBase, 'timestamp'> {
  type: 'unknown';
  /** The line's `timestamp` when it is a string (nothing else is trusted to be one). */
  timestamp?: string;
  originalType: string;
  raw: Readonly<Record<string, unknown>>;
}

export type KnownEntry =
  | MessageEntry
  | ModelChangeEntry
  | ThinkingLevelChangeEntry
  | CompactionEntry
  | BranchSummaryEntry
  | CustomEntry
  | CustomMessageEntry
  | LabelEntry
  | SessionInfoEntry
  | ContextEditEntry
  | UsageEntry;

export type KnownEntryType = KnownEntry['type'];

export type SessionEntry = KnownEntry | UnknownEntry;

export function isMessageEntry(e: SessionEntry): e is MessageEntry {
  return e.type === 'message';
}
