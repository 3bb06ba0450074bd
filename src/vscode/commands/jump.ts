import { isSetupPrompt, summarizerLabel } from '../platform/summarizers';
import * as vscode from 'vscode';
import { applyNavigation, proposeNavigation, type NavigationProposal } from '../../engine/operations/navigate';
import type { SummaryView } from '../../webview/protocol';
import { viewFromNavigation, type SummarizedJump } from '../panels/jumpReviewView';
import { rememberJump, undoJumpCommand } from './undoJump';
import { StaleSessionError } from '../../engine/session/writer';
import type { Summarizer } from '../../engine/summarize/summarizer';
import { withCancellableProgress, type ArborServices } from '../services';
import { log, reportError } from '../platform/logging';
import { entryPreview } from '../../engine/tree/entryPreview';
import { oneLine } from '../../engine/tree/oneLine';
import { retentionHandlers, viewFromEntry } from '../panels/summaryView';
import { selectedOrPickedEntry } from '../tree/entryPicker';
import { readConfig } from '../platform/settings';
import { instructionsNote } from '../../engine/summarize/summarizerNote';
import type { SessionModel } from '../sessions/sessionStore';
import { showInfo } from '../platform/notify';
import { restoreFilesAfterJump } from '../files/fileCommands';
import type { RestoreFilesOptions, RestoreFilesResult } from '../files/restoreFiles';
import { parseCommandTarget, targetEntry } from '../tree/commandTarget';
import { renderLoaded } from '../panels/loadedRender';
import { jumpTokensAfterWithSummary } from '../../engine/branch/jumpNumbers';
import { estimatorByName } from '../../engine/tokens/estimators';
import { piMovedOnNotice } from '../livePi/piMovedOnNotice';

export type JumpSummaryMode = 'none' | 'summarize' | 'custom' | 'replace';

/** Options for running Jump Here from code (other extensions, tests): no prompts. */
export interface JumpCommandOptions {
  summarize?: JumpSummaryMode;
  instructions?: string;
  label?: string;
  /** Show the written branch summary in the panel (default: only when asked from the notification). */
  showSummary?: boolean;
  /** Also restore files to the new leaf, without asking (see src/vscode/files/restoreFiles.ts). */
  restoreFiles?: RestoreFilesOptions;
  /**
   * Show a branch summary in the review panel before writing it (Apply / Edit / Discard, as Compact). Default: when
   * the user chose the summary (no `summarize` option); a caller passing `summarize` writes at once unless it says so.
   */
  review?: boolean;
}

export interface JumpCommandResult {
  kind: 'jumped' | 'proposed' | 'nothing' | 'cancelled';
  /** A proposal waiting in the review panel (kind 'proposed'): apply it with arbor.applyProposal. */
  proposalId?: string;
  view?: SummaryView;
  reason?: string;
  newLeafId?: string | null;
  summaryEntryId?: string;
  written?: string[];
  /** The text of a user-message target, handed back for editing. */
  editorText?: string | null;
  /** What "also restore files to this point" did, when it ran. */
  files?: RestoreFilesResult;
}

interface ModePick extends vscode.QuickPickItem {
  mode: JumpSummaryMode;
}

/** The entry a Jump targets: an entry node, or a side branch's newest entry (looked up in the full index). */
async function targetOf(arbor: ArborServices, node: unknown): Promise<{ file: string; entryId: string } | undefined> {
  const target = parseCommandTarget(node);
  if (target.kind === 'branch') {
    // The node may come from a preview of the session: find its start by id and line offset, not position.
    const n = target.node;
    const model = await arbor.resolveSession(n.file);
    if (!model?.layout || !model.index) return undefined;
    const start = model.index.indexAtOffset(n.offset, n.startId);
    if (start < 0) return undefined;
    return { file: n.file, entryId: model.index.record(model.layout.latestUnder(start)).id };
  }
  return targetEntry(target);
}

