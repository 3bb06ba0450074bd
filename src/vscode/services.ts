import * as vscode from 'vscode';
import * as path from 'node:path';
import type { HookBus } from '../engine/hooks/hookBus';
import type { Summarizer } from '../engine/summarize/summarizer';
import type { SessionModel, SessionStore } from './sessions/sessionStore';
import { baseTitle, shownTitle, titleFactsWalk, titleLine } from '../engine/tree/sessionTitle';
import { runEntryWalk } from '../engine/session/entryWalkLoads';
import { loadIndex } from './sessions/loadIndex';
import type { SessionIndex } from '../engine/session/sessionIndex';
import type { SessionTreeProvider } from './tree/treeProvider';
import { nodeKey, type ArborNode } from './tree/nodes';
import type { SummaryPanel } from './panels/summaryPanel';
import type { ApiKeys } from './platform/secrets';
import { createConfiguredSummarizer } from './platform/summarizers';
import { engineEnv, readConfig } from './platform/settings';
import { relativeTime } from '../engine/tree/sessionOrder';
import { lastActivityOf, sessionsByActivity } from './tree/treeItems';
import { log } from './platform/logging';
import { loadSessionPiSettings } from './status/contextInfo';
import type { PiSettings } from '../engine/settings/piSettings';
import type { EstimatorName } from '../engine/tokens/estimators';
import { showInfo, askModal } from './platform/notify';
import type { LivePiService } from './livePi/livePiService';
import type { WriteRoute } from '../engine/livePi/writeRoute';
import { parseCommandTarget, targetFile } from './tree/commandTarget';

/** What commands share: the store, the tree, the panel, the hooks, keys. */
export class ArborServices {
  private active: string | undefined;
  private readonly activeChanged = new vscode.EventEmitter<string | undefined>();
  /** The session the status bar follows changed. */
  readonly onDidChangeActive = this.activeChanged.event;

  constructor(
    readonly extensionUri: vscode.Uri,
    readonly store: SessionStore,
    readonly tree: SessionTreeProvider,
    readonly treeView: vscode.TreeView<ArborNode>,
    readonly panel: SummaryPanel,
    readonly hooks: HookBus,
    readonly keys: ApiKeys,
    readonly livePi: LivePiService,
  ) {}

  dispose(): void {
    this.activeChanged.dispose();
  }

  /** The session the user last worked with (selection in the tree), else the newest listed one. */
  get activeFile(): string | undefined {
    if (this.active && this.store.get(this.active)) return this.active;
    return this.store.list()[0]?.file;
  }

  setActive(file: string | undefined): void {
    if (file === this.active) return;
    this.active = file;
    this.activeChanged.fire(file);
  }

  /** The configured summarizer; `route` is where the write goes (Pi's own model needs the Pi that holds the session). */
  summarizer(route?: WriteRoute): Promise<Summarizer> {
    return createConfiguredSummarizer(this.keys, undefined, route);
  }

  /** Options every engine operation on `model` gets from the settings (Pi's settings read now: invalid ones throw). */
  async engineOptions(
    model: SessionModel,
  ): Promise<{ env: NodeJS.ProcessEnv; estimator: EstimatorName; includeThinking: boolean; hooks: HookBus; piSettings: PiSettings }> {
    const config = readConfig();
    const piSettings = await loadSessionPiSettings(model.cwd || model.index?.header.cwd || '', config);
    return { env: engineEnv(config), estimator: config.estimator, includeThinking: config.includeThinking, hooks: this.hooks, piSettings };
  }

