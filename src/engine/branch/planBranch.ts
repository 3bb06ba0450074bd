import { applyContextEdit, entryContextMessages } from '../context/entryMessages';
import { addDetailsFileOps, addMessageFileOps, createFileOps, fileLists, type FileOps } from '../compaction/fileOps';
import { ArborUsageError } from '../session/diagnostics';
import { isTextBlock } from '../session/contentBlocks';
import type { SessionIndex } from '../session/sessionIndex';
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

/** Spec 6, steps 1-3 and 5 (prepare, pure). */
export function planBranch(index: SessionIndex, options: PlanBranchOptions): BranchPlan {
  const targetIndex = index.indexOf(options.targetId);
  if (targetIndex < 0) throw new ArborUsageError(`entry "${options.targetId}" is not in ${index.file}`);
  const oldLeafIndex = options.fromId === undefined ? index.leafIndex : index.indexOf(options.fromId);
  if (options.fromId !== undefined && oldLeafIndex < 0) throw new ArborUsageError(`entry "${options.fromId}" is not in ${index.file}`);

  const { entryIndexes, commonAncestorIndex } = collectBranchEntries(index, oldLeafIndex, targetIndex);
  const prepared = prepareBranchMessages(index, entryIndexes, options.budget, options.estimator);
  const lists = fileLists(prepared.fileOps);
  const landing = newLeafFor(index, targetIndex);
  return {
    oldLeafId: oldLeafIndex >= 0 ? index.record(oldLeafIndex).id : null,
    targetId: options.targetId,
    commonAncestorId: commonAncestorIndex >= 0 ? index.record(commonAncestorIndex).id : null,
    entryIndexes,
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

/**
 * Step 3: walk newest to oldest adding messages until the budget is reached; a
 * summary entry that does not fit may still go in while under 90% of it.
 * Earlier branch summaries (not from hooks) carry their file lists along.
 */
export function prepareBranchMessages(
  index: SessionIndex,
  entryIndexes: readonly number[],
  budget: number,
  estimator: TokenEstimator,
): { messages: PreparedMessage[]; totalTokens: number; fileOps: FileOps } {
  const fileOps = createFileOps();
  const edits = new Map<string, ContextEditEntry>();
  for (const i of entryIndexes) {
    const rec = index.record(i);
    if (rec.type === 'branch_summary') {
      const e = index.entryOfType(i, 'branch_summary');
      if (e && e.fromHook !== true) addDetailsFileOps(e.details, fileOps);
    } else if (rec.type === 'context_edit') {
      const e = index.entryOfType(i, 'context_edit');
      if (e) edits.set(e.targetId, e);
    }
  }
  const messages: PreparedMessage[] = [];
  let total = 0;
  for (let k = entryIndexes.length - 1; k >= 0; k--) {
    const i = entryIndexes[k];
    const rec = index.record(i);
    const message = branchMessage(index, i, edits.get(rec.id));
    if (!message) continue;
    addMessageFileOps(message, fileOps);
    const tokens = estimator.estimate(message);
    if (budget > 0 && total + tokens > budget) {
      if ((rec.type === 'compaction' || rec.type === 'branch_summary') && total < budget * 0.9) {
        messages.push({ entryIndex: i, message, tokens });
        total += tokens;
      }
      break;
    }
    messages.push({ entryIndex: i, message, tokens });
    total += tokens;
  }
  messages.reverse();
  return { messages, totalTokens: total, fileOps };
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
