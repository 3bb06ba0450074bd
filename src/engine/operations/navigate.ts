import { loadSession } from '../session/loadSession';
import { appendEntries, newEntryId, type AppendOptions, type NewEntry } from '../session/writer';
import { expectEntryOfType } from '../session/entryKinds';
import { ArborUsageError } from '../session/diagnostics';
import type { BranchPlan } from '../branch/planBranch';
import { loadBranchPlan } from '../branch/loadBranchPlan';
import { branchExtraction, branchMessagesWithResults } from '../summarize/branchReading';
import type { SpanMessage } from '../context/messageSpan';
import { addDetailsFileOps, createFileOps, formatFileLists, writtenFileLists } from '../compaction/fileOps';
import { readingOf, unwrittenIn } from '../summarize/spanReading';
import { isPiSummarizer } from '../livePi/piSummarizer';
import { isUsage } from './piWrittenCompaction';
import { estimatorByName, type EstimatorName } from '../tokens/estimators';
import { draftSummaryRequest, withBranchPreamble } from '../summarize/prompts';
import { serializeConversation } from '../summarize/serialize';
import { resolveBranchBudget, type SettingsOverrides } from './sessionSettings';
import type { HookBus } from '../hooks/hookBus';
import { recordableUsage, type Summarizer } from '../summarize/summarizer';
import type { SessionIndex } from '../session/sessionIndex';
import type { BranchSummaryEntry, SessionEntry, Usage } from '../session/types';
import { redactKnownSecrets } from '../secrets/redact';
import { requestNavigate } from '../livePi/client';
import { entriesWrittenByPi } from '../livePi/writtenByPi';
import type { WriteRoute } from '../livePi/writeRoute';
import { withLiveSettings } from './liveSettings';
import { branchSource, checkRetention, deriveFacts, type RetentionReport, type SpanFacts } from '../summarize/retention';
import { proposedJumpNumbersWalk, type JumpNumbers } from '../branch/jumpNumbers';
import { runEntryWalk } from '../session/entryWalkLoads';

/** customType of the entry Arbor appends to persist a leaf move without a summary (spec 6.5). */
export const ARBOR_LEAF_MARKER = 'arbor/leaf-move';

/** The branch summary written when the branch left behind has entries but no message to summarize (spec 6.5). */
export const NOTHING_TO_SUMMARIZE = 'The branch left behind holds no messages, so there was nothing to summarize.';

export interface NavigateOptions extends SettingsOverrides {
  file: string;
  targetId: string;
  /** Summarize the branch being left. */
  summarize: boolean;
  customInstructions?: string;
  /** The custom instructions replace the default ones instead of adding a focus. */
  replaceInstructions?: boolean;
  label?: string;
  summarizer?: Summarizer;
  estimator?: EstimatorName;
  hooks?: HookBus;
  includeThinking?: boolean;
  index?: SessionIndex;
  /** Leave from this entry instead of the file's leaf (a live Pi's leaf, which a move without a summary left elsewhere). */
  fromId?: string | null;
  /** Where the jump is written (default: the file). */
  route?: WriteRoute;
  signal?: AbortSignal;
}

export interface NavigationProposal {
  kind: 'proposal';
  index: SessionIndex;
  plan: BranchPlan;
  oldLeafId: string | null;
  newLeafId: string | null;
  editorText: string | null;
  /** The branch summary to write, or undefined for a plain leaf move. */
  summary:
    | {
        text: string;
        usage?: Usage;
        details?: unknown;
        fromHook: boolean;
        facts?: SpanFacts;
        retention?: RetentionReport;
        /** The context at the leaf left and with the summary at the landing (branch/jumpNumbers.ts). */
        numbers?: JumpNumbers;
      }
    | undefined;
  label: string | undefined;
}

export type ProposeNavigationResult = NavigationProposal | { kind: 'cancelled'; reason: string } | { kind: 'nothing'; reason: string };

