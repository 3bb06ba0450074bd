import * as vscode from 'vscode';
import { HookBus } from '../engine/hooks/hookBus';
import { SessionStore } from './sessions/sessionStore';
import { SessionTreeProvider } from './tree/treeProvider';
import type { ArborNode } from './tree/nodes';
import { SummaryPanel } from './panels/summaryPanel';
import { ApiKeys } from './platform/secrets';
import { ArborServices } from './services';
import { ContextStatusBar } from './status/statusBar';
import { preloadTokenizer, tokenizerEstimator, tokenizerLoaded } from '../engine/tokens/estimators';
import { LiveWatcher } from './sessions/liveWatcher';
import { createApi, type ArborApi } from './api';
import { FileLinkOpener } from './panels/fileLinkOpener';
import { log, reportError } from './platform/logging';
import { readConfig } from './platform/settings';
import { viewFromEntry } from './panels/summaryView';
import { compactCommand, compactSession } from './commands/compact';
import { jumpCommand } from './commands/jump';
import { undoJumpCommand } from './commands/undoJump';
import { setLabelCommand } from './commands/setLabel';
import { togglePinCommand } from './commands/pin';
import { createContextPanel, showContextCommand } from './commands/showContext';
import { createEntryPanel, followEntryState, showEntryCommand } from './commands/showEntry';
import { exportBranchCommand } from './commands/exportBranch';
import { showSummaryCommand } from './commands/showSummary';
import { refreshCommand } from './commands/refresh';
import { setApiKeyCommand } from './commands/setApiKey';
import { chooseSummarizerCommand } from './commands/chooseSummarizer';
import { openRawCommand, openSessionCommand } from './commands/openSession';
import { continueInPiCommand } from './commands/continueInPi';
import { registerFileCommands } from './files/fileCommands';
import { RAW_SCHEME, ReadOnlyFileSystem } from './sessions/readOnlyFiles';
import { PanelFollower } from './panels/panelFollow';
import { configureIncompleteLineWait } from '../engine/session/incompleteLine';
import { registerTreeCommands } from './tree/treeCommands';
import { LivePiService } from './livePi/livePiService';
import { watchLivePi } from './livePi/livePiWiring';
import { loadIndex } from './sessions/loadIndex';
import { parseCommandTarget } from './tree/commandTarget';

import { CompactabilityNotes } from './tree/compactability';
import { nothingToCompactIn } from './commands/compactCheck';

export const VIEW_ID = 'arbor.sessions';

