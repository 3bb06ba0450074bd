import { baseDirFor } from '../sessions/sessionBaseDir';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseSummary, type ParsedSummary } from '../../engine/summarize/parseSummary';
import { pinnedPartView } from '../../engine/compaction/pinnedParts';
import { summarySections } from '../../engine/summarize/summarySections';
import { summaryFileLists } from '../../engine/summarize/summaryFileLists';
import { noUsageNote } from '../../engine/summarize/summarizerNote';
import { estimatorByName, type EstimatorName } from '../../engine/tokens/estimators';
import { summarizedBranch } from '../../engine/branch/summarizedBranch';
import { compactedEntries } from '../../engine/compaction/compactedSpan';
import type { SessionIndex } from '../../engine/session/sessionIndex';
import { entryTypeOf } from '../../engine/session/entryKinds';
import type { CompactionProposal } from '../../engine/operations/compact';
import type { FileLink, ReplacedEntry, RetentionItem, RetentionView, SummaryView } from '../../webview/protocol';
import {
  canPutBack,
  checkRetention,
  deriveFacts,
  entrySourceWalk,
  putBack,
  type Fact,
  type RetentionReport,
  type SpanFacts,
} from '../../engine/summarize/retention';
import { entryPreview } from '../../engine/tree/entryPreview';
import { oneLine } from '../../engine/tree/oneLine';
import { compactionNumbersWalk } from '../../engine/context/contextNumbers';
import { writtenJumpNumbersWalk } from '../../engine/branch/jumpNumbers';
import { entryRead, type EntryWalk } from '../../engine/session/entryWalk';
import { runEntryWalk } from '../../engine/session/entryWalkLoads';
export { usageView } from './usageView';
import { usageView } from './usageView';

/**
 * Builds what the summary panel shows, from an entry in a file or from a compaction proposal. What it reads of the
 * session (the summarized span's facts, the replaced entries' previews, the token numbers) is read by walks
 * (engine/session/entryWalk.ts) that the builders drive through runEntryWalk: a batch of entries loaded at a time,
 * never a synchronous read on the extension host.
 */

/** A retention report as the panel's checklist: missing facts first (restorable ones marked), then kept ones. */
export function retentionItems(report: RetentionReport): RetentionItem[] {
  const item = (f: Fact, kept: boolean): RetentionItem => ({
    kind: f.kind,
    text: f.text,
    entryId: f.entryId,
    kept,
    restorable: !kept && canPutBack(f),
  });
  return [...report.missing.map((f) => item(f, false)), ...report.kept.map((f) => item(f, true))];
}

/** A retention report as the panel shows it: the checklist, the contradictions, or why the span cannot be checked. */
export function retentionView(report: RetentionReport, note: string | null = null): RetentionView {
  return {
    items: retentionItems(report),
    contradictions: report.contradictions.map((c) => ({ kind: c.kind, summary: c.summary, evidence: c.evidence, entryId: c.entryId })),
    ...(report.cannotCheck ? { cannotCheck: report.cannotCheck } : {}),
    ...(note ? { note } : {}),
  };
}

/** The SummaryView fields of a retention report. */
export function retentionFields(
  report: RetentionReport,
  note: string | null,
): Pick<SummaryView, 'retention' | 'contradictions' | 'retentionCannotCheck' | 'retentionNote'> {
  const v = retentionView(report, note);
  return {
    retention: v.items,
    contradictions: v.contradictions,
    ...(v.cannotCheck ? { retentionCannotCheck: v.cannotCheck } : {}),
    ...(v.note ? { retentionNote: v.note } : {}),
  };
}

/** The panel's checks of a proposal's (edited) text, and its mechanical put back, against the proposal's facts. */
export function retentionHandlers(
  facts: SpanFacts,
  cwd: string,
): { recheck(summary: string): RetentionView; putBack(summary: string): string } {
  return {
    recheck: (summary) => retentionView(checkRetention(summary, facts, { cwd }), facts.note),
    putBack: (summary) => putBack(summary, checkRetention(summary, facts, { cwd }).missing),
  };
}

export function fileLinks(paths: readonly string[], cwd: string): FileLink[] {
  const base = baseDirFor(cwd);
  return paths.map((p) => {
    const resolved = path.isAbsolute(p) ? p : path.resolve(base, p);
    let exists = false;
    try {
      exists = fs.statSync(resolved).isFile();
    } catch {
      exists = false;
    }
    return { path: p, resolved, exists };
  });
}

/** The pinned parts of a parsed summary as the panel shows them. */
function pinFields(parsed: ParsedSummary): Pick<SummaryView, 'pins' | 'pinsNote'> {
  return { pins: parsed.pins.map(pinnedPartView), ...(parsed.pinsNote ? { pinsNote: parsed.pinsNote } : {}) };
}

/** The replaced entries as the panel lists them, a walk over them oldest first. */
export function* replacedEntries(index: SessionIndex, entries: readonly number[]): EntryWalk<ReplacedEntry[]> {
  const out: ReplacedEntry[] = [];
  for (let k = 0; k < entries.length; k++) {
    yield entryRead(entries, k, 1);
    const i = entries[k];
    const p = entryPreview(index.entry(i));
    const id = index.record(i).id;
    const label = index.labelOf(id);
    out.push({ id, title: p.title, text: oneLine(p.text, 120), ...(label ? { label: oneLine(label, 120) } : {}) });
  }
  return out;
}

