import * as vscode from 'vscode';
import {
  applyCompaction,
  notSmallerReason,
  proposeCompaction,
  tokensAfterWithSummary,
  type CompactionProposal,
} from '../../engine/operations/compact';
import { StaleSessionError } from '../../engine/session/writer';
import type { CompactionReason } from '../../engine/hooks/events';
import type { SummaryView } from '../../webview/protocol';
import { retentionHandlers, viewFromEntry, viewFromProposal } from '../panels/summaryView';
import { summarizerLabel, isSetupPrompt } from '../platform/summarizers';
import { noUsageNote } from '../../engine/summarize/summarizerNote';
import { withCancellableProgress, type ArborServices } from '../services';
import { log, reportError } from '../platform/logging';
import { readConfig } from '../platform/settings';
import { instructionsNote } from '../../engine/summarize/summarizerNote';
import type { SessionModel } from '../sessions/sessionStore';
import { askModal, showInfo } from '../platform/notify';
import { nothingToCompact, nothingToCompactNotice } from './compactCheck';
import type { NothingToCompact } from '../../engine/compaction/nothingToCompact';
import type { WriteRoute } from '../../engine/livePi/writeRoute';
import { piMovedOnNotice } from '../livePi/piMovedOnNotice';

/** Options for running Compact from code (other extensions, tests): no prompts. */
export interface CompactCommandOptions {
  /** Custom instructions; given (even empty) means: do not ask. */
  instructions?: string;
  /** false: write at once without the review panel (default true). */
  review?: boolean;
  reason?: CompactionReason;
  /** Skip the question before appending to a session another process wrote to recently (automatic compaction, which waits for the file to be idle). */
  skipLiveCheck?: boolean;
  /** Write a compaction whose summary is not smaller than what it replaces without asking (the CLI's --allow-larger). */
  allowLarger?: boolean;
  /** Keep this many recent tokens instead of Pi's compaction.keepRecentTokens ("Compact Keeping Less"). */
  keepRecentTokens?: number;
}

export type CompactCommandResult =
  | { kind: 'proposed'; proposalId: string; view: SummaryView }
  | { kind: 'compacted'; entryId: string }
  | (NothingToCompact & { keepLess?: { label: string; keepRecentTokens: number } })
  | { kind: 'cancelled'; reason: string };

/**
 * Arbor: Compact. Asks for optional instructions, summarizes under a
 * cancellable progress notification, then shows the proposal in the summary
 * panel: Apply writes it, Edit changes the text first, Discard drops it.
 */
export async function compactCommand(
  arbor: ArborServices,
  target?: unknown,
  options: CompactCommandOptions = {},
): Promise<CompactCommandResult | undefined> {
  const model = await arbor.resolveSession(target);
  if (!model) return undefined;
  // Check first: with nothing to compact, say so now rather than after asking for instructions.
  // (An error here, e.g. invalid Pi settings, is left for the compaction itself to report as it always did.)
  // (Through a running Pi, Pi's leaf and settings decide: the proposal itself says when there is nothing.)
  const nothing = arbor.livePi.stateOf(model.file)
    ? undefined
    : await nothingToCompact(arbor, model, { keepRecentTokens: options.keepRecentTokens }).catch(() => undefined);
  if (nothing !== undefined) return offerKeepingLess(arbor, model, nothing, options);
  let instructions = options.instructions;
  if (instructions === undefined) {
    instructions = await vscode.window.showInputBox({
      title: `Compact "${model.title ?? model.file}"`,
      prompt: `Optional instructions for the summary (what to focus on). ${instructionsNote(readConfig().provider)} Leave empty for the default summary.`,
      placeHolder: 'e.g. Keep the details of the API design decisions',
      ignoreFocusOut: true,
    });
    if (instructions === undefined) return { kind: 'cancelled', reason: 'no instructions entered' };
  }
  return compactSession(arbor, model, { ...options, instructions });
}

