import { applyContextEdit, entryContextMessages } from '../context/entryMessages';
import { addDetailsFileOps, addMessageFileOps, createFileOps, fileLists, type FileOps } from '../compaction/fileOps';
import { ArborUsageError } from '../session/diagnostics';
import { isTextBlock } from '../session/contentBlocks';
import type { SessionIndex } from '../session/sessionIndex';
import type { EntryRecord } from '../session/entryRecord';
import type { AgentMessage, ContextEditEntry, UserContentBlock } from '../session/types';
import type { TokenEstimator } from '../tokens/estimators';

export interface PlanBranchOptions {
  /** Entry id to move to. */
  targetId: string;
  /** The leaf being left (default: the session's leaf). */
  fromId?: string;
  /** Token budget for the prepared messages; 0 means no limit. */
  budget: number;
  estimator: TokenEstimator;
}

export interface PreparedMessage {
  entryIndex: number;
  message: AgentMessage;
  tokens: number;
}

export interface BranchPlan {
  oldLeafId: string | null;
  targetId: string;
  commonAncestorId: string | null;
  /** Entries from the old leaf back to (not including) the common ancestor, oldest first. */
  entryIndexes: number[];
  /** The messages that fit the budget, oldest first. */
  prepared: PreparedMessage[];
  totalTokens: number;
  /** The budget the messages were fitted to (0: no limit). */
  budget: number;
  fileOps: FileOps;
  readFiles: string[];
  modifiedFiles: string[];
  /** Where the leaf lands: the target, or the parent of a user/custom message target. */
  newLeafId: string | null;
  /** The text of a user/custom message target, handed back for editing. */
  editorText: string | null;
}

/** Steps 1-2 located: the entries a jump moves between, and the branch it leaves. */
export interface BranchLocation {
  targetIndex: number;
  /** The leaf being left (-1 for a header-only session). */
  oldLeafIndex: number;
  /** Entries from the old leaf back to (not including) the common ancestor, oldest first. */
  entryIndexes: number[];
  commonAncestorIndex: number;
}

/** Steps 1-2 from the tree alone (no entry read): throws when the target or the leaf left is not in the session. */
export function locateBranch(index: SessionIndex, options: Pick<PlanBranchOptions, 'targetId' | 'fromId'>): BranchLocation {
  const targetIndex = index.indexOf(options.targetId);
  if (targetIndex < 0) throw new ArborUsageError(`entry "${options.targetId}" is not in ${index.file}`);
  const oldLeafIndex = options.fromId === undefined ? index.leafIndex : index.indexOf(options.fromId);
  if (options.fromId !== undefined && oldLeafIndex < 0) throw new ArborUsageError(`entry "${options.fromId}" is not in ${index.file}`);
  return { targetIndex, oldLeafIndex, ...collectBranchEntries(index, oldLeafIndex, targetIndex) };
}

/**
 * Spec 6, steps 1-3 and 5 (prepare, pure): every entry it reads must be in memory (a small session, or one whose
 * branch was loaded). The run steps plan through loadBranchPlan (loadBranchPlan.ts), which loads a batch at a time.
 */
export function planBranch(index: SessionIndex, options: PlanBranchOptions): BranchPlan {
  const at = locateBranch(index, options);
  const prepared = prepareBranchMessages(index, at.entryIndexes, options.budget, options.estimator);
  return branchPlanOf(index, options, at, prepared, newLeafFor(index, at.targetIndex));
}

/** The plan from its parts (steps 1-2 located, step 3's messages, step 5's landing). */
export function branchPlanOf(
  index: SessionIndex,
  options: PlanBranchOptions,
  at: BranchLocation,
  prepared: PreparedBranchMessages,
  landing: { newLeafId: string | null; editorText: string | null },
): BranchPlan {
  const lists = fileLists(prepared.fileOps);
  return {
    oldLeafId: at.oldLeafIndex >= 0 ? index.record(at.oldLeafIndex).id : null,
    targetId: options.targetId,
    commonAncestorId: at.commonAncestorIndex >= 0 ? index.record(at.commonAncestorIndex).id : null,
    entryIndexes: at.entryIndexes,
    prepared: prepared.messages,
    totalTokens: prepared.totalTokens,
    budget: options.budget,
    fileOps: prepared.fileOps,
    readFiles: lists.readFiles,
    modifiedFiles: lists.modifiedFiles,
    newLeafId: landing.newLeafId,
    editorText: landing.editorText,
  };
}

/** Steps 1-2: the deepest common entry, and the abandoned entries in chronological order. */
export function collectBranchEntries(
  index: SessionIndex,
  oldLeafIndex: number,
  targetIndex: number,
): { entryIndexes: number[]; commonAncestorIndex: number } {
  if (oldLeafIndex < 0) return { entryIndexes: [], commonAncestorIndex: -1 };
  const oldPath = index.pathTo(oldLeafIndex);
  const onOld = new Set(oldPath);
  const targetPath = index.pathTo(targetIndex);
  let ancestor = -1;
  for (let k = targetPath.length - 1; k >= 0; k--) {
    if (onOld.has(targetPath[k])) {
      ancestor = targetPath[k];
      break;
    }
  }
  const entryIndexes: number[] = [];
  for (let k = oldPath.length - 1; k >= 0 && oldPath[k] !== ancestor; k--) entryIndexes.push(oldPath[k]);
  entryIndexes.reverse();
  return { entryIndexes, commonAncestorIndex: ancestor };
}