/** Plans a jump, runs `session_before_tree` hooks and the optional branch summary. Writes nothing. */
export async function proposeNavigation(options: NavigateOptions): Promise<ProposeNavigationResult> {
  const signal = options.signal ?? new AbortController().signal;
  // Issue #22 item 3: what this step reads is loaded first (the branch a batch at a time: loadBranchPlan); no sync reads.
  const index = options.index ?? (await loadSession(options.file, { signal }));
  if (!index.has(options.targetId)) throw new ArborUsageError(`entry "${options.targetId}" is not in ${index.file}`);
  const fromId = options.fromId === undefined ? index.leafId : options.fromId;
  if (fromId === options.targetId) return { kind: 'nothing', reason: `${options.targetId} is already the current leaf` };
  const budget = await resolveBranchBudget(index.header.cwd, options.summarizer?.contextWindow, withLiveSettings(options));
  const estimator = estimatorByName(options.estimator);
  const plan = await loadBranchPlan(index, {
    targetId: options.targetId,
    fromId: fromId ?? undefined,
    budget,
    estimator,
    signal,
  });

  let customInstructions = options.customInstructions;
  let replaceInstructions = options.replaceInstructions;
  let label = options.label;
  let hookSummary: { summary: string; usage?: Usage; details?: unknown } | undefined;
  if (options.hooks?.has('session_before_tree')) {
    // Pi's hook takes the whole branch's entries: loaded for it (the array holds them while the hook runs, as Pi's does).
    const branch = plan.entryIndexes;
    const entriesToSummarize = await index.withLoaded(branch, () => branch.map((i) => index.entry(i)), { keep: false, signal });
    const results = await options.hooks.emit(
      'session_before_tree',
      {
        file: index.file,
        preparation: {
          targetId: options.targetId,
          oldLeafId: plan.oldLeafId,
          commonAncestorId: plan.commonAncestorId,
          entriesToSummarize,
          userWantsSummary: options.summarize,
          customInstructions,
          replaceInstructions,
          label,
        },
        signal,
      },
      (r) => !!r && r.cancel === true,
    );
    for (const r of results) {
      if (!r) continue;
      if (r.cancel) return { kind: 'cancelled', reason: 'a session_before_tree hook cancelled the navigation' };
      if (r.summary && options.summarize && !hookSummary) hookSummary = r.summary;
      if (r.customInstructions !== undefined) customInstructions = r.customInstructions;
      if (r.replaceInstructions !== undefined) replaceInstructions = r.replaceInstructions;
      if (r.label !== undefined) label = r.label;
    }
  }

  let summary: NavigationProposal['summary'];
  let withResults: SpanMessage[] | undefined;
  if (hookSummary) {
    summary = { text: hookSummary.summary, usage: hookSummary.usage, details: hookSummary.details, fromHook: true };
  } else if (options.summarize && plan.entryIndexes.length > 0 && plan.prepared.length === 0) {
    // Spec 6.5: the branch left behind has entries but none yields a message to summarize.
    summary = { text: NOTHING_TO_SUMMARIZE, details: { readFiles: [], modifiedFiles: [] }, fromHook: false };
  } else if (options.summarize && plan.entryIndexes.length > 0 && options.summarizer && isPiSummarizer(options.summarizer)) {
    // Pi's own branch summarization, with Pi's model (livePi/piSummarizer.ts): its text, its file lists, its usage.
    if (plan.oldLeafId === null) throw new ArborUsageError('the session has no leaf to leave');
    const written = await options.summarizer.branchSummary({
      expectedLeafId: plan.oldLeafId,
      targetId: plan.targetId,
      customInstructions,
      replaceInstructions,
      signal,
    });
    summary = {
      text: written.summary,
      usage: isUsage(written.usage) ? written.usage : undefined,
      details: written.details,
      fromHook: false,
    };
  } else if (options.summarize && plan.entryIndexes.length > 0) {
    if (!options.summarizer) throw new ArborUsageError('a summary was asked for but no summarizer was given');
    // A summarizer that reads the extraction (the offline one) gets the branch's tool results too (branchReading.ts).
    withResults = await branchMessagesWithResults(index, plan, { signal });
    const extraction = options.summarizer.readsExtraction ? branchExtraction(withResults, { cwd: index.header.cwd }) : undefined;
    const messages = plan.prepared.map((m) => m.message);
    const draft = draftSummaryRequest({
      kind: 'branch',
      customInstructions,
      replaceInstructions,
      maxOutputTokens: options.summarizer.maxOutputTokens,
      contextWindow: options.summarizer.contextWindow,
      includeThinking: options.includeThinking,
      cwd: index.header.cwd,
    });
    const request = draft.complete(serializeConversation(messages, draft.conversation), { messages, extraction });
    const r = await options.summarizer.summarize(request, signal);
    // A file every write of which failed on the branch is not listed as modified (compaction/fileOps.ts).
    const lists = writtenFileLists(
      { readFiles: plan.readFiles, modifiedFiles: plan.modifiedFiles },
      {
        ops: plan.fileOps,
        unwritten: unwrittenIn([readingOf(withResults, { extraction: false, cwd: index.header.cwd })], index.header.cwd),
        earlier: nestedModified(index, plan),
      },
    );
    summary = { text: withBranchPreamble(r.text) + formatFileLists(lists), usage: r.usage, details: lists, fromHook: false };
  }
  if (summary) {
    // Issue 19: what the branch left behind holds that a continuation needs, and which of it the summary keeps.
    // The facts and their evidence from the branch with its tool results (what the offline summary read too).
    withResults ??= await branchMessagesWithResults(index, plan, { signal });
    summary.facts = deriveFacts({ ...branchSource(index, plan), messages: withResults });
    summary.retention = checkRetention(summary.text, summary.facts, { cwd: index.header.cwd });
    const at = (id: string | null) => (id === null ? -1 : index.indexOf(id));
    summary.numbers = await runEntryWalk(
      index,
      proposedJumpNumbersWalk(index, { fromIndex: at(plan.oldLeafId), newLeafIndex: at(plan.newLeafId), summary: summary.text }, estimator),
      { signal },
    );
  }
  return {
    kind: 'proposal',
    index,
    plan,
    oldLeafId: plan.oldLeafId,
    newLeafId: plan.newLeafId,
    editorText: plan.editorText,
    summary,
    label: label || undefined,
  };
}

