import { loadSession } from '../session/loadSession';
import { appendEntries, type AppendOptions, type NewEntry } from '../session/writer';
import { expectEntryOfType } from '../session/entryKinds';
import { isRecord } from '../session/jsonObject';
import type { CompactionPlan, CompactionSettings } from '../compaction/planCompaction';
import type { NothingToCompact } from '../compaction/nothingToCompact';
import { fileLists, formatFileLists, writtenFileLists } from '../compaction/fileOps';
import { projectedContextTokensWalk } from '../context/contextTokens';
import { Projection } from '../context/projection';
import { carriedSystemMessage } from '../context/systemMessage';
import { estimatorByName, type EstimatorName } from '../tokens/estimators';
import { draftSummaryRequest, mergeSplitTurnSummary, type SummaryRequestOptions } from '../summarize/prompts';
import { addOptionalUsage, recordableUsage, type Summarizer } from '../summarize/summarizer';
import { redactKnownSecrets } from '../secrets/redact';
import { StaleSessionError } from '../session/writeErrors';
import { ensurePinned, ensurePinnedBeforeFileLists, formatPinnedBlock, stripPinned } from '../compaction/pins';
import type { SettingsOverrides } from './sessionSettings';
import { planSessionCompaction } from './sessionCompactionPlan';
import type { HookBus } from '../hooks/hookBus';
import type { CompactionReason, HookCompaction } from '../hooks/events';
import type { SessionIndex } from '../session/sessionIndex';
import { requestCompact } from '../livePi/client';
import { isPiSummarizer } from '../livePi/piSummarizer';
import { piUsage, piWrittenCompaction } from './piWrittenCompaction';
import { entriesWrittenByPi } from '../livePi/writtenByPi';
import type { WriteRoute } from '../livePi/writeRoute';
import { withLiveSettings } from './liveSettings';
import type { AgentMessage, CompactionEntry, Usage } from '../session/types';
import { checkRetention, compactionSource, deriveFacts, type RetentionReport, type SpanFacts } from '../summarize/retention';
import { notSmallerReason, withSize } from './compactionSize';
export { notSmallerReason, tokensAfterWithSummary } from './compactionSize';
import { firstUserText, hasMessages, spanMessages } from './spanReads';
import { runEntryWalk } from '../session/entryWalkLoads';
import { conversationWalk, spanReadingWalk, unwrittenIn, type SpanReading } from '../summarize/spanReading';

export interface CompactOptions extends SettingsOverrides {
  file: string;
  summarizer: Summarizer;
  customInstructions?: string;
  reason?: CompactionReason;
  estimator?: EstimatorName;
  hooks?: HookBus;
  /** Keep `[Assistant thinking]:` lines in what the summarizer reads (default true). */
  includeThinking?: boolean;
  /** An already loaded index of `file` (it is refreshed from the file's new bytes). */
  index?: SessionIndex;
  /** Plan at this entry instead of the file's last one (a live Pi's leaf, which a move without a summary left elsewhere). */
  leafId?: string | null;
  /** Where the entry is written (default: the file). */
  route?: WriteRoute;
  signal?: AbortSignal;
}

/** A compaction ready to be written: the entry's content and what it replaces. */
export interface CompactionProposal {
  kind: 'proposal';
  index: SessionIndex;
  plan: CompactionPlan;
  /** The leaf the entry will be attached to; applying refuses if the file moved on. */
  leafId: string;
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  details: { readFiles: string[]; modifiedFiles: string[] } | unknown;
  usage: Usage | undefined;
  fromHook: boolean;
  settings: CompactionSettings;
  estimator: EstimatorName;
  /** The context after writing it: the summary plus every kept message (context/contextNumbers.ts, the one "after"). */
  tokensAfter: number;
  /** The summary's tokens and those of what it replaces (the summarized messages, the checkpoint it updates), by one estimator. */
  summaryTokens: number;
  replacedTokens: number;
  /** The summary is not smaller than what it replaces: nothing is gained, and nothing writes it without being asked (issue 32 item 6). */
  notSmaller: boolean;
  /**
   * What the summarized span holds that a continuation needs and what its statements are checked against (issues 19
   * and 32), and which of it the summary keeps or contradicts.
   */
  facts: SpanFacts;
  retention: RetentionReport;
}

export type ProposeCompactionResult = CompactionProposal | NothingToCompact | { kind: 'cancelled'; reason: string };

/**
 * Plans a compaction, lets `session_before_compact` hooks cancel or supply it,
 * and otherwise asks the summarizer (history + turn prefix for a split turn).
 * Writes nothing: see applyCompaction.
 */