export function activate(context: vscode.ExtensionContext): ArborApi {
  const logger = log();
  context.subscriptions.push(logger);
  logger.info(`Arbor ${String(context.extension.packageJSON.version)} activating`);

  const hooks = new HookBus({
    onError: (f) => logger.error(`hook ${f.hook} failed:`, f.error instanceof Error ? (f.error.stack ?? f.error.message) : String(f.error)),
  });
  // In test mode the store's loads are counted (Arbor's tests check that commands use the held index); no counter otherwise.
  const indexLoads = context.extensionMode === vscode.ExtensionMode.Test ? new Map<string, number>() : undefined;
  const store = new SessionStore(
    context.workspaceState,
    indexLoads
      ? (file) => {
          indexLoads.set(file, (indexLoads.get(file) ?? 0) + 1);
          return loadIndex(file);
        }
      : undefined,
  );
  const tree = new SessionTreeProvider(store, context.workspaceState);
  const treeView = vscode.window.createTreeView<ArborNode>(VIEW_ID, { treeDataProvider: tree, showCollapseAll: true });
  const keys = new ApiKeys(context.secrets);

  // The panel's actions need the services, which need the panel: the actions reach them through `late`.
  const late: { arbor?: ArborServices } = {};
  const fileLinks = new FileLinkOpener();
  const panel = new SummaryPanel(context.extensionUri, {
    openFile: async (link, view) => {
      // The session's own folder counts as trusted: read it from the session file, not from the webview.
      const session = await late.arbor!.peekSession(view.file);
      return fileLinks.openLink(link, session?.index.header.cwd ?? '');
    },
    reveal: async (file, entryId) => {
      await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
      await late.arbor!.revealEntry(file, entryId, { select: true, focus: true });
    },
    compactAgain: async (file) => {
      await vscode.commands.executeCommand('arbor.compact', { file });
    },
    refreshEntry: async (file, entryId) => {
      const session = await late.arbor!.peekSession(file);
      if (!session || session.index.indexOf(entryId) < 0) return undefined;
      return viewFromEntry(session.index, entryId, session.title, readConfig().estimator);
    },
  });
  panel.rememberAuthorsIn(context.globalState);
  const livePi = new LivePiService(vscode.Uri.joinPath(context.extensionUri, 'dist', 'piBridge.js').fsPath);
  const arbor = new ArborServices(context.extensionUri, store, tree, treeView, panel, hooks, keys, livePi);
  late.arbor = arbor;
  // Each session row says whether Compact does something now, planned as Compact plans (issue 34 item 1).
  context.subscriptions.push(
    tree.useCompactability(new CompactabilityNotes((m, index, signal) => nothingToCompactIn(arbor, m, index, { signal }))),
  );
  context.subscriptions.push(store, tree, treeView, panel, arbor, livePi, registerTreeCommands(arbor), watchLivePi(arbor));

  context.subscriptions.push(
    treeView.onDidChangeSelection((e) => {
      const node = e.selection[0];
      if (node) arbor.setActive(node.file);
    }),
    treeView.onDidExpandElement((e) => arbor.setActive(e.element.file)),
  );

  const refreshContext = () => {
    void vscode.commands.executeCommand('setContext', 'arbor.listed', store.isListed);
    void vscode.commands.executeCommand('setContext', 'arbor.sessionCount', store.list().length);
  };
  context.subscriptions.push(store.onDidChange((m) => m === undefined && refreshContext()));

  const rawFiles = new ReadOnlyFileSystem();
  context.subscriptions.push(
    rawFiles,
    vscode.workspace.registerFileSystemProvider(RAW_SCHEME, rawFiles, { isReadonly: true, isCaseSensitive: true }),
  );

  const entryPanel = createEntryPanel(arbor);
  const contextPanel = createContextPanel(arbor);
  context.subscriptions.push(entryPanel, contextPanel, followEntryState(arbor, entryPanel));

  const statusBar = new ContextStatusBar(arbor, (model, auto) =>
    auto
      ? compactSession(arbor, model, { review: false, reason: 'threshold', instructions: '', skipLiveCheck: true })
      : compactCommand(arbor, { file: model.file }),
  );
  const liveWatcher = new LiveWatcher(store);
  context.subscriptions.push(statusBar, liveWatcher, new PanelFollower(arbor));

  const register = (id: string, title: string, fn: (...args: never[]) => unknown) => {
    context.subscriptions.push(
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        try {
          return await (fn as (...a: unknown[]) => unknown)(...args);
        } catch (err) {
          await reportError(title, err);
          return undefined;
        }
      }),
    );
  };
  register('arbor.refresh', 'Refresh', () => refreshCommand(arbor));
  register('arbor.openSessionFile', 'Open Session File', (uri?: vscode.Uri) => openSessionCommand(arbor, uri));
  register('arbor.openRaw', 'Open Raw Session File', (node?: unknown, line?: number) => openRawCommand(arbor, node, line));
  register('arbor.openRawSessionFile', 'Open Raw Session File', (sessionFile?: unknown, line?: number) =>
    openRawCommand(arbor, sessionFile, line),
  );
  register('arbor.compact', 'Compact', (node?: unknown, options?: object) => compactCommand(arbor, node, options));
  register('arbor.applyProposal', 'Apply', (proposalId?: string, summary?: string) => {
    const id = proposalId ?? panel.pendingProposals()[0];
    if (!id) throw new Error('there is no compaction proposal to apply');
    return panel.apply(id, summary);
  });
  register('arbor.discardProposal', 'Discard', (proposalId?: string) => {
    const id = proposalId ?? panel.pendingProposals()[0];
    return id ? panel.discard(id) : false;
  });
  register('arbor.jumpHere', 'Jump Here', (node?: unknown, options?: object) => jumpCommand(arbor, node, options));
  register('arbor.undoJump', 'Undo Jump', (node?: unknown) => undoJumpCommand(arbor, node));
  register('arbor.setLabel', 'Set Label', (node?: unknown, label?: string) => setLabelCommand(arbor, node, label));
  register('arbor.togglePin', 'Pin / Unpin', (node?: unknown) => togglePinCommand(arbor, node));
  register('arbor.showContext', 'Show Context', (node?: unknown) => showContextCommand(arbor, contextPanel, node));
  register('arbor.showEntry', 'Show Entry', (file?: unknown, entryId?: unknown, options?: { preserveFocus?: boolean }) =>
    showEntryCommand(arbor, entryPanel, file, entryId, options),
  );
  register('arbor.exportBranch', 'Export Branch', (node?: unknown, options?: object) => exportBranchCommand(arbor, node, options));
  register('arbor.showSummary', 'Show Summary', (node?: unknown) => showSummaryCommand(arbor, node));
  register('arbor.chooseSummarizerModel', 'Choose Summarizer Model', (choice?: string) => chooseSummarizerCommand(arbor, choice));
  register('arbor.setApiKey', 'Set API Key', (provider?: string, key?: string) => setApiKeyCommand(arbor, provider, key));
  register('arbor.continueInPi', 'Continue in Pi', (node?: unknown) => continueInPiCommand(arbor, node));
  register('arbor.installPiBridge', 'Install Pi Bridge', () => livePi.install());
  registerFileCommands(context, arbor, register);
  register('arbor.showMore', 'Show More Entries', (node?: unknown) => {
    const target = parseCommandTarget(node);
    if (target.kind === 'row' && target.node.type === 'more') tree.showMore(target.node);
  });
  register('arbor.revealLeaf', 'Reveal Current Leaf', async (node?: unknown) => {
    const model = await arbor.resolveSession(node);
    if (model) await arbor.revealLeaf(model.file);
  });

  // With the tokenizer estimator: load it in the background soon after start-up (and when the setting changes to it).
  let preload = preloadTokenizerSoon(1500);
  context.subscriptions.push({ dispose: () => preload.dispose() });

  configureIncompleteLineWait({ quietMs: readConfig().incompleteLineQuietMs });
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('arbor.incompleteLineQuietSeconds'))
        configureIncompleteLineWait({ quietMs: readConfig().incompleteLineQuietMs });
      if (e.affectsConfiguration('arbor.sessionDir') || e.affectsConfiguration('arbor.piAgentDir')) void store.refreshList();
      else if (e.affectsConfiguration('arbor.tokenEstimator')) {
        preload.dispose();
        preload = preloadTokenizerSoon(50);
        tree.redraw();
      }
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => void store.refreshList()),
  );

  void store.refreshList().then(refreshContext, (err) => reportError('Listing sessions', err));
  if (context.extensionMode === vscode.ExtensionMode.Test) {
    // Arbor's own integration tests observe the internals through a command registered only in test mode (not in the API).
    void import('./testHooks').then((m) =>
      m.registerTestHooks(context, {
        services: arbor,
        statusBar,
        liveWatcher,
        fileLinks,
        tokenizerLoaded,
        entryPanel,
        indexLoads: (file) => indexLoads?.get(file) ?? 0,
      }),
    );
  }
  return createApi(arbor, hooks, () => refreshCommand(arbor));
}

/**
 * With the tokenizer estimator (the default), load its table a little after
 * start-up, while nobody waits, rather than on the first expand of a session
 * (a few milliseconds, once).
 */
function preloadTokenizerSoon(delayMs: number): vscode.Disposable {
  const timer = setTimeout(() => {
    if (readConfig().estimator !== tokenizerEstimator.name) return;
    const t0 = performance.now();
    if (preloadTokenizer()) log().info(`tokenizer loaded in ${(performance.now() - t0).toFixed(0)} ms`);
  }, delayMs);
  return new vscode.Disposable(() => clearTimeout(timer));
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
