import type { CompactionPlan } from '../../compaction/planCompaction';
import type { BranchPlan } from '../../branch/planBranch';
import { BranchMessageWalk } from '../../branch/planBranch';
import { summarizedBranch } from '../../branch/summarizedBranch';
import { compactedSpan } from '../../compaction/compactedSpan';
import { collectPins } from '../../compaction/pins';
import { createFileOps, addMessageFileOps, addDetailsFileOps, fileLists } from '../../compaction/fileOps';
import { estimatorByName } from '../../tokens/estimators';
import { ArborUsageError } from '../../session/diagnostics';
import { agentName } from '../../session/agents/agentKind';
import type { SessionIndex } from '../../session/sessionIndex';
import type { FactSource } from './facts';
import { spanReadingWalk, type SpanReading } from '../spanReading';
import { entryRead, walkInMemory, type EntryWalk } from '../../session/entryWalk';
import { textOfContent } from '../../session/contentBlocks';
import { NumberSet } from './text';

/**
 * What a summary summarized, as a FactSource: for a compaction being
 * proposed, for a branch summary being proposed, and for a compaction or
 * branch summary entry already in a file (one Pi wrote, say). A span that
 * is not known (a compaction without a parent, a branch whose leaf is not in
 * the file, another agent's session) is a source that says why it cannot
 * be checked.
 */

/** `spans`: the readings of the spans the summarizer was given (history, turn prefix), made by the run step. */
export function compactionSource(plan: CompactionPlan, spans: { history: SpanReading; prefix: SpanReading }): FactSource {
  const p = plan.projection;
  return {
    messages: spans.history,
    turnPrefix: spans.prefix,
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

/** Another agent's summaries follow that agent's rules: what one replaced is not Pi's span. */
function foreign(index: SessionIndex): FactSource | null {
  if (index.agent === 'pi') return null;
  const name = agentName(index.agent);
  return {
    messages: [],
    cwd: index.header.cwd,
    cannotCheck: `a ${name} session: its summaries follow ${name}'s own rules, so what one of them summarized is not known`,
  };
}

/** The span a compaction entry in the file summarized (engine/compaction/compactedSpan.ts), as a FactSource. */
function* entryCompactionSource(index: SessionIndex, i: number): EntryWalk<FactSource> {
  const span = compactedSpan(index, i);
  if (!span)
    return {
      messages: [],
      cwd: index.header.cwd,
      cannotCheck: 'the compaction has no parent entry: the entries it summarized are not in this file',
    };
  const p = span.projection;
  const ops = createFileOps();
  const messages = yield* spanReadingWalk(p, span.positions, { cwd: index.header.cwd, answers: false, extraction: false }, (m) =>
    addMessageFileOps(m, ops, index.agent),
  );
  let previousSummary: FactSource['previousSummary'] = null;
  if (p.hasCompaction) {
    const prev = index.entryOfType(p.entries[p.summaryPos], 'compaction');
    addDetailsFileOps(prev?.details, ops);
    if (typeof prev?.summary === 'string') previousSummary = { text: prev.summary, entryId: index.record(p.entries[p.summaryPos]).id };
  }
  return {
    messages,
    pinned: yield* collectPins(p, span.keptIndex),
    previousSummary,
    modifiedFiles: fileLists(ops).modifiedFiles,
    cwd: index.header.cwd,
  };
}

function* entryBranchSource(index: SessionIndex, i: number): EntryWalk<FactSource> {
  const branch = summarizedBranch(index, i);
  if (branch.unknown)
    return { messages: [], cwd: index.header.cwd, cannotCheck: `the branch it summarized is not known: ${branch.unknown}` };
  // Every message of the branch, newest first (no budget): the walk takes them one at a time as they are read.
  const entries = branch.entries;
  const walk = new BranchMessageWalk(index, entries, 0, estimatorByName('chars'));
  // The tool outputs the branch's messages leave out still hold numbers a summary may state (read as the walk passes).
  const outputs = new NumberSet();
  for (let k = entries.length - 1; k >= 0; k--) {
    yield entryRead(entries, k, -1);
    walk.take(1);
    const rec = index.record(entries[k]);
    if (rec.type === 'message' && rec.role === 'toolResult') {
      const m = index.entryOfType(entries[k], 'message')?.message;
      if (m?.role === 'toolResult') outputs.addAll(textOfContent(m.content));
    }
  }
  const prepared = walk.result();
  const e = index.entryOfType(i, 'branch_summary');
  return {
    messages: prepared.messages.map((m) => ({ entryId: index.record(m.entryIndex).id, message: m.message })),
    modifiedFiles: fileLists(prepared.fileOps).modifiedFiles,
    cwd: index.header.cwd,
    identifiers: false,
    moreNumbers: outputs,
    ...(branch.fromBranchPoint
      ? {
          note:
            `Pi 0.73 wrote the branch point (${String(e?.fromId ?? '')}) as fromId: checked against the branch left from ` +
            `${index.record(branch.leafIndex).id}, the leaf under it when the summary was written`,
        }
      : {}),
  };
}

/** The span of a compaction or branch summary entry already in the file, from entries in memory (see entrySourceWalk). */
export function entrySource(index: SessionIndex, entryIndex: number): FactSource {
  return walkInMemory(entrySourceWalk(index, entryIndex));
}

/** entrySource as a walk (session/entryWalk.ts): a run step reads the span a batch at a time (runEntryWalk). */
export function* entrySourceWalk(index: SessionIndex, entryIndex: number): EntryWalk<FactSource> {
  const type = index.record(entryIndex).type;
  if (type !== 'compaction' && type !== 'branch_summary')
    throw new ArborUsageError(`entry "${index.record(entryIndex).id}" is a ${type}, not a compaction or branch summary`);
  const other = foreign(index);
  if (other) return other;
  if (type === 'compaction') return yield* entryCompactionSource(index, entryIndex);
  return yield* entryBranchSource(index, entryIndex);
}