  /** The session a command acts on: the node's, a file URI's, or the active one (else ask). It becomes the active one (status bar, panel). */
  async resolveSession(target?: unknown): Promise<SessionModel | undefined> {
    const file = targetFile(parseCommandTarget(target));
    if (file) {
      const abs = path.resolve(file);
      let model = this.store.get(abs);
      if (!model) model = await this.store.addOpened(abs);
      await this.store.ensureLoaded(model);
      this.setActive(model.file);
      return model;
    }
    if (!this.store.isListed) await this.store.refreshList();
    const sessions = this.store.list();
    if (sessions.length === 0) {
      void showInfo('Arbor: no Pi sessions found for this workspace. Use "Arbor: Open Session File..." to open one.');
      return undefined;
    }
    let model = this.active ? this.store.get(this.active) : undefined;
    if (!model && sessions.length === 1) model = sessions[0];
    if (!model) {
      const titles = this.store.titles();
      const picked = await vscode.window.showQuickPick(
        sessionsByActivity(sessions).map((s) => ({
          label: titleLine(titles.get(s.file) ?? { title: s.title, differs: undefined }, s.file),
          description: relativeTime(lastActivityOf(s)),
          detail: s.file,
          model: s,
          picked: s.file === this.activeFile,
        })),
        { title: 'Arbor: choose a session', placeHolder: 'Session', matchOnDetail: true },
      );
      if (!picked) return undefined;
      model = picked.model;
    }
    await this.store.ensureLoaded(model);
    this.setActive(model.file);
    return model;
  }

  /**
   * The index of a session for display (a context document, a restored panel)
   * without adding it to the list: the listed, live-updated index if it is
   * listed, else a fresh read of the file.
   */
  async peekSession(file: string): Promise<{ index: SessionIndex; title: string } | undefined> {
    const model = this.store.get(path.resolve(file));
    if (model) {
      const index = await this.store.ensureLoaded(model);
      return { index, title: shownTitle(model.title, model.file) };
    }
    try {
      const index = await loadIndex(file);
      return { index, title: shownTitle(baseTitle(await runEntryWalk(index, titleFactsWalk(index))), file) };
    } catch {
      return undefined;
    }
  }

  /**
   * Before appending to a file another process wrote to within the last few
   * seconds, ask (Pi may be running on it).
   */
  async confirmAppend(model: SessionModel, what: string): Promise<boolean> {
    await this.store.readTail(model.file);
    if (!this.store.isLive(model)) return true;
    const ago = Math.max(1, Math.round((Date.now() - (model.lastExternalWriteAt ?? Date.now())) / 1000));
    const choice = await askModal(
      `Another process (Pi?) wrote to this session ${ago} s ago. ${what} appends to the same file; if Pi is still ` +
        `running there, its next entries and Arbor's will both be in the tree. Continue?`,
      undefined,
      'Append Anyway',
    );
    return choice === 'Append Anyway';
  }

  /**
   * How a write (`what`: "Compacting", "Jumping", "Labelling") reaches `model`: through the live Pi that
   * holds it, else the file (asking first when another process wrote to it a moment ago, or when a Pi
   * without the bridge runs in its folder). Undefined: the user chose not to write.
   */
  async writeRoute(
    model: SessionModel,
    what: string,
    options: { skipLiveCheck?: boolean; signal?: AbortSignal; force?: boolean } = {},
  ): Promise<WriteRoute | undefined> {
    const route = await this.livePi.writeRoute(model, what, { signal: options.signal, force: options.force });
    if (!route) return undefined;
    // Pi wrote what it did (a turn Arbor waited for) before it answered: the plan is made at its leaf, so read them first.
    if (route.via === 'pi') await this.store.readTail(model.file);
    if (route.via === 'file' && !route.forced && !options.skipLiveCheck && !(await this.confirmAppend(model, what))) return undefined;
    return route;
  }

  /** Where a live Pi with the bridge has the session's leaf (undefined: no such Pi; plan at the file's leaf). */
  piLeaf(route: WriteRoute | undefined): string | null | undefined {
    return route?.via === 'pi' ? route.state.leafId : undefined;
  }

  /** Shows an entry in the tree (expanding what leads to it). Best effort: never throws. */
  async revealEntry(file: string, entryId: string, options: { select?: boolean; focus?: boolean } = {}): Promise<boolean> {
    const model = this.store.get(file);
    if (!model) return false;
    await this.store.ensureLoaded(model);
    return this.revealRow(() => this.tree.nodeForEntry(file, entryId), options);
  }

  /** Reveals and selects the session's current leaf; `unless` (checked before each try) cancels a reveal nobody wants any more. */
  async revealLeaf(file: string, options: { unless?: () => boolean } = {}): Promise<boolean> {
    const model = this.store.get(file);
    if (!model) return false;
    await this.store.ensureLoaded(model);
    return this.revealRow(() => this.tree.leafNode(file), { unless: options.unless });
  }