async function pickMode(model: SessionModel, targetText: string): Promise<JumpSummaryMode | undefined> {
  const items: ModePick[] = [
    {
      mode: 'none',
      label: '$(arrow-right) No summary',
      description: 'just move',
      detail: 'The branch you leave stays in the tree; the context will not mention it.',
    },
    {
      mode: 'summarize',
      label: '$(note) Summarize the branch I leave',
      detail: 'Writes a branch summary so the context keeps what was learned there.',
    },
    {
      mode: 'custom',
      label: '$(edit) Summarize with custom instructions…',
      detail: 'Adds your focus to the default summary instructions.',
    },
    {
      mode: 'replace',
      label: '$(replace) Summarize with my own instructions only…',
      detail: 'Your instructions replace the default ones.',
    },
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: `Jump to: ${oneLine(targetText, 70)}`,
    placeHolder: `Summarize the branch you are leaving in "${model.title ?? 'this session'}"?`,
    ignoreFocusOut: true,
  });
  return picked?.mode;
}

/**
 * Arbor: Jump Here. Moves the session's leaf to the chosen entry, with or
 * without a summary of the branch left behind (Pi's /tree). Honours
 * `branchSummary.skipPrompt` (then: no summary, no question).
 */
export async function jumpCommand(
  arbor: ArborServices,
  node?: unknown,
  options: JumpCommandOptions = {},
): Promise<JumpCommandResult | undefined> {
  let target = await targetOf(arbor, node ?? (await selectedOrPickedEntry(arbor, 'Jump Here: to which entry?')));
  if (!target) {
    void showInfo('Arbor: select an entry in the Sessions view to jump to.');
    return undefined;
  }
  const model = await arbor.resolveSession(target.file);
  if (!model?.index) return undefined;
  target = { file: model.file, entryId: target.entryId };
  const index = model.index;
  const ti = index.indexOf(target.entryId);
  if (ti < 0) throw new Error(`entry ${target.entryId} is not in ${model.file}`);
  // A running Pi with the bridge: the jump leaves from Pi's leaf and Pi writes it. (Asked before any question about the summary.)
  let route;
  try {
    route = await arbor.writeRoute(model, 'Jumping');
  } catch (err) {
    await reportError('Jump', err);
    return undefined;
  }
  if (!route) return { kind: 'cancelled', reason: 'the user did not confirm writing to a live session' };
  const fromId = arbor.piLeaf(route);
  if (fromId === undefined ? ti === index.leafIndex : fromId === target.entryId) {
    void showInfo('Arbor: that entry is already the current leaf.');
    return { kind: 'nothing', reason: 'already the current leaf' };
  }
  const preview = await renderLoaded(index, [ti], () => entryPreview(index.entry(ti)));

  let engine: Awaited<ReturnType<ArborServices['engineOptions']>>;
  try {
    engine = await arbor.engineOptions(model);
  } catch (err) {
    await reportError('Reading Pi settings', err);
    return undefined;
  }
  let mode = options.summarize;
  if (mode === undefined) {
    mode = engine.piSettings.branchSummary.skipPrompt ? 'none' : await pickMode(model, preview.text || preview.title);
    if (!mode) return { kind: 'cancelled', reason: 'no choice made' };
  }
  let instructions = options.instructions;
  if ((mode === 'custom' || mode === 'replace') && instructions === undefined) {
    instructions = await vscode.window.showInputBox({
      title: mode === 'custom' ? 'Focus for the branch summary' : 'Instructions for the branch summary (replace the defaults)',
      prompt:
        `${mode === 'custom' ? 'Added to the default instructions.' : 'Used instead of the default instructions.'} ` +
        `${instructionsNote(readConfig().provider, mode === 'custom' ? 'focus' : 'replace')}`,
      ignoreFocusOut: true,
    });
    if (instructions === undefined) return { kind: 'cancelled', reason: 'no instructions entered' };
  }

  const summarize = mode !== 'none';
  let label = options.label;
  if (summarize && label === undefined && options.summarize === undefined) {
    // Pi's /tree labels the summary it writes: asked here (optional), shown and written with the summary on Apply.
    label = await vscode.window.showInputBox({
      title: 'Label for the branch summary (optional)',
      prompt: 'A label marks the summary in the tree. Leave empty for none.',
      placeHolder: 'e.g. before-the-refactor',
      ignoreFocusOut: true,
    });
    if (label === undefined) return { kind: 'cancelled', reason: 'no label entered' };
  }
  const customInstructions = instructions?.trim() || undefined;
  let author = '';
  let proposal: NavigationProposal;
  try {
    const summarizer: Summarizer | undefined = summarize ? await arbor.summarizer(route) : undefined;
    if (summarizer) author = summarizerLabel(summarizer);
    const result = await withCancellableProgress(
      summarize ? 'Arbor: summarizing the branch you leave' : 'Arbor: jumping',
      async (signal, report) => {
        if (summarizer) report(`with ${author}…`);
        return proposeNavigation({
          file: model.file,
          index, // the view's index: no second read of the file
          targetId: target!.entryId,
          summarize,
          customInstructions,
          replaceInstructions: mode === 'replace' ? true : undefined,
          label: label?.trim() || undefined,
          fromId,
          route, // through a live Pi, its own settings decide the budget
          summarizer,
          ...engine, // estimator, hooks, includeThinking, env, piSettings
          signal,
        });
      },
    );
    if (result.kind !== 'proposal') {
      void showInfo(`Arbor: ${result.reason}.`);
      return { kind: result.kind, reason: result.reason };
    }
    proposal = result;
  } catch (err) {
    if (!isSetupPrompt(err)) await reportError('Jump', err);
    return undefined;
  }
  // Issue 34 item 2: a branch summary is reviewed before it is written, as a compaction is (the same panel).
  const review = options.review ?? options.summarize === undefined;
  if (proposal.summary && review) {
    const proposalId = arbor.panel.newProposalId();
    const view = await viewFromNavigation(proposal as SummarizedJump, {
      proposalId,
      sessionTitle: model.title ?? model.file,
      author,
      customInstructions,
      replaceInstructions: mode === 'replace',
    });
    const facts = proposal.summary.facts;
    const numbers = proposal.summary.numbers;
    arbor.panel.showProposal(view, {
      apply: async (summary) => {
        const done = await writeJump(arbor, model, proposal, {
          ...options,
          summary,
          showSummary: false,
          shownInPanel: true,
          // Pi worked while the summary was reviewed: the same jump planned again from Pi's new leaf, and reviewed.
          planAgain: () =>
            void jumpCommand(
              arbor,
              { file: model.file, entryId: proposal.plan.targetId },
              { ...options, summarize: mode, instructions, label: label ?? '', review: true },
            ),
        });
        if (!done?.summaryEntryId) return undefined;
        const written = await viewFromEntry(
          await arbor.store.ensureLoaded(model),
          done.summaryEntryId,
          model.title ?? model.file,
          readConfig().estimator,
        );
        // Who wrote it and what the call cost, as the review said (the entry records no author, and no usage for a call without one).
        written.author = view.author;
        if (written.summarizerNote) written.summarizerNote = view.summarizerNote ?? written.summarizerNote;
        return written;
      },
      discard: () => log().info(`jump ${model.file}: branch summary discarded, nothing written`),
      ...(facts ? retentionHandlers(facts, proposal.index.header.cwd) : {}),
      // "Context after the jump" follows an edit of the summary (the landing's context plus the edited text).
      ...(numbers
        ? { tokensAfter: (summary: string) => jumpTokensAfterWithSummary(numbers, summary, estimatorByName(engine.estimator)) }
        : {}),
    });
    return { kind: 'proposed', proposalId, view };
  }
  return writeJump(arbor, model, proposal, options);
}

