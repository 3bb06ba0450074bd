// Over 400 lines: one class, the bridge's operations inside Pi; each write's idle wait, drop on a gone client and Pi hook
// answer share its pending state.
import { randomBytes } from 'node:crypto';
import {
  BridgeRequestError,
  DEFAULT_IDLE_WAIT_MS,
  type CompactRequest,
  type LabelRequest,
  type NavigateRequest,
  type PiState,
  type PiSummary,
  type SummarizeRequest,
  type WriteResult,
} from '../engine/livePi/protocol';
import { checkPiCanSummarize, summarizeBranchInPi, summarizePreparation } from './piSummary';
import { DEFAULT_PI_SETTINGS, piSettingsFromObject } from '../engine/settings/piSettings';
import { IdleWaiter } from './idle';
import type { PiApi, PiCommandContext, PiContext, SessionBeforeCompactEvent, SessionBeforeTreeEvent } from './piApi';

/** The command the bridge sends itself to get a command context (navigation needs one); not meant to be typed. */
export const BRIDGE_COMMAND = 'arbor-bridge-run';
/** How long a queued navigation may wait for its command to run before it is given up. */
const COMMAND_START_MS = 30_000;

interface PendingCompaction {
  request: CompactRequest;
  refused?: string;
}

interface PendingSummary {
  request: SummarizeRequest;
  /** Fires when the client is gone: the model call stops. */
  signal?: AbortSignal;
  result?: PiSummary;
  error?: BridgeRequestError;
}

interface PendingNavigation {
  request: NavigateRequest;
  /** Fires when the client is gone: the navigation is dropped, not run later. */
  signal?: AbortSignal;
  resolve: (r: WriteResult) => void;
  reject: (e: Error) => void;
}

/**
 * What the bridge does inside Pi for each request. Every write is Pi's own:
 * Pi appends the entry with its fields and moves its leaf, so its memory and
 * the file agree. Requests run one at a time, each only once Pi is idle.
 */
export class BridgeOperations {
  private readonly idle = new IdleWaiter();
  private queue: Promise<unknown> = Promise.resolve();
  private compaction: PendingCompaction | undefined;
  private treeSummary: { targetId: string; text: string; details: unknown } | undefined;
  private readonly navigations = new Map<string, PendingNavigation>();
  /** Navigations dropped (their client gone) whose command Pi may still run: it then does nothing, silently. */
  private readonly droppedNavigations = new Set<string>();
  private summarizing: PendingSummary | undefined;
  private summaryAbort: AbortController | undefined;

  constructor(
    private readonly pi: PiApi,
    private readonly ctx: () => PiContext,
    private readonly identity: { pid: number; piVersion: string; bridgeVersion: string },
  ) {}

  wakeIdle(): void {
    this.idle.wake();
  }

  state(): PiState {
    const ctx = this.ctx();
    const sm = ctx.sessionManager;
    const usage = ctx.getContextUsage();
    return {
      ...this.identity,
      sessionFile: sm.getSessionFile() ?? '',
      sessionId: sm.getSessionId(),
      cwd: sm.getCwd(),
      leafId: sm.getLeafId(),
      idle: ctx.isIdle(),
      model: ctx.model ? { provider: String(ctx.model.provider), id: String(ctx.model.id) } : null,
      contextUsage: usage ? { tokens: usage.tokens ?? null, contextWindow: usage.contextWindow, percent: usage.percent ?? null } : null,
      settings: this.settings(),
    };
  }

  /** What Pi compacts by: the compaction and branch-summary parts of its effective settings. */
  private settings(): PiState['settings'] {
    try {
      const all = this.pi.getSettings?.();
      if (typeof all !== 'object' || all === null) return null;
      return {
        compaction: 'compaction' in all ? all.compaction : undefined,
        branchSummary: 'branchSummary' in all ? all.branchSummary : undefined,
      };
    } catch {
      return null;
    }
  }

  /** Runs one write at a time, in arrival order. */
  serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  compact(request: CompactRequest, signal?: AbortSignal): Promise<WriteResult> {
    return this.serial(async () => {
      const ctx = await this.readyAt(request.expectedLeafId, request.waitMs, signal);
      if (!ctx.sessionManager.getEntry(request.firstKeptEntryId))
        throw new BridgeRequestError('not-found', `entry ${request.firstKeptEntryId} is not in Pi's session`);
      const before = ctx.sessionManager.getEntries().length;
      this.compaction = { request };
      try {
        await new Promise<void>((resolve, reject) => {
          ctx.compact({ onComplete: () => resolve(), onError: (e) => reject(e) });
        });
      } catch (err) {
        const refused = this.compaction?.refused;
        throw new BridgeRequestError(refused ? 'stale' : 'failed', refused ?? compactionFailure(messageOf(err)));
      } finally {
        this.compaction = undefined;
      }
      const result = this.written(ctx, before);
      checkApprovedText(ctx, result, 'compaction', request.summary);
      return result;
    });
  }