export async function proposeCompaction(options: CompactOptions): Promise<ProposeCompactionResult> {
  const signal = options.signal ?? new AbortController().signal;
  const index = options.index ?? (await loadSession(options.file, { signal }));
  const estimator = estimatorByName(options.estimator);
  const estimatorName = estimator.name;
  const estimate = (m: AgentMessage) => estimator.estimate(m);
  const { plan, settings } = await planSessionCompaction(index, {
    ...withLiveSettings(options),
    estimator,
    signal,
    leafIndex: leafIndexOf(index, options.leafId),
  });
  if (plan.kind === 'nothing') return plan;
  const p = plan.projection;
  const cwd = index.header.cwd;
  // What a summary replaces: the spans it summarizes and the checkpoint it updates (one estimator for both sides).
  const replacedTokens = (spans: { history: SpanReading; prefix: SpanReading }) =>
    spans.history.tokens +
    spans.prefix.tokens +
    (plan.previousSummary !== null ? estimator.estimate({ role: 'compactionSummary', summary: plan.previousSummary, tokensBefore: 0 }) : 0);

  if (options.hooks?.has('session_before_compact')) {
    // A hook gets the messages as arrays (Pi's shape): only then is the span held whole.
    const messagesToSummarize = await spanMessages(p, plan.summarizePositions, signal);
    const turnPrefixMessages = await spanMessages(p, plan.turnPrefixPositions, signal);
    const branchEntries = await index.withLoaded(p.path, () => p.path.map((i) => index.entry(i)), { keep: false, signal });
    const results = await options.hooks.emit(
      'session_before_compact',
      {
        file: index.file,
        preparation: {
          messagesToSummarize,
          turnPrefixMessages,
          isSplitTurn: plan.isSplitTurn,
          previousSummary: plan.previousSummary ?? undefined,
          fileOps: plan.fileOps,
          tokensBefore: plan.tokensBefore,
          firstKeptEntryId: plan.firstKeptEntryId,
          settings,
        },
        branchEntries,
        customInstructions: options.customInstructions,
        reason: options.reason ?? 'manual',
        willRetry: false,
        signal,
      },
      (r) => !!r && ('cancel' in r || 'compaction' in r),
    );
    const decisive = results.find((r) => !!r && ('cancel' in r || 'compaction' in r));
    if (decisive && 'cancel' in decisive) return { kind: 'cancelled', reason: 'a session_before_compact hook cancelled the compaction' };
    if (decisive && 'compaction' in decisive) {
      const spans = {
        history: await readSpan(p, plan.summarizePositions, { cwd, answers: false, extraction: false, estimate }, signal),
        prefix: await readSpan(p, plan.turnPrefixPositions, { cwd, answers: false, extraction: false, estimate }, signal),
      };
      return withSize(hookProposal(index, plan, spans, decisive.compaction, settings, estimatorName), replacedTokens(spans), signal);
    }
  }

  // Pi's own model writes the whole summary inside Pi (livePi/piSummarizer.ts): checked like a hook's, then reviewed.
  if (isPiSummarizer(options.summarizer)) {
    const written = await piWrittenCompaction(options.summarizer, plan, options.customInstructions, signal);
    // Pi's compaction does not know Arbor's pins: their part is added as to any summary (re-collected from the labels).
    written.summary = ensurePinnedBeforeFileLists(written.summary, formatPinnedBlock(plan.pinned));
    const spans = {
      history: await readSpan(p, plan.summarizePositions, { cwd, answers: false, extraction: false, estimate }, signal),
      prefix: await readSpan(p, plan.turnPrefixPositions, { cwd, answers: false, extraction: false, estimate }, signal),
    };
    const proposal = hookProposal(index, plan, spans, written, settings, estimatorName);
    return withSize({ ...proposal, fromHook: false }, replacedTokens(spans), signal);
  }

  // The spans are read a batch at a time: first each span's reading (the facts, and for the offline summarizer, which
  // reads its extraction with the turns' answers, the extraction too; both bounded), then the conversation newest
  // first up to the request's budget.
  const readsExtraction = options.summarizer.readsExtraction === true;
  const readings = new Map<readonly number[], SpanReading>();
  const reading = async (positions: readonly number[]) => {
    let r = readings.get(positions);
    if (!r)
      readings.set(
        positions,
        (r = await readSpan(p, positions, { cwd, answers: readsExtraction, extraction: readsExtraction, estimate }, signal)),
      );
    return r;
  };
  // The spans' readings come first: a file every write of which failed is not listed as modified (fileOps.ts).
  const spans = { history: await reading(plan.summarizePositions), prefix: await reading(plan.turnPrefixPositions) };
  const lists = writtenFileLists(fileLists(plan.fileOps), {
    ops: plan.fileOps,
    unwritten: unwrittenIn([spans.history, spans.prefix], cwd),
    earlier: earlierModified(index, plan),
  });
  // Pins are re-collected from the labels every time: an earlier checkpoint's Pinned part is not carried over.
  const pinned = formatPinnedBlock(plan.pinned);
  const previousSummary = plan.previousSummary !== null ? stripPinned(plan.previousSummary) : undefined;
  const common = {
    maxOutputTokens: options.summarizer.maxOutputTokens,
    contextWindow: options.summarizer.contextWindow,
    includeThinking: options.includeThinking,
    customInstructions: options.customInstructions,
    cwd,
  };
  const kind = plan.previousSummary !== null ? 'update' : 'history';
  // Not split: the kept messages start a new turn, so the span's last turn is over.
  const checkpoint = { kind, previousSummary, pinned, files: lists, keptAfter: !plan.isSplitTurn, ...common } as const;
  const summarize = async (request: SummaryRequestOptions, positions: readonly number[]) => {
    const draft = draftSummaryRequest(request);
    const conversation = await runEntryWalk(index, conversationWalk(p, positions, draft.conversation), { signal });
    const extraction = readsExtraction ? (await reading(positions)).extraction : undefined;
    return options.summarizer.summarize(draft.complete(conversation, { extraction }), signal);
  };
  let summary: string;
  let usage: Usage | undefined;
  if (plan.isSplitTurn && (await hasMessages(p, plan.turnPrefixPositions, signal))) {
    let historyText = previousSummary ?? '';
    let historyUsage: Usage | undefined;
    if (await hasMessages(p, plan.summarizePositions, signal)) {
      const openTurnRequest = await firstUserText(p, plan.turnPrefixPositions, signal);
      const r = await summarize({ ...checkpoint, openTurnRequest }, plan.summarizePositions);
      historyText = r.text;
      historyUsage = r.usage;
    }
    const t = await summarize({ kind: 'turnPrefix', ...common }, plan.turnPrefixPositions);
    summary = mergeSplitTurnSummary(ensurePinned(historyText, pinned), t.text);
    usage = addOptionalUsage(historyUsage, t.usage);
  } else {
    const r = await summarize(checkpoint, plan.summarizePositions);
    summary = ensurePinned(r.text, pinned);
    usage = r.usage;
  }
  const text = summary + formatFileLists(lists);
  const facts = deriveFacts(compactionSource(plan, spans));
  const proposal = {
    kind: 'proposal' as const,
    index,
    plan,
    leafId: plan.leafId,
    summary: text,
    firstKeptEntryId: plan.firstKeptEntryId,
    tokensBefore: plan.tokensBefore,
    details: lists,
    usage,
    fromHook: false,
    settings,
    estimator: estimatorName,
    facts,
    retention: checkRetention(text, facts, { cwd }),
  };
  return withSize(proposal, replacedTokens(spans), signal);
}