/**
 * Writes a jump (at once, or on the review panel's Apply with the edited `summary`), tells the user where they are
 * with Undo Jump offered, and offers to restore files. Undefined: nothing written (the error was reported).
 */
async function writeJump(
  arbor: ArborServices,
  model: SessionModel,
  proposal: NavigationProposal,
  options: JumpCommandOptions & { summary?: string; shownInPanel?: boolean; planAgain?: () => void },
): Promise<JumpCommandResult | undefined> {
  try {
    // Asked again on Apply: Pi may have started or quit while the summary was reviewed.
    const route = await arbor.writeRoute(model, 'Jumping', { skipLiveCheck: true });
    if (!route) return { kind: 'cancelled', reason: 'the user did not confirm writing to a live session' };
    if (route.via === 'pi' && route.state.leafId !== proposal.oldLeafId && options.planAgain) {
      log().info(`jump ${model.file}: Pi moved from ${proposal.oldLeafId ?? 'root'} to ${route.state.leafId ?? 'root'}; planning again`);
      void showInfo(piMovedOnNotice(route.state.pid, 'jump'));
      options.planAgain();
      return undefined;
    }
    const engine = await arbor.engineOptions(model);
    const nav = await withCancellableProgress('Arbor: jumping', async (signal) => {
      const applied = await arbor.store.write(model, (held) => {
        if (held !== proposal.index)
          throw new StaleSessionError(`${model.file} was reloaded since the jump was planned. Nothing was written; jump again.`);
        return applyNavigation(proposal, {
          summary: options.summary,
          hooks: engine.hooks,
          signal,
          beforeWrite: arbor.store.noteOwnEntries,
          route,
        });
      });
      if (route.via === 'file')
        arbor.store.noteFileWrite(
          model,
          applied.written.map((e) => e.id),
          proposal.oldLeafId,
        );
      else await arbor.livePi.refresh();
      return applied;
    });
    const ids = nav.written.map((e) => e.id);
    if (proposal.oldLeafId !== null)
      rememberJump(model.file, { oldLeafId: proposal.oldLeafId, leafAfterJump: ids.at(-1) ?? nav.newLeafId });
    arbor.setActive(model.file);
    log().info(
      `jump ${model.file}: ${proposal.plan.targetId} (new leaf ${nav.newLeafId ?? 'root'}), ` +
        `${route.via === 'pi' ? `through Pi (pid ${route.state.pid})` : 'to the file'}: ${ids.join(', ')}`,
    );
    await arbor.revealLeaf(model.file);
    const summaryEntryId = nav.summaryEntry?.id;
    if (summaryEntryId && options.showSummary) await showWritten(arbor, model, summaryEntryId);
    void announce(arbor, model, nav.editorText, summaryEntryId, options);
    const files = await restoreFilesAfterJump(arbor, model.file, nav.newLeafId, options.summarize === undefined, options.restoreFiles);
    return { kind: 'jumped', newLeafId: nav.newLeafId, summaryEntryId, written: ids, editorText: nav.editorText, files };
  } catch (err) {
    if (!isSetupPrompt(err)) await reportError('Jump', err);
    return undefined;
  }
}