/** The panel's view of a summary entry in the file (its span read a batch at a time). */
export function viewFromEntry(index: SessionIndex, entryId: string, sessionTitle: string, estimator: EstimatorName): Promise<SummaryView> {
  return runEntryWalk(index, entryViewWalk(index, entryId, sessionTitle, estimator));
}

function* entryViewWalk(index: SessionIndex, entryId: string, sessionTitle: string, estimator: EstimatorName): EntryWalk<SummaryView> {
  const i = index.indexOf(entryId);
  if (i < 0) throw new Error(`entry ${entryId} is not in ${index.file}`);
  const e = index.entry(i);
  if (e.type !== 'compaction' && e.type !== 'branch_summary')
    throw new Error(`entry ${entryId} is a ${entryTypeOf(e)} entry, not a summary`);
  const markdown = typeof e.summary === 'string' ? e.summary : '';
  const parsed = parseSummary(markdown);
  const lists = summaryFileLists(e.details, parsed);
  const cwd = index.header.cwd;
  const base: SummaryView = {
    mode: 'entry',
    kind: e.type,
    file: index.file,
    sessionTitle,
    entryId,
    timestamp: typeof e.timestamp === 'string' ? e.timestamp : undefined,
    markdown,
    sections: summarySections(parsed),
    ...pinFields(parsed),
    readFiles: fileLinks(lists.readFiles, cwd),
    modifiedFiles: fileLinks(lists.modifiedFiles, cwd),
    usage: usageView(e.usage),
    summarizerNote: e.usage === undefined && e.fromHook !== true ? noUsageNote(undefined, 0) : undefined,
    fromHook: e.fromHook === true,
    author: e.fromHook === true ? 'hook' : undefined,
  };
  const facts = deriveFacts(yield* entrySourceWalk(index, i));
  Object.assign(base, retentionFields(checkRetention(markdown, facts, { cwd }), facts.note));
  if (e.type === 'compaction') {
    const replaced = compactedEntries(index, i);
    const numbers = yield* compactionNumbersWalk(index, i, estimatorByName(estimator));
    base.tokensBefore = numbers.tokensBefore;
    base.tokensAfter = numbers.tokensAfter;
    base.replaced = {
      count: replaced.length,
      entries: yield* replacedEntries(index, replaced),
      firstKeptEntryId: String(e.firstKeptEntryId ?? ''),
    };
  } else {
    // A Pi 0.73 entry's fromId is the branch point: the leaf left from is the one found in the tree.
    const branch = summarizedBranch(index, i);
    const fromId = branch.leafIndex >= 0 ? index.record(branch.leafIndex).id : String(e.fromId ?? '');
    base.replaced = { count: branch.entries.length, entries: yield* replacedEntries(index, branch.entries), fromId };
    // The figures a jump's review showed, counted the same way now that it is written (issue 34 item 2).
    const numbers = yield* writtenJumpNumbersWalk(index, i, estimatorByName(estimator));
    base.tokensBefore = numbers.tokensBefore;
    base.tokensAfter = numbers.tokensAfter;
    const label = index.labelOf(entryId);
    const parent = index.parentIndex(i);
    base.jump = { newLeafId: parent >= 0 ? index.record(parent).id : null, ...(label ? { label } : {}) };
  }
  return base;
}

/** The panel's review of a compaction proposal (the kept and replaced entries read a batch at a time). */
export function viewFromProposal(
  proposal: CompactionProposal,
  proposalId: string,
  sessionTitle: string,
  author: string,
  customInstructions: string | undefined,
): Promise<SummaryView> {
  return runEntryWalk(proposal.index, proposalViewWalk(proposal, proposalId, sessionTitle, author, customInstructions));
}

function* proposalViewWalk(
  proposal: CompactionProposal,
  proposalId: string,
  sessionTitle: string,
  author: string,
  customInstructions: string | undefined,
): EntryWalk<SummaryView> {
  const parsed = parseSummary(proposal.summary);
  const lists = summaryFileLists(proposal.details, parsed);
  const cwd = proposal.index.header.cwd;
  const { plan } = proposal;
  const p = plan.projection;
  // After: the summary plus everything kept, as the proposal computed it (the one number function, once).
  const after = proposal.tokensAfter;
  const positions = [...plan.summarizePositions, ...plan.turnPrefixPositions];
  const replaced = yield* replacedEntries(
    p.index,
    positions.map((pos) => p.entries[pos]),
  );
  return {
    mode: 'review',
    kind: 'compaction',
    file: proposal.index.file,
    sessionTitle,
    proposalId,
    markdown: proposal.summary,
    sections: summarySections(parsed),
    ...pinFields(parsed),
    readFiles: fileLinks(lists.readFiles, cwd),
    modifiedFiles: fileLinks(lists.modifiedFiles, cwd),
    tokensBefore: proposal.tokensBefore,
    tokensAfter: after,
    usage: usageView(proposal.usage),
    summarizerNote: proposal.usage === undefined && !proposal.fromHook ? noUsageNote(author, positions.length) : undefined,
    author: proposal.fromHook ? 'hook' : author,
    fromHook: proposal.fromHook,
    customInstructions: customInstructions || undefined,
    ...retentionFields(proposal.retention, proposal.facts.note),
    replaced: {
      count: positions.length,
      entries: replaced,
      firstKeptEntryId: proposal.firstKeptEntryId,
    },
  };
}