/** The message an abandoned entry contributes to a branch summary (tool results are carried by their calls). */
function branchMessage(index: SessionIndex, i: number, edit: ContextEditEntry | undefined): AgentMessage | undefined {
  const rec = index.record(i);
  switch (rec.type) {
    case 'message':
      if (rec.role === 'toolResult') return undefined;
      return applyContextEdit(entryContextMessages(index.entry(i)), edit)[0];
    case 'custom_message':
      return applyContextEdit(entryContextMessages(index.entry(i)), edit)[0];
    case 'branch_summary': {
      const e = index.entryOfType(i, 'branch_summary');
      return { role: 'branchSummary', summary: String(e?.summary ?? ''), fromId: String(e?.fromId ?? '') };
    }
    case 'compaction': {
      const e = index.entryOfType(i, 'compaction');
      return { role: 'compactionSummary', summary: String(e?.summary ?? ''), tokensBefore: Number(e?.tokensBefore) || 0 };
    }
    default:
      return undefined;
  }
}

/** Whether branchMessage reads the entry's line (a message but a tool result's): the others are parsed at load and stay. */
function branchMessageReadsLine(rec: EntryRecord): boolean {
  return rec.type === 'message' && rec.role !== 'toolResult';
}

export interface PreparedBranchMessages {
  messages: PreparedMessage[];
  totalTokens: number;
  fileOps: FileOps;
}

/**
 * Step 3 as a walk fed newest first, a batch at a time (pure: it reads only what its caller loaded; the run step,
 * loadBranchPlan.ts, loads each batch before `take` and drops it after): adds messages until the budget is reached; a
 * summary entry that does not fit may still go in while under 90% of it. Earlier branch summaries (not from hooks)
 * carry their file lists along; context edits apply to the messages they target. Both are read over the whole branch
 * when the walk starts: entries other than messages, parsed at load and kept in memory.
 */
export class BranchMessageWalk {
  private readonly fileOps = createFileOps();
  private readonly edits = new Map<string, ContextEditEntry>();
  private readonly messages: PreparedMessage[] = [];
  private total = 0;
  /** Position in entryIndexes of the next entry to take (newest first); -1 once the walk is done. */
  private next: number;

  constructor(
    private readonly index: SessionIndex,
    private readonly entryIndexes: readonly number[],
    private readonly budget: number,
    private readonly estimator: TokenEstimator,
  ) {
    for (const i of entryIndexes) {
      const rec = index.record(i);
      if (rec.type === 'branch_summary') {
        const e = index.entryOfType(i, 'branch_summary');
        if (e && e.fromHook !== true) addDetailsFileOps(e.details, this.fileOps);
      } else if (rec.type === 'context_edit') {
        const e = index.entryOfType(i, 'context_edit');
        if (e) this.edits.set(e.targetId, e);
      }
    }
    this.next = entryIndexes.length - 1;
  }

  get done(): boolean {
    return this.next < 0;
  }

  /**
   * The next batch, newest first: how many entries to take (at most `maxEntries`) and those among them whose lines
   * the steps read, at most `maxBytes` of lines (at least one entry).
   */
  nextBatch(maxEntries: number, maxBytes: number): { count: number; reads: number[] } {
    const reads: number[] = [];
    let count = 0;
    let bytes = 0;
    for (let k = this.next; k >= 0 && count < maxEntries; k--) {
      const i = this.entryIndexes[k];
      const rec = this.index.record(i);
      if (branchMessageReadsLine(rec)) {
        if (reads.length > 0 && bytes + rec.end - rec.start > maxBytes) break;
        bytes += rec.end - rec.start;
        reads.push(i);
      }
      count++;
    }
    return { count, reads };
  }

  /** Takes the next `count` entries, newest first, or fewer when the budget is reached (the walk is then done). */
  take(count: number): void {
    const { index, budget } = this;
    for (let n = 0; n < count && this.next >= 0; n++) {
      const i = this.entryIndexes[this.next--];
      const rec = index.record(i);
      const message = branchMessage(index, i, this.edits.get(rec.id));
      if (!message) continue;
      addMessageFileOps(message, this.fileOps, index.agent);
      const tokens = this.estimator.estimate(message);
      if (budget > 0 && this.total + tokens > budget) {
        if ((rec.type === 'compaction' || rec.type === 'branch_summary') && this.total < budget * 0.9) {
          this.messages.push({ entryIndex: i, message, tokens });
          this.total += tokens;
        }
        this.next = -1;
        return;
      }
      this.messages.push({ entryIndex: i, message, tokens });
      this.total += tokens;
    }
  }

  /** The messages taken, oldest first, their tokens, and the file operations of the branch. */
  result(): PreparedBranchMessages {
    return { messages: [...this.messages].reverse(), totalTokens: this.total, fileOps: this.fileOps };
  }
}

/** Step 3 over a branch whose entries are all in memory (see BranchMessageWalk). */
export function prepareBranchMessages(
  index: SessionIndex,
  entryIndexes: readonly number[],
  budget: number,
  estimator: TokenEstimator,
): PreparedBranchMessages {
  const walk = new BranchMessageWalk(index, entryIndexes, budget, estimator);
  walk.take(entryIndexes.length);
  return walk.result();
}

function contentToText(content: string | UserContentBlock[] | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isTextBlock)
    .map((b) => b.text)
    .join('');
}

/** Step 5: a user message or custom_message target puts the leaf on its parent and hands its text back. */
export function newLeafFor(index: SessionIndex, targetIndex: number): { newLeafId: string | null; editorText: string | null } {
  const rec = index.record(targetIndex);
  if (rec.type === 'message' && rec.role === 'user') {
    const m = index.entryOfType(targetIndex, 'message')?.message;
    return { newLeafId: rec.parentId, editorText: contentToText(m?.role === 'user' ? m.content : undefined) };
  }
  if (rec.type === 'custom_message') {
    const e = index.entryOfType(targetIndex, 'custom_message');
    return { newLeafId: rec.parentId, editorText: contentToText(e?.content) };
  }
  return { newLeafId: rec.id, editorText: null };
}
