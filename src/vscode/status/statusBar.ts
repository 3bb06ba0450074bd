import * as vscode from 'vscode';
import type { ArborServices } from '../services';
import { contextUse, type ContextUse } from './contextInfo';
import { readConfig } from '../platform/settings';
import { log } from '../platform/logging';
import type { SessionModel } from '../sessions/sessionStore';
import { showWarning } from '../platform/notify';
import { contextFigureShort, contextFigureSources, contextFigureStatus } from '../../engine/context/contextNumbers';
import { withPiFigure } from './piContextFigure';
import type { PiState } from '../../engine/livePi/protocol';

/** Fraction of the threshold from which the item turns to the warning colour. */
const WARN_AT = 0.85;

/**
 * The status bar item: the active session's context use (tokens / window,
 * percent), coloured as it nears the auto-compaction threshold
 * (contextWindow - reserveTokens, from Pi's settings). When a session
 * crosses the threshold (and compaction.enabled), Arbor offers to compact;
 * with arbor.autoCompact on, it compacts by itself once the file has been
 * idle for arbor.autoCompactIdleSeconds.
 */
export class ContextStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly subs: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Sessions that changed, checked against the threshold a little later (out of the path that shows new entries). */
  private readonly pendingChecks = new Map<string, SessionModel>();
  private checkTimer: NodeJS.Timeout | undefined;
  private readonly over = new Map<string, boolean>();
  private readonly idleTimers = new Map<string, NodeJS.Timeout>();
  private readonly compacting = new Set<string>();
  private last: ContextUse | undefined;
  private background: string | undefined;

  constructor(
    private readonly arbor: ArborServices,
    private readonly compact: (model: SessionModel, auto: boolean) => Promise<unknown>,
  ) {
    this.item = vscode.window.createStatusBarItem('arbor.context', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'Arbor Context';
    this.subs.push(arbor.onDidChangeActive(() => this.schedule()));
    this.subs.push(
      arbor.store.onDidChange((model) => {
        if (model) this.scheduleCheck(model);
        this.schedule();
      }),
    );
    this.subs.push(vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('arbor') && this.schedule()));
    this.subs.push(arbor.livePi.onDidChange(() => this.schedule()));
    this.schedule();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.checkTimer) clearTimeout(this.checkTimer);
    for (const t of this.idleTimers.values()) clearTimeout(t);
    this.item.dispose();
    for (const s of this.subs) s.dispose();
  }

  /** What the item shows now (for tests and the API). */
  get current(): { text: string; tooltip: string; use: ContextUse | undefined; background: string | undefined } {
    const tip = this.item.tooltip;
    return {
      text: this.item.text,
      tooltip: typeof tip === 'string' ? tip : (tip?.value ?? ''),
      use: this.last,
      background: this.background,
    };
  }

  /** At most one round of threshold checks per 100 ms, never in the same tick as the change (the tree goes first). */
  private scheduleCheck(model: SessionModel): void {
    this.pendingChecks.set(model.file, model);
    this.checkTimer ??= setTimeout(() => {
      this.checkTimer = undefined;
      const models = [...this.pendingChecks.values()];
      this.pendingChecks.clear();
      for (const m of models) void this.checkThreshold(m);
    }, 100);
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.update(), 150);
  }

  /** Recomputes now. */
  async update(): Promise<void> {
    const file = this.arbor.activeFile;
    const model = file ? this.arbor.store.get(file) : undefined;
    if (!model) {
      this.last = undefined;
      this.item.hide();
      return;
    }
    try {
      const index = await this.arbor.store.ensureLoaded(model);
      // A running Pi with the bridge: its leaf (from memory) and, when it knows it, its own figure.
      const pi = this.arbor.livePi.stateOf(model.file);
      const piLeaf = pi?.leafId ? index.indexOf(pi.leafId) : -1;
      const own = await contextUse(index, piLeaf >= 0 ? piLeaf : index.leafIndex);
      const use = withPiFigure(own, pi) ?? own;
      this.last = use;
      this.render(model, use, pi);
    } catch (err) {
      this.item.text = '$(warning) Arbor';
      this.item.tooltip = `Arbor: cannot read ${model.file}: ${err instanceof Error ? err.message : String(err)}`;
      this.item.backgroundColor = this.background = undefined;
      this.item.show();
    }
  }

  private render(model: SessionModel, use: ContextUse, pi?: PiState): void {
    const pct = use.figure.percent;
    this.item.text = `$(layers) ${contextFigureStatus(use.figure)}`;
    const warn = use.settings.enabled && use.tokens.tokens >= use.threshold * WARN_AT;
    this.background = use.overThreshold ? 'statusBarItem.errorBackground' : warn ? 'statusBarItem.warningBackground' : undefined;
    this.item.backgroundColor = this.background ? new vscode.ThemeColor(this.background) : undefined;
    const tip = new vscode.MarkdownString(undefined, true);
    tip.appendMarkdown('**Arbor: context use**\n\n');
    tip.appendText(`${model.title ?? model.file}\n\n`);
    const sources =
      pi && 'fromPi' in use
        ? `reported by the running Pi (pid ${pi.pid}): its last usage after the latest compaction plus its estimate of what follows`
        : contextFigureSources(use.figure);
    tip.appendText(`${contextFigureShort(use.figure)}: ${sources}`);
    tip.appendMarkdown('\n\n');
    tip.appendText(
      `Compaction threshold ${use.threshold.toLocaleString('en-US')} (window − reserveTokens ` +
        `${use.settings.reserveTokens.toLocaleString('en-US')})${use.settings.enabled ? '' : ' · compaction disabled in Pi settings'}`,
    );
    if (use.model) tip.appendText(`\n\nModel: ${use.model.provider}/${use.model.modelId}`);
    if (pi && !('fromPi' in use))
      tip.appendText(
        `\n\nAt the leaf of the running Pi (pid ${pi.pid}, ${pi.idle ? 'idle' : 'busy'}): Pi does not know its context use until its next answer.`,
      );
    tip.appendMarkdown('\n\nClick to show the context.');
    this.item.tooltip = tip;
    this.item.accessibilityInformation = { label: `Arbor context ${pct} percent of the window`, role: 'button' };
    this.item.command = { command: 'arbor.showContext', title: 'Show Context', arguments: [{ file: model.file }] };
    this.item.show();
  }

  /** Offers (or, with autoCompact, schedules) a compaction when a session crosses the threshold. */
  private async checkThreshold(model: SessionModel): Promise<void> {
    if (!model.index || this.compacting.has(model.file)) return;
    let use: ContextUse;
    try {
      use = await contextUse(model.index);
    } catch {
      return;
    }
    const was = this.over.get(model.file) ?? false;
    this.over.set(model.file, use.overThreshold);
    const config = readConfig();
    if (!use.overThreshold) {
      this.cancelIdle(model.file);
      return;
    }
    if (config.autoCompact) {
      this.scheduleIdleCompaction(model, config.autoCompactIdleSeconds);
      return;
    }
    if (was) return;
    const pct = use.figure.percent;
    const choice = await showWarning(
      `Arbor: "${model.title ?? model.file}" uses ${pct}% of its context window (over the compaction threshold of ` +
        `${use.threshold.toLocaleString('en-US')} tokens).`,
      'Compact…',
      'Not Now',
    );
    if (choice === 'Compact…') await this.compact(model, false);
  }

  private cancelIdle(file: string): void {
    const t = this.idleTimers.get(file);
    if (t) clearTimeout(t);
    this.idleTimers.delete(file);
  }

  /** Compacts once nothing has been appended for `seconds` (every new append restarts the wait). */
  private scheduleIdleCompaction(model: SessionModel, seconds: number): void {
    this.cancelIdle(model.file);
    this.idleTimers.set(
      model.file,
      setTimeout(() => {
        this.idleTimers.delete(model.file);
        if (this.compacting.has(model.file)) return;
        this.compacting.add(model.file);
        log().info(`auto-compact ${model.file}: idle for ${seconds} s over the threshold`);
        void this.compact(model, true).finally(() => {
          this.compacting.delete(model.file);
          this.over.delete(model.file);
        });
      }, seconds * 1000),
    );
  }
}
