import { parseSummary } from '../../engine/summarize/parseSummary';
import { summarySections } from '../../engine/summarize/summarySections';
import { summaryFileLists } from '../../engine/summarize/summaryFileLists';
import { noUsageNote } from '../../engine/summarize/summarizerNote';
import type { NavigationProposal } from '../../engine/operations/navigate';
import { runEntryWalk } from '../../engine/session/entryWalkLoads';
import type { EntryWalk } from '../../engine/session/entryWalk';
import type { SummaryView } from '../../webview/protocol';
import { fileLinks, replacedEntries, retentionFields, usageView } from './summaryView';

/** A jump whose branch summary is proposed (the review panel shows only those). */
export type SummarizedJump = NavigationProposal & { summary: NonNullable<NavigationProposal['summary']> };

export interface JumpReviewOptions {
  proposalId: string;
  sessionTitle: string;
  /** Who wrote the summary ("offline/arbor-offline", "openai/gpt-4.1-mini", "pi/…"). */
  author: string;
  customInstructions: string | undefined;
  replaceInstructions: boolean;
}

/**
 * The review panel's view of a jump's branch summary before it is written (issue 34 item 2): the same panel and
 * fields as a compaction proposal (the summary panel's review mode), with the jump's figures (context at the leaf left,
 * and after the jump: branch/jumpNumbers.ts), its retention check, the branch left behind, and the label
 * and landing the jump writes. The branch's entries are read a batch at a time (runEntryWalk).
 */
export function viewFromNavigation(proposal: SummarizedJump, options: JumpReviewOptions): Promise<SummaryView> {
  return runEntryWalk(proposal.index, navigationViewWalk(proposal, options));
}

function* navigationViewWalk(proposal: SummarizedJump, options: JumpReviewOptions): EntryWalk<SummaryView> {
  const { summary, plan, index } = proposal;
  const parsed = parseSummary(summary.text);
  const lists = summaryFileLists(summary.details, parsed);
  const cwd = index.header.cwd;
  const view: SummaryView = {
    mode: 'review',
    kind: 'branch_summary',
    file: index.file,
    sessionTitle: options.sessionTitle,
    proposalId: options.proposalId,
    markdown: summary.text,
    sections: summarySections(parsed),
    readFiles: fileLinks(lists.readFiles, cwd),
    modifiedFiles: fileLinks(lists.modifiedFiles, cwd),
    tokensBefore: summary.numbers?.tokensBefore,
    tokensAfter: summary.numbers?.tokensAfter,
    usage: usageView(summary.usage),
    summarizerNote: summary.usage === undefined && !summary.fromHook ? noUsageNote(options.author, plan.prepared.length) : undefined,
    author: summary.fromHook ? 'hook' : options.author,
    fromHook: summary.fromHook,
    customInstructions: options.customInstructions || undefined,
    jump: {
      newLeafId: proposal.newLeafId,
      ...(proposal.label ? { label: proposal.label } : {}),
      ...(options.replaceInstructions && options.customInstructions ? { replaceInstructions: true } : {}),
    },
    replaced: {
      count: plan.entryIndexes.length,
      entries: yield* replacedEntries(index, plan.entryIndexes),
      fromId: proposal.oldLeafId ?? undefined,
    },
  };
  if (summary.retention && summary.facts) Object.assign(view, retentionFields(summary.retention, summary.facts.note));
  return view;
}