/** The files the branch's own earlier branch summaries recorded as modified (planBranch carries their `details`). */
function nestedModified(index: SessionIndex, plan: BranchPlan): Set<string> {
  const files = createFileOps();
  for (const i of plan.entryIndexes) {
    const e = index.record(i).type === 'branch_summary' ? index.entryOfType(i, 'branch_summary') : undefined;
    if (e && e.fromHook !== true) addDetailsFileOps(e.details, files);
  }
  return files.edited;
}

export interface NavigationResult {
  written: SessionEntry[];
  summaryEntry: BranchSummaryEntry | undefined;
  /** The leaf position the user is now at (before Arbor's own bookkeeping entries). */
  newLeafId: string | null;
  editorText: string | null;
  /** Which facts of the branch left behind the written summary keeps (absent without a summary). */
  retention?: RetentionReport;
}

export interface ApplyNavigationOptions {
  /** The branch summary as the user edited it (default: the proposed one). */
  summary?: string;
  hooks?: HookBus;
  signal?: AbortSignal;
  /** See AppendOptions.beforeWrite. */
  beforeWrite?: AppendOptions['beforeWrite'];
  /** Where the jump is written (default: the file). Through Pi, Pi writes the entries and moves its own leaf. */
  route?: WriteRoute;
}

/**
 * Writes the jump: a BranchSummaryEntry (fromId = the abandoned leaf) or
 * Arbor's leaf marker as a child of the new leaf, then the optional label on
 * it, in one append. Refuses if the file gained entries since the plan.
 */