/** The files the checkpoint a compaction updates recorded as modified (its `details`, as planCompaction carries them). */
function earlierModified(index: SessionIndex, plan: CompactionPlan): Set<string> {
  const prev = plan.previousCompactionId !== null ? index.entryById(plan.previousCompactionId) : undefined;
  const d = prev?.type === 'compaction' && prev.fromHook !== true ? prev.details : undefined;
  const list = isRecord(d) && Array.isArray(d.modifiedFiles) ? d.modifiedFiles : [];
  return new Set(list.filter((f): f is string => typeof f === 'string'));
}

/** The reading of a span (summarize/spanReading.ts), read a batch at a time. */
function readSpan(
  p: Projection,
  positions: readonly number[],
  options: { cwd: string | undefined; answers: boolean; extraction: boolean; estimate: (m: AgentMessage) => number },
  signal: AbortSignal,
): Promise<SpanReading> {
  return runEntryWalk(p.index, spanReadingWalk(p, positions, options), { signal });
}

/** The index of `leafId` (undefined: the file's leaf; null: before the first entry). */
function leafIndexOf(index: SessionIndex, leafId: string | null | undefined): number {
  if (leafId === undefined) return index.leafIndex;
  if (leafId === null) return -1;
  const i = index.indexOf(leafId);
  if (i < 0) throw new StaleSessionError(`the leaf ${leafId} is not in ${index.file} yet; reload the session and try again`);
  return i;
}

function hookProposal(
  index: SessionIndex,
  plan: CompactionPlan,
  spans: { history: SpanReading; prefix: SpanReading },
  c: HookCompaction,
  settings: CompactionSettings,
  estimator: EstimatorName,
): Omit<CompactionProposal, 'tokensAfter' | 'summaryTokens' | 'replacedTokens' | 'notSmaller'> {
  const summary = String(c.summary ?? '');
  const facts = deriveFacts(compactionSource(plan, spans));
  return {
    kind: 'proposal',
    index,
    plan,
    leafId: plan.leafId,
    summary,
    firstKeptEntryId: c.firstKeptEntryId ?? plan.firstKeptEntryId,
    tokensBefore: typeof c.tokensBefore === 'number' ? c.tokensBefore : plan.tokensBefore,
    details: c.details,
    usage: c.usage,
    fromHook: true,
    settings,
    estimator,
    facts,
    retention: checkRetention(summary, facts, { cwd: index.header.cwd }),
  };
}