  /**
   * Pi writes a compaction summary with its own model (piSummary.ts): Pi's manual compaction prepares it, the
   * bridge's session_before_compact handler has Pi's summary function write it and cancels the compaction, so
   * nothing is written. One request at a time, once Pi is idle.
   */
  summarize(request: SummarizeRequest, signal?: AbortSignal): Promise<PiSummary> {
    return this.serial(async () => {
      const ctx = await this.readyAt(request.expectedLeafId, request.waitMs, signal);
      if (request.kind === 'branch') return this.branchSummary(ctx, request, signal);
      checkPiCanSummarize(ctx);
      const job: PendingSummary = { request, signal };
      this.summarizing = job;
      try {
        await new Promise<void>((resolve, reject) => {
          ctx.compact({
            customInstructions: request.customInstructions,
            onComplete: () => reject(new BridgeRequestError('failed', 'Pi wrote a compaction of its own instead of only its summary')),
            onError: () => resolve(),
          });
        }).catch((err: unknown) => {
          throw err instanceof BridgeRequestError ? err : new BridgeRequestError('failed', messageOf(err));
        });
      } finally {
        this.summarizing = undefined;
      }
      if (job.result) return job.result;
      throw job.error ?? new BridgeRequestError('failed', 'Pi started no compaction to summarize (nothing to compact at its leaf?)');
    });
  }

  /** session_before_compact: hand Pi the approved compaction (only for Arbor's own request), or write Pi's summary and cancel. */
  supplyCompaction(event: SessionBeforeCompactEvent, ctx?: PiContext): unknown {
    const job = this.summarizing;
    if (job && event?.reason === 'manual') return this.writeSummary(job, event, ctx ?? this.ctx());
    const pending = this.compaction;
    if (!pending || event?.reason !== 'manual') return undefined;
    const r = pending.request;
    // Never throws: a handler that throws lets Pi go on with a compaction of its own (its model's summary, not the approved one).
    const branch: unknown[] = Array.isArray(event.branchEntries) ? event.branchEntries : [];
    if (!branch.some((e) => typeof e === 'object' && e !== null && 'id' in e && e.id === r.firstKeptEntryId)) {
      pending.refused = `entry ${r.firstKeptEntryId} is not on Pi's current branch; plan the compaction again`;
      return { cancel: true };
    }
    return {
      compaction: {
        summary: r.summary,
        firstKeptEntryId: r.firstKeptEntryId,
        tokensBefore: r.tokensBefore,
        details: r.details,
        ...(r.usage !== undefined ? { usage: r.usage } : {}),
      },
    };
  }

  /** Pi's branch summary of the jump to request.targetId (Pi's branchSummary.reserveTokens); Pi does not move. */
  private async branchSummary(ctx: PiContext, request: SummarizeRequest, gone?: AbortSignal): Promise<PiSummary> {
    let reserveTokens = DEFAULT_PI_SETTINGS.branchSummary.reserveTokens;
    try {
      reserveTokens = piSettingsFromObject(this.pi.getSettings?.() ?? {}, "Pi's effective settings").branchSummary.reserveTokens;
    } catch {
      // Pi's own settings did not validate: Pi's default budget
    }
    const abort = new AbortController();
    const stop = () => abort.abort();
    gone?.addEventListener('abort', stop, { once: true });
    this.summaryAbort = abort;
    try {
      return await summarizeBranchInPi(ctx, {
        targetId: request.targetId!,
        customInstructions: request.customInstructions,
        replaceInstructions: request.replaceInstructions,
        reserveTokens,
        signal: abort.signal,
      });
    } finally {
      gone?.removeEventListener('abort', stop);
      this.summaryAbort = undefined;
    }
  }