export async function applyNavigation(proposal: NavigationProposal, options: ApplyNavigationOptions = {}): Promise<NavigationResult> {
  const { index } = proposal;
  if (options.route?.via === 'pi') return navigateThroughPi(proposal, options.route, options);
  const entries: NewEntry[] = [];
  const firstId = newEntryId(index.hasId);
  if (proposal.summary) {
    const e: NewEntry = {
      type: 'branch_summary',
      id: firstId,
      summary: redactKnownSecrets(options.summary ?? proposal.summary.text),
      fromId: proposal.oldLeafId ?? '',
    };
    if (proposal.summary.details !== undefined) e.details = proposal.summary.details;
    const usage = recordableUsage(proposal.summary.usage);
    if (usage !== undefined) e.usage = usage;
    if (proposal.summary.fromHook) e.fromHook = true;
    entries.push(e);
  } else {
    entries.push({
      type: 'custom',
      id: firstId,
      customType: ARBOR_LEAF_MARKER,
      data: { fromId: proposal.oldLeafId, targetId: proposal.plan.targetId },
    });
  }
  if (proposal.label) {
    // Spec 6.5: on the branch summary when one is written, otherwise on the selected target.
    const target = proposal.summary ? firstId : proposal.plan.targetId;
    entries.push({ type: 'label', targetId: target, label: proposal.label });
  }
  const written = await appendEntries(index, entries, {
    parentId: proposal.newLeafId,
    expectedLeafId: proposal.oldLeafId,
    signal: options.signal,
    beforeWrite: options.beforeWrite,
  });
  const summaryEntry = proposal.summary ? expectEntryOfType(written[0], 'branch_summary') : undefined;
  return navigated(proposal, written, summaryEntry, options);
}

/**
 * After a jump (written to the file or by the live Pi): the session_tree hook, then what was written with the
 * retention check of the summary as written (the text may have been edited).
 */
async function navigated(
  proposal: NavigationProposal,
  written: SessionEntry[],
  summaryEntry: BranchSummaryEntry | undefined,
  options: ApplyNavigationOptions,
): Promise<NavigationResult> {
  await options.hooks?.emit('session_tree', {
    file: proposal.index.file,
    oldLeafId: proposal.oldLeafId,
    newLeafId: proposal.newLeafId,
    summaryEntry,
    written,
  });
  const facts = proposal.summary?.facts;
  const retention = summaryEntry && facts ? checkRetention(summaryEntry.summary, facts, { cwd: proposal.index.header.cwd }) : undefined;
  return { written, summaryEntry, newLeafId: proposal.newLeafId, editorText: proposal.editorText, ...(retention ? { retention } : {}) };
}

/** The jump done by the live Pi itself: Pi writes the branch summary (the approved text) or records the move, and moves its leaf. */
async function navigateThroughPi(
  proposal: NavigationProposal,
  route: Extract<WriteRoute, { via: 'pi' }>,
  options: ApplyNavigationOptions,
): Promise<NavigationResult> {
  const { index } = proposal;
  const summary = proposal.summary
    ? { text: redactKnownSecrets(options.summary ?? proposal.summary.text), details: proposal.summary.details }
    : undefined;
  const result = await requestNavigate(
    route.entry,
    { expectedLeafId: proposal.oldLeafId, targetId: proposal.plan.targetId, summary, label: proposal.label, waitMs: route.waitMs },
    { signal: options.signal },
  );
  const written = await entriesWrittenByPi(index, result, options.signal);
  const summaryEntry = written.find((e): e is BranchSummaryEntry => e.type === 'branch_summary');
  return navigated(proposal, written, summaryEntry, options);
}

/** propose + apply. */
export async function navigateSession(
  options: NavigateOptions,
): Promise<NavigationResult | { kind: 'cancelled' | 'nothing'; reason: string }> {
  const proposal = await proposeNavigation(options);
  if (proposal.kind !== 'proposal') return proposal;
  return applyNavigation(proposal, { hooks: options.hooks, signal: options.signal, route: options.route });
}