export async function compactSession(
  arbor: ArborServices,
  model: SessionModel,
  options: CompactCommandOptions,
): Promise<CompactCommandResult | undefined> {
  const review = options.review ?? true;
  const customInstructions = options.instructions?.trim() || undefined;
  let proposal: CompactionProposal;
  let author = '';
  // A running Pi holds the session? Then Pi's leaf is where the compaction goes (asked before any summary is made).
  let route: WriteRoute | undefined;
  try {
    route = await arbor.writeRoute(model, 'Compacting', { skipLiveCheck: true });
  } catch (err) {
    await compactFailed(arbor, model.file, err);
    return undefined;
  }
  if (!route) return { kind: 'cancelled', reason: 'a Pi without the bridge runs on this session' };
  try {
    const engine = await arbor.engineOptions(model);
    const summarizer = await arbor.summarizer(route);
    author = summarizerLabel(summarizer);
    const result = await withCancellableProgress(`Arbor: compacting "${model.title ?? 'session'}"`, async (signal, report) => {
      report(`summarizing with ${author}…`);
      return proposeCompaction({
        file: model.file,
        index: await arbor.store.ensureLoaded(model), // the view's index: no second read of the file
        summarizer,
        customInstructions,
        leafId: arbor.piLeaf(route),
        route, // through a live Pi, its own settings decide the numbers
        compaction: options.keepRecentTokens === undefined ? undefined : { keepRecentTokens: options.keepRecentTokens },
        reason: options.reason ?? 'manual',
        ...engine, // estimator, hooks, includeThinking, env, piSettings
        signal,
      });
    });
    if (result.kind === 'nothing') return offerKeepingLess(arbor, model, result, options, route.via === 'file');
    if (result.kind !== 'proposal') {
      void showInfo(`Arbor: compaction cancelled: ${result.reason}.`);
      log().info(`compact ${model.file}: ${result.kind}: ${result.reason}`);
      return result;
    }
    proposal = result;
  } catch (err) {
    await compactFailed(arbor, model.file, err);
    return undefined;
  }

  if (!review) {
    try {
      const entryId = await applyProposal(arbor, model, proposal, undefined, {
        skipLiveCheck: options.skipLiveCheck,
        force: route.via === 'file' && route.forced,
        allowLarger: options.allowLarger,
      });
      return entryId ? { kind: 'compacted', entryId } : undefined;
    } catch {
      return undefined; // reported by applyProposal
    }
  }
  const proposalId = arbor.panel.newProposalId();
  const view = await viewFromProposal(proposal, proposalId, model.title ?? model.file, author, customInstructions);
  arbor.panel.showProposal(view, {
    apply: async (summary) => {
      const entryId = await applyProposal(arbor, model, proposal, summary, {
        force: route.via === 'file' && route.forced,
        allowLarger: options.allowLarger,
        // Pi worked while the proposal was reviewed: planned again at Pi's new leaf and proposed (this one is not written).
        planAgain: () => void compactSession(arbor, model, options),
      });
      if (!entryId) return undefined;
      const index = await arbor.store.ensureLoaded(model);
      const written = await viewFromEntry(index, entryId, model.title ?? model.file, readConfig().estimator);
      written.author = author;
      if (written.summarizerNote)
        written.summarizerNote = noUsageNote(author, proposal.plan.summarizePositions.length + proposal.plan.turnPrefixPositions.length);
      return written;
    },
    discard: () => log().info(`compact ${model.file}: proposal discarded, nothing written`),
    ...retentionHandlers(proposal.facts, proposal.index.header.cwd),
    tokensAfter: (summary) => tokensAfterWithSummary(proposal, summary),
  });
  return { kind: 'proposed', proposalId, view };
}

/**
 * "Nothing to compact" with its figures; when keeping fewer recent tokens would work (and the file is written, not a
 * running Pi, whose own settings decide), the notification's action compacts keeping that many.
 */
