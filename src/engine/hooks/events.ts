import type { AgentMessage, BranchSummaryEntry, CompactionEntry, SessionEntry, Usage } from '../session/types';
import type { FileOps } from '../compaction/fileOps';
import type { CompactionSettings } from '../compaction/planCompaction';

export type CompactionReason = 'manual' | 'threshold' | 'overflow';

export interface CompactionPreparation {
  messagesToSummarize: AgentMessage[];
  turnPrefixMessages: AgentMessage[];
  isSplitTurn: boolean;
  previousSummary: string | undefined;
  fileOps: FileOps;
  tokensBefore: number;
  firstKeptEntryId: string;
  settings: CompactionSettings;
}

export interface SessionBeforeCompactEvent {
  file: string;
  preparation: CompactionPreparation;
  /** The path from the root to the leaf. */
  branchEntries: SessionEntry[];
  customInstructions: string | undefined;
  reason: CompactionReason;
  willRetry: boolean;
  signal: AbortSignal;
}

export interface HookCompaction {
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  usage?: Usage;
  details?: unknown;
}

export type BeforeCompactResult = { cancel: true } | { compaction: HookCompaction } | undefined | void;

export interface BranchPreparation {
  targetId: string;
  oldLeafId: string | null;
  commonAncestorId: string | null;
  entriesToSummarize: SessionEntry[];
  userWantsSummary: boolean;
  customInstructions: string | undefined;
  replaceInstructions: boolean | undefined;
  label: string | undefined;
}

export interface SessionBeforeTreeEvent {
  file: string;
  preparation: BranchPreparation;
  signal: AbortSignal;
}

export type BeforeTreeResult =
  | {
      cancel?: boolean;
      summary?: { summary: string; usage?: Usage; details?: unknown };
      customInstructions?: string;
      replaceInstructions?: boolean;
      label?: string;
    }
  | undefined
  | void;

export interface HookEvents {
  session_before_compact: { event: SessionBeforeCompactEvent; result: BeforeCompactResult };
  session_compact: { event: { file: string; entry: CompactionEntry; fromHook: boolean }; result: void };
  session_compact_failed: { event: { file: string; error: Error; aborted: boolean }; result: void };
  session_before_tree: { event: SessionBeforeTreeEvent; result: BeforeTreeResult };
  session_tree: {
    event: {
      file: string;
      oldLeafId: string | null;
      newLeafId: string | null;
      summaryEntry: BranchSummaryEntry | undefined;
      written: SessionEntry[];
    };
    result: void;
  };
}

export type HookName = keyof HookEvents;
export type HookHandler<K extends HookName> = (event: HookEvents[K]['event']) => HookEvents[K]['result'] | Promise<HookEvents[K]['result']>;