  /**
   * VS Code refreshes a tree a little after onDidChangeTreeData; revealing a
   * new node before that fails ("Cannot resolve tree item"), and VS Code says
   * nothing when it is done. So: try again until the reveal succeeds, the node
   * is gone, a newer reveal supersedes this one, or REVEAL_GIVE_UP_MS passed
   * (a safety net sized for a loaded machine, not the expected wait).
   */
  private revealGeneration = 0;

  /** Reveals a row of the Sessions view (see above); `node` is asked again before each try. Best effort: never throws. */
  /** The row the newest selecting reveal asked VS Code to select (see revealRow's moved-on check). */
  private lastRevealed: { key: string; generation: number } | undefined;

  async revealRow(
    node: () => ArborNode | undefined,
    options: { select?: boolean; focus?: boolean; expand?: boolean; unless?: () => boolean },
  ): Promise<boolean> {
    // The newest reveal wins: an older one still retrying (a Compact's, seconds ago) gives up rather than take the selection back.
    const generation = ++this.revealGeneration;
    // The user (or a command) selected another row meanwhile: the view is theirs, a retry would pull it back.
    // Compared by key: VS Code hands out the row's current object, which a refresh may have replaced.
    const before = this.treeView.selection[0] && nodeKey(this.treeView.selection[0]);
    const movedOn = () => {
      const current = this.treeView.selection[0] && nodeKey(this.treeView.selection[0]);
      const target = node();
      // An older reveal's row, selected late (VS Code resolved it after this one began), is not the user's choice.
      const olderReveal = this.lastRevealed !== undefined && this.lastRevealed.generation < generation && this.lastRevealed.key === current;
      return current !== undefined && current !== before && !olderReveal && (!target || current !== nodeKey(target));
    };
    const superseded = () => generation !== this.revealGeneration || options.unless?.() === true || movedOn();
    let lastError: unknown;
    const started = Date.now();
    for (let attempt = 0; attempt === 0 || Date.now() - started < REVEAL_GIVE_UP_MS; attempt++) {
      if (superseded()) return false;
      const n = node();
      if (!n) return false;
      // An entry above the page a long line shows: widen the page first.
      if (this.tree.ensureShown(n)) await new Promise((r) => setTimeout(r, 50));
      // Not while VS Code waits for rows (it would select nothing): each answer comes after a read of the file.
      await this.tree.rowsSettled(Math.max(0, started + REVEAL_GIVE_UP_MS - Date.now()));
      if (superseded()) return false;
      const select = options.select ?? true;
      // A selection that arrived after the previous try's check.
      if (attempt > 0 && select && this.isSelected(n)) return true;
      try {
        if (select) this.lastRevealed = { key: nodeKey(n), generation };
        await this.treeView.reveal(n, { select, focus: options.focus ?? false, expand: options.expand ?? false });
        // VS Code logs, and does not throw, when a parent of the node cannot be resolved (its rows were being refreshed):
        // the reveal then resolves having done nothing. A selected row is the proof it happened.
        if (select && !this.isSelected(n)) throw new Error(`${nodeKey(n)} not selected after its reveal`);
        return true;
      } catch (err) {
        lastError = err;
        await new Promise((r) => setTimeout(r, Math.min(100 * (attempt + 1), 1000)));
      }
    }
    log().debug(`reveal failed: ${String(lastError)}`);
    return false;
  }

  private isSelected(node: ArborNode): boolean {
    const key = nodeKey(node);
    return this.treeView.selection.some((s) => nodeKey(s) === key);
  }
}

/** How long a reveal keeps trying while VS Code has not yet refreshed the tree (ms). */
const REVEAL_GIVE_UP_MS = 60_000;

/** Runs `task` under a cancellable notification; cancelling aborts the signal handed down to the engine and the provider call. */
export function withCancellableProgress<T>(
  title: string,
  task: (signal: AbortSignal, report: (message: string) => void) => Promise<T>,
): Promise<T> {
  return Promise.resolve(
    vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
      const controller = new AbortController();
      const sub = token.onCancellationRequested(() => controller.abort());
      try {
        return await task(controller.signal, (message) => progress.report({ message }));
      } finally {
        sub.dispose();
      }
    }),
  );
}