  /** Pi's summary of its own preparation, kept for the summarize request; the compaction is cancelled (nothing written). */
  private async writeSummary(job: PendingSummary, event: SessionBeforeCompactEvent, ctx: PiContext): Promise<{ cancel: true }> {
    try {
      const signals = [event.signal, job.signal].filter((x): x is AbortSignal => !!x);
      job.result = await summarizePreparation(ctx, event.preparation, event.customInstructions, AbortSignal.any(signals));
    } catch (err) {
      job.error = err instanceof BridgeRequestError ? err : new BridgeRequestError('failed', messageOf(err));
    }
    return { cancel: true };
  }

  navigate(request: NavigateRequest, signal?: AbortSignal): Promise<WriteResult> {
    return this.serial(async () => {
      const ctx = await this.readyAt(request.expectedLeafId, request.waitMs, signal);
      if (!ctx.sessionManager.getEntry(request.targetId))
        throw new BridgeRequestError('not-found', `entry ${request.targetId} is not in Pi's session`);
      const nonce = randomBytes(16).toString('hex');
      return new Promise<WriteResult>((resolve, reject) => {
        const settle = (err: Error | null, value?: WriteResult) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', dropped);
          if (err) reject(err);
          else resolve(value!);
        };
        const timer = setTimeout(() => {
          if (this.navigations.delete(nonce))
            settle(new BridgeRequestError('busy', 'Pi did not run the navigation in time (it stayed busy); nothing was changed'));
        }, COMMAND_START_MS);
        // The client gone before Pi ran the command: the navigation is dropped (the command then finds nothing to do).
        const dropped = () => {
          if (!this.navigations.delete(nonce)) return;
          if (this.droppedNavigations.size > 100) this.droppedNavigations.clear();
          this.droppedNavigations.add(nonce);
          settle(gone(signal));
        };
        signal?.addEventListener('abort', dropped, { once: true });
        this.navigations.set(nonce, { request, signal, resolve: (r) => settle(null, r), reject: (e) => settle(e) });
        // An extension command gets the command context navigateTree needs; Pi runs it like a typed /command.
        try {
          this.pi.sendUserMessage(`/${BRIDGE_COMMAND} ${nonce}`, { expandPromptTemplates: true });
        } catch (err) {
          this.navigations.delete(nonce);
          settle(new BridgeRequestError('failed', `Pi did not take the navigation: ${messageOf(err)}; nothing was changed`));
        }
      });
    });
  }

  /** The bridge's own command: runs the navigation queued under `nonce`. */
  async runCommand(args: string, ctx: PiCommandContext): Promise<void> {
    const nonce = args.trim();
    const job = this.navigations.get(nonce);
    if (this.droppedNavigations.delete(nonce)) return;
    if (!job) {
      if (ctx.hasUI) ctx.ui.notify(`/${BRIDGE_COMMAND} is used by Arbor's bridge; there is nothing for it to do.`, 'info');
      return;
    }
    this.navigations.delete(nonce);
    try {
      job.resolve(await this.navigateNow(job.request, ctx, job.signal));
    } catch (err) {
      job.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private async navigateNow(request: NavigateRequest, ctx: PiCommandContext, signal?: AbortSignal): Promise<WriteResult> {
    await ctx.waitForIdle();
    if (signal?.aborted) throw gone(signal);
    const sm = ctx.sessionManager;
    const oldLeafId = sm.getLeafId();
    if (oldLeafId !== request.expectedLeafId) throw staleLeaf(oldLeafId, request.expectedLeafId);
    const before = sm.getEntries().length;
    this.treeSummary = request.summary
      ? { targetId: request.targetId, text: request.summary.text, details: request.summary.details }
      : undefined;
    let result;
    try {
      result = await ctx.navigateTree(request.targetId, { summarize: !!request.summary, label: request.label });
    } catch (err) {
      throw new BridgeRequestError('failed', `Pi could not navigate: ${messageOf(err)}`);
    } finally {
      this.treeSummary = undefined;
    }
    if (result.cancelled)
      throw new BridgeRequestError(
        'failed',
        'the navigation was cancelled inside Pi (by another extension or an abort); nothing was changed',
      );
    // A move without a summary writes nothing, as Pi's own /tree: Pi holds the new leaf in memory, and its next entry goes there.
    const editorText = typeof result.editorText === 'string' ? result.editorText : null;
    if (editorText !== null && ctx.hasUI) ctx.ui.setEditorText?.(editorText);
    const written = this.written(ctx, before);
    if (request.summary) checkApprovedText(ctx, written, 'branch_summary', request.summary.text);
    return { ...written, editorText };
  }

  /** session_before_tree: hand Pi the approved branch summary (only for Arbor's own request). */
  supplyBranchSummary(event: SessionBeforeTreeEvent): unknown {
    const pending = this.treeSummary;
    if (!pending) return undefined;
    // Ours, but not as planned: cancel rather than let Pi summarize with its own model.
    if (event?.preparation?.targetId !== pending.targetId || event.preparation.userWantsSummary !== true) return { cancel: true };
    return { summary: { summary: pending.text, details: pending.details } };
  }

  label(request: LabelRequest, signal?: AbortSignal): Promise<WriteResult> {
    return this.serial(async () => {
      const ctx = await this.readyAt(undefined, request.waitMs, signal);
      if (!ctx.sessionManager.getEntry(request.entryId))
        throw new BridgeRequestError('not-found', `entry ${request.entryId} is not in Pi's session`);
      const before = ctx.sessionManager.getEntries().length;
      this.pi.setLabel(request.entryId, request.label ?? undefined);
      return this.written(ctx, before);
    });
  }

  /**
   * Waits until Pi is idle (bounded) and, when given, checks that its leaf is the one the request was planned at.
   * A request whose client is gone (`signal` aborted) while Pi is busy is dropped: nothing is written for it.
   */
  private async readyAt(
    expectedLeafId: string | null | undefined,
    waitMs = DEFAULT_IDLE_WAIT_MS,
    signal?: AbortSignal,
  ): Promise<PiContext> {
    const idle = await this.idle
      .waitFor(() => this.ctx().isIdle(), waitMs, signal)
      .catch(() => {
        throw gone(signal);
      });
    if (!idle)
      throw new BridgeRequestError(
        'busy',
        `Pi is busy (a run, a retry or a compaction) and did not become idle within ${Math.round(waitMs / 1000)} s; nothing was changed`,
      );
    const ctx = this.ctx();
    const leaf = ctx.sessionManager.getLeafId();
    if (expectedLeafId !== undefined && leaf !== expectedLeafId) throw staleLeaf(leaf, expectedLeafId);
    return ctx;
  }

  private written(ctx: PiContext, before: number): WriteResult {
    const entries = ctx.sessionManager.getEntries();
    return { entryIds: entries.slice(before).map((e) => e.id), leafId: ctx.sessionManager.getLeafId() };
  }

  /** Session over: queued navigations fail, a summary being written stops. */
  close(): void {
    this.summaryAbort?.abort();
    for (const job of this.navigations.values()) job.reject(new BridgeRequestError('failed', 'Pi closed the session; nothing was changed'));
    this.navigations.clear();
  }
}

/**
 * What Pi wrote is exactly the approved text. Pi lets the last extension that answers its hook win, so
 * another extension's handler could have replaced it: then say so (the entry is written; it cannot be taken back).
 * No entry of the type (Pi found nothing to summarize on a jump) is no mismatch.
 */
function checkApprovedText(ctx: PiContext, result: WriteResult, type: 'compaction' | 'branch_summary', approved: string): void {
  const entry = result.entryIds.map((id) => ctx.sessionManager.getEntry(id)).find((e) => e?.type === type);
  if (!entry || entry.summary === approved) return;
  throw new BridgeRequestError(
    'failed',
    `Pi wrote ${type === 'compaction' ? 'compaction' : 'branch summary'} ${entry.id} with a text other than the ` +
      `approved one (another Pi extension answered Pi's hook after Arbor's bridge); look at it in the tree`,
  );
}

/** The client went away (a cancel, Ctrl-C): its request is dropped, nothing written. */
function gone(signal: AbortSignal | undefined): BridgeRequestError {
  const reason: unknown = signal?.reason;
  return reason instanceof BridgeRequestError ? reason : new BridgeRequestError('failed', 'the request was cancelled; nothing was changed');
}

function staleLeaf(actual: string | null, expected: string | null): BridgeRequestError {
  return new BridgeRequestError(
    'stale',
    `Pi's leaf is ${actual ?? '(root)'}, not ${expected ?? '(root)'} where this was planned: Pi moved on; plan again`,
  );
}

/** Pi's own refusal, said in terms of what the user can change. */
function compactionFailure(piMessage: string): string {
  if (/nothing to compact/i.test(piMessage)) {
    return (
      `Pi found nothing to compact at its leaf with its own settings (compaction.keepRecentTokens in Pi's ` +
      `settings.json), so it did not take the compaction; nothing was changed (Pi said: ${piMessage})`
    );
  }
  if (/already compacted/i.test(piMessage)) return "Pi's session already ends in a compaction; nothing was changed";
  return `Pi could not compact: ${piMessage}`;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