export interface ApplyCompactionOptions {
  /** The summary as the user edited it (default: the proposed one). */
  summary?: string;
  hooks?: HookBus;
  signal?: AbortSignal;
  /** See AppendOptions.beforeWrite. */
  beforeWrite?: AppendOptions['beforeWrite'];
  /** Where the entry is written (default: the file). Through Pi, Pi appends it and moves its own leaf. */
  route?: WriteRoute;
}

/**
 * Appends the CompactionEntry as a child of the planned leaf. Refuses (and
 * writes nothing) if the file gained entries since the plan. `tokensBefore`
 * is recomputed from the rebuilt context of the path just before writing.
 */
export async function applyCompaction(proposal: CompactionProposal, options: ApplyCompactionOptions = {}): Promise<CompactionEntry> {
  const { index } = proposal;
  // No form of a known API key is ever written, whoever produced the text (provider, hook, user edit).
  const summary = redactKnownSecrets(options.summary ?? proposal.summary);
  if (!summary.trim()) throw new Error('the summary is empty; nothing was written');
  const projection = new Projection(index, index.indexOf(proposal.leafId));
  const reads = { signal: options.signal };
  const tokensBefore = proposal.fromHook
    ? proposal.tokensBefore
    : (await runEntryWalk(index, projectedContextTokensWalk(projection, estimatorByName(proposal.estimator)), reads)).tokens;
  const now = new Date();
  // Spec 4.8: the context after the compaction still starts with the system message in effect (its entries loaded).
  const system = await carriedSystemMessage(projection, options.signal);
  const entry: NewEntry = {
    type: 'compaction',
    summary,
    firstKeptEntryId: proposal.firstKeptEntryId,
    tokensBefore,
  };
  if (proposal.details !== undefined) entry.details = proposal.details;
  const usage = recordableUsage(proposal.usage);
  if (usage !== undefined) entry.usage = usage;
  if (proposal.fromHook) entry.fromHook = true;
  if (system) entry.systemMessage = { ...system, timestamp: now.getTime() };
  if (options.route?.via === 'pi') {
    // Pi writes the entry itself (with its own fields) and its memory follows: the approved text, nothing else.
    const result = await requestCompact(
      options.route.entry,
      {
        expectedLeafId: proposal.leafId,
        summary,
        firstKeptEntryId: proposal.firstKeptEntryId,
        tokensBefore,
        details: proposal.details,
        // The model call's usage (Pi's own model, or another's): Pi counts it in the session's totals.
        ...(piUsage(proposal.usage) ? { usage: piUsage(proposal.usage) } : {}),
        waitMs: options.route.waitMs,
      },
      { signal: options.signal },
    );
    const [piEntry] = await entriesWrittenByPi(index, result, options.signal);
    const compaction = expectEntryOfType(piEntry, 'compaction');
    await options.hooks?.emit('session_compact', { file: index.file, entry: compaction, fromHook: proposal.fromHook });
    return compaction;
  }
  const [written] = await appendEntries(index, [entry], {
    expectedLeafId: proposal.leafId,
    signal: options.signal,
    beforeWrite: options.beforeWrite,
    now: () => now,
  });
  const compaction = expectEntryOfType(written, 'compaction');
  await options.hooks?.emit('session_compact', { file: index.file, entry: compaction, fromHook: proposal.fromHook });
  return compaction;
}

export type CompactResult =
  | { kind: 'compacted'; entry: CompactionEntry; proposal: CompactionProposal }
  | NothingToCompact
  | { kind: 'cancelled'; reason: string }
  /** The summary would not make the context smaller: nothing written (unless `allowLarger`). */
  | { kind: 'notSmaller'; reason: string; proposal: CompactionProposal };

/** propose + apply, reporting a failure through `session_compact_failed` (and rethrowing it). */
export async function compactSession(options: CompactOptions & { allowLarger?: boolean }): Promise<CompactResult> {
  try {
    const proposal = await proposeCompaction(options);
    if (proposal.kind !== 'proposal') return proposal;
    if (proposal.notSmaller && !options.allowLarger) return { kind: 'notSmaller', reason: notSmallerReason(proposal), proposal };
    const entry = await applyCompaction(proposal, { hooks: options.hooks, signal: options.signal, route: options.route });
    return { kind: 'compacted', entry, proposal };
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    await options.hooks?.emit('session_compact_failed', {
      file: options.file,
      error,
      aborted: error.name === 'AbortError' || !!options.signal?.aborted,
    });
    throw error;
  }
}