function offerKeepingLess(
  arbor: ArborServices,
  model: SessionModel,
  nothing: NothingToCompact,
  options: CompactCommandOptions,
  canKeepLess = true,
): CompactCommandResult {
  const notice = nothingToCompactNotice(model.title ?? model.file, nothing);
  const keepLess = canKeepLess ? notice.keepLess : undefined;
  log().info(`compact ${model.file}: nothing: ${nothing.reason}`);
  if (!keepLess) void showInfo(notice.message);
  else
    void showInfo(notice.message, keepLess.label).then((choice) => {
      if (choice !== keepLess.label) return;
      log().info(`compact ${model.file}: compacting keeping ${keepLess.keepRecentTokens} recent tokens`);
      return compactCommand(arbor, model.file, { ...options, keepRecentTokens: keepLess.keepRecentTokens });
    });
  return { ...nothing, keepLess };
}

/** Writes a reviewed proposal. Returns the new entry's id, or undefined when nothing was written. */
async function applyProposal(
  arbor: ArborServices,
  model: SessionModel,
  proposal: CompactionProposal,
  summary: string | undefined,
  options: { skipLiveCheck?: boolean; force?: boolean; allowLarger?: boolean; planAgain?: () => void } = {},
): Promise<string | undefined> {
  // A compaction that leaves the context no smaller gains nothing: written only when the user says so (issue 32 item 6).
  if (proposal.notSmaller && !options.allowLarger) {
    const choice = await askModal(
      'This compaction would not make the context smaller.',
      `Arbor: ${notSmallerReason(proposal)}. Keeping fewer recent tokens (Pi's compaction.keepRecentTokens, now ` +
        `${proposal.settings.keepRecentTokens}) summarizes more.`,
      'Write It Anyway',
    );
    if (choice !== 'Write It Anyway') {
      log().info(`compact ${model.file}: not written, the summary would not make the context smaller`);
      return undefined;
    }
  }
  try {
    // Asked again now: Pi may have started or quit while the proposal was reviewed.
    const route = await arbor.writeRoute(model, 'Compacting', options);
    if (!route) return undefined;
    if (route.via === 'pi' && route.state.leafId !== proposal.leafId && options.planAgain) {
      log().info(`compact ${model.file}: Pi moved from ${proposal.leafId} to ${route.state.leafId ?? 'root'}; planning again there`);
      void showInfo(piMovedOnNotice(route.state.pid, 'compaction'));
      options.planAgain();
      return undefined;
    }
    const entry = await arbor.store.write(model, (index) => {
      if (proposal.index !== index)
        throw new StaleSessionError(`${model.file} was reloaded since the compaction was planned. Nothing was written; compact again.`);
      return applyCompaction(proposal, { summary, hooks: arbor.hooks, beforeWrite: arbor.store.noteOwnEntries, route });
    });
    if (route.via === 'file') arbor.store.noteFileWrite(model, [entry.id], proposal.leafId);
    else void arbor.livePi.refresh();
    log().info(
      `compact ${model.file}: wrote compaction ${entry.id} ` +
        (`${route.via === 'pi' ? `through Pi (pid ${route.state.pid})` : 'to the file'} (firstKept ` +
          `${entry.firstKeptEntryId}, tokensBefore ${entry.tokensBefore})`),
    );
    arbor.setActive(model.file);
    void arbor.revealEntry(model.file, entry.id);
    return entry.id;
  } catch (err) {
    await compactFailed(arbor, model.file, err);
    throw err;
  }
}

async function compactFailed(arbor: ArborServices, file: string, err: unknown): Promise<void> {
  if (isSetupPrompt(err)) return;
  const error = err instanceof Error ? err : new Error(String(err));
  await arbor.hooks.emit('session_compact_failed', { file, error, aborted: error.name === 'AbortError' });
  await reportError('Compact', err);
}
