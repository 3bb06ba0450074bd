import type { CompactionPlan } from '../../compaction/planCompaction';
import type { BranchPlan } from '../../branch/planBranch';
import { prepareBranchMessages } from '../../branch/planBranch';
import { summarizedBranchEntries } from '../../branch/summarizedBranch';
import { compactedSpan } from '../../compaction/compactedSpan';
import { collectPins } from '../../compaction/pins';
import { createFileOps, addMessageFileOps, addDetailsFileOps, fileLists } from '../../compaction/fileOps';
import { estimatorByName } from '../../tokens/estimators';
import { ArborUsageError } from '../../session/diagnostics';
import type { SessionIndex } from '../../session/sessionIndex';
import type { FactSource } from './facts';
import { projectionSpan, type MessageSpan } from '../../context/messageSpan';

/**
 * What a summary summarized, as a FactSource: for a compaction being
 * proposed, for a branch summary being proposed, and for a compaction or
 * branch summary entry already in a file (one Pi wrote, say).
 */

/**
 * `spans`: the spans the summarizer was given (history, turn prefix), so the
 * facts share their reading (summarize/offline/extract.ts extractionOf).
 */
export function compactionSource(plan: CompactionPlan, spans?: { history: MessageSpan; prefix: MessageSpan }): FactSource {
  const p = plan.projection;
  return {
    messages: spans?.history ?? projectionSpan(p, plan.summarizePositions),
    turnPrefix: spans?.prefix ?? projectionSpan(p, plan.turnPrefixPositions),
    pinned: plan.pinned,
    previousSummary: plan.previousSummary !== null ? { text: plan.previousSummary, entryId: plan.previousCompactionId } : null,
    modifiedFiles: plan.modifiedFiles,
    cwd: p.index.header.cwd,
  };
}

export function branchSource(index: SessionIndex, plan: BranchPlan): FactSource {
  return {
    messages: plan.prepared.map((m) => ({ entryId: index.record(m.entryIndex).id, message: m.message })),
    modifiedFiles: plan.modifiedFiles,
    cwd: index.header.cwd,
    identifiers: false,
  };
}

/** The span a compaction entry in the file summarized (engine/compaction/compactedSpan.ts), as a FactSource. */
function entryCompactionSource(index: SessionIndex, i: number): FactSource {
  const span = compactedSpan(index, i);
  if (!span) return { messages: [], cwd: index.header.cwd };
  const p = span.projection;
  const messages = projectionSpan(p, span.positions);
  const ops = createFileOps();
  for (const m of messages) addMessageFileOps(m, ops);
  let previousSummary: FactSource['previousSummary'] = null;
  if (p.hasCompaction) {
    const prev = index.entryOfType(p.entries[0], 'compaction');
    addDetailsFileOps(prev?.details, ops);
    if (typeof prev?.summary === 'string') previousSummary = { text: prev.summary, entryId: index.record(p.entries[0]).id };
  }
  return {
    messages,
    pinned: collectPins(p, span.keptIndex),
    previousSummary,
    modifiedFiles: fileLists(ops).modifiedFiles,
    cwd: index.header.cwd,
  };
}

function entryBranchSource(index: SessionIndex, i: number): FactSource {
  const prepared = prepareBranchMessages(index, summarizedBranchEntries(index, i), 0, estimatorByName('chars'));
  return {
    messages: prepared.messages.map((m) => ({ entryId: index.record(m.entryIndex).id, message: m.message })),
    modifiedFiles: fileLists(prepared.fileOps).modifiedFiles,
    cwd: index.header.cwd,
    identifiers: false,
  };
}

/** The span of a compaction or branch summary entry already in the file. */
export function entrySource(index: SessionIndex, entryIndex: number): FactSource {
  const type = index.record(entryIndex).type;
  if (type === 'compaction') return entryCompactionSource(index, entryIndex);
  if (type === 'branch_summary') return entryBranchSource(index, entryIndex);
  throw new ArborUsageError(`entry "${index.record(entryIndex).id}" is a ${type}, not a compaction or branch summary`);
}