async function showWritten(arbor: ArborServices, model: SessionModel, entryId: string): Promise<void> {
  if (!model.index) return;
  arbor.panel.show(await viewFromEntry(model.index, entryId, model.title ?? model.file, readConfig().estimator));
}

/** Tells the user where they are; a user-message target's text comes back for editing. */
async function announce(
  arbor: ArborServices,
  model: SessionModel,
  editorText: string | null,
  summaryEntryId: string | undefined,
  options: JumpCommandOptions & { shownInPanel?: boolean },
): Promise<void> {
  const buttons: string[] = [];
  if (editorText) buttons.push('Edit Message', 'Copy Message');
  if (summaryEntryId && !options.showSummary && !options.shownInPanel) buttons.push('Show Summary');
  buttons.push('Undo Jump');
  const viaPi = arbor.livePi.stateOf(model.file) !== undefined;
  const text = editorText
    ? `Arbor: moved to just before your message "${oneLine(editorText, 60)}". ` +
      `${viaPi ? 'Pi has it in its editor: edit it and send it again there.' : 'Edit it and send it again from Pi.'}`
    : `Arbor: moved the leaf${summaryEntryId ? ' and wrote a summary of the branch you left' : ''}.`;
  const choice = await showInfo(text, ...buttons);
  if (choice === 'Edit Message' && editorText) {
    const doc = await vscode.workspace.openTextDocument({ content: editorText, language: 'markdown' });
    await vscode.window.showTextDocument(doc);
  } else if (choice === 'Copy Message' && editorText) {
    await vscode.env.clipboard.writeText(editorText);
  } else if (choice === 'Show Summary' && summaryEntryId) {
    await showWritten(arbor, model, summaryEntryId);
  } else if (choice === 'Undo Jump') {
    await undoJumpCommand(arbor, { file: model.file });
  }
}
