import * as vscode from 'vscode';
import type { ArborServices } from '../services';
import { reportError } from '../platform/logging';
import { SummarizedDecorations } from './treeItems';
import { searchCommand } from './searchCommand';
import type { ArborNode } from './nodes';
import { TREE_FILTERS, filterTitle, isTreeFilter, type TreeFilter } from '../../engine/tree/rowFilter';
import { parseCommandTarget, targetFile, targetNode } from './commandTarget';
import { SESSION_ORDER_TEXT } from '../../engine/tree/sessionOrder';
import { shownTitle } from '../../engine/tree/sessionTitle';
import * as path from 'node:path';

/** Rows below a session's row that are in view at the sidebar's default height: a leaf further down is revealed on expand. */
const LEAF_ROWS_IN_VIEW = 10;

/** The words above the Sessions view's rows: their order, and the filter when it hides entries. */
export function viewHeaderText(filter: TreeFilter): string {
  const order = `Sessions: ${SESSION_ORDER_TEXT}`;
  return filter === 'default' ? order : `${order} · Filter: ${filterTitle(filter)}`;
}

/** The command that sets a filter, e.g. arbor.filter.userOnly. */
export function filterCommand(filter: TreeFilter): string {
  return `arbor.filter.${filter}`;
}

/**
 * The Sessions view's own commands (filters, navigation inside long lines,
 * search) and what follows the filter: a context key for the menus and the
 * view's description.
 */
export function registerTreeCommands(arbor: ArborServices): vscode.Disposable {
  const { tree, treeView } = arbor;
  const subs: vscode.Disposable[] = [];
  const register = (id: string, title: string, fn: (...args: unknown[]) => unknown) =>
    subs.push(
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        try {
          return await fn(...args);
        } catch (err) {
          await reportError(title, err);
          return undefined;
        }
      }),
    );

  const showFilter = (filter: TreeFilter) => {
    void vscode.commands.executeCommand('setContext', 'arbor.treeFilter', filter);
    treeView.description = filter === 'default' ? undefined : `Filter: ${filterTitle(filter)}`;
    showHeader();
  };
  // The order and the filter, in words above the rows: the view's description is not shown while the view is alone in
  // its container, and the filled filter icon does not name the filter. None while there are no sessions (VS Code then
  // shows the view's welcome, which a message would hide).
  const showHeader = () => {
    treeView.message = arbor.store.list().length ? viewHeaderText(tree.filter) : undefined;
  };
  showFilter(tree.filter);
  subs.push(arbor.store.onDidChange((m) => m === undefined && showHeader()));
  subs.push(vscode.window.registerFileDecorationProvider(new SummarizedDecorations()));
  subs.push(tree.onDidChangeFilter(showFilter));

  for (const f of TREE_FILTERS) register(filterCommand(f.id), `Filter: ${f.title}`, () => tree.setFilter(f.id));
  const chooseFilter = async (filter?: unknown) => {
    if (isTreeFilter(filter)) return tree.setFilter(filter);
    const picked = await vscode.window.showQuickPick(
      TREE_FILTERS.map((f) => ({ label: `${f.id === tree.filter ? '$(check)' : '$(blank)'} ${f.title}`, detail: f.detail, filter: f.id })),
      { title: 'Arbor: which entries the Sessions view shows', placeHolder: `Now: ${filterTitle(tree.filter)}` },
    );
    if (picked) await tree.setFilter(picked.filter);
    return picked?.filter;
  };
  // Two ids for one action: the view title shows a filled icon while a filter other than Default is on.
  register('arbor.chooseFilter', 'Filter', chooseFilter);
  register('arbor.chooseFilterActive', 'Filter', chooseFilter);
  register('arbor.search', 'Search', (target?: unknown, query?: unknown) =>
    searchCommand(arbor, 'session', target, typeof query === 'string' ? query : undefined),
  );
  register('arbor.searchAll', 'Search', (query?: unknown) =>
    searchCommand(arbor, 'all', undefined, typeof query === 'string' ? query : undefined),
  );
  register('arbor.goToStart', 'Go to Start', async (target?: unknown) => {
    const model = await arbor.resolveSession(target);
    if (!model) return undefined;
    const first = await tree.goToStart(model.file);
    if (!first) return undefined;
    await vscode.commands.executeCommand('arbor.sessions.focus');
    await arbor.revealRow(() => first, { select: true, focus: true });
    return first;
  });
  register('arbor.removeSession', 'Remove from List', async (target?: unknown) => {
    const file = targetFile(parseCommandTarget(target ?? treeView.selection[0]));
    const model = file ? arbor.store.get(path.resolve(file)) : undefined;
    if (!model) return false;
    if (model.source !== 'opened') {
      void vscode.window.showInformationMessage(
        `Arbor: "${shownTitle(model.title, model.file)}" is in this workspace's sessions folder: it stays listed ` +
          '(Remove from List takes off files added with Open Session File).',
      );
      return false;
    }
    await arbor.store.removeOpened(model.file);
    return true;
  });
  register('arbor.showSessionDirs', 'Where Arbor Looks', async () => {
    const dirs = arbor.store.sessionDirs().map((d) => d.dir);
    const text = dirs.length
      ? `Arbor looks for this workspace's Pi sessions in: ${dirs.join(', ')}`
      : 'Arbor looks for Pi sessions in the folders of the open workspace: no folder is open.';
    const choice = await vscode.window.showInformationMessage(text, 'Open Settings');
    if (choice) await vscode.commands.executeCommand('workbench.action.openSettings', 'arbor.sessionDir');
    return dirs;
  });
  register('arbor.showWholeLine', 'Show All Entries', (node?: unknown) => {
    const n = targetNode(parseCommandTarget(node ?? treeView.selection[0]));
    return n ? tree.showWholeLine(n) : false;
  });

  // A large session opens at its newest page: show the current leaf there (not the top of the page).
  subs.push(
    treeView.onDidExpandElement((e) => {
      const node = e.element;
      if (node.type === 'session') {
        // Shown from a preview first: reveal once the full index's rows are in the view (not while they replace the preview's).
        // Not if the rows never came, or if the user (or a command) selected another row while a large
        // session was being indexed: the view does not jump under them later. Selecting the session's
        // own row (the click that expanded it) is not moving on.
        const selected = treeView.selection[0];
        const expandedAt = performance.now();
        const movedOn = () => {
          const current = treeView.selection[0];
          return current !== undefined && current !== selected && !(current.type === 'session' && current.file === node.file);
        };
        void tree.fullRowsShown(node.file, { since: expandedAt }).then((shown) => {
          // Checked again just before revealing: loading and retries can take seconds.
          if (!shown || movedOn()) return;
          if (tree.hiddenAtStart(node.file) > 0) void arbor.revealLeaf(node.file, { unless: movedOn });
          // A session shown whole whose leaf is rows down: scrolled to it (the user opens a session to go on from its
          // leaf), selecting nothing and leaving any reveal in progress alone.
          else if (tree.rowsAboveLeaf(node.file) > LEAF_ROWS_IN_VIEW) {
            const leaf = tree.leafNode(node.file);
            if (leaf) void Promise.resolve(treeView.reveal(leaf, { select: false, focus: false })).catch(() => undefined);
          }
        });
      } else if (node.type === 'branch') {
        // An expanded branch is brought into view (its first rows, below it, would be off-screen at the bottom).
        setTimeout(() => void revealFirstChild(arbor, node), 50);
      }
    }),
  );
  return vscode.Disposable.from(...subs);
}

async function revealFirstChild(arbor: ArborServices, branch: ArborNode): Promise<void> {
  try {
    const kids = await arbor.tree.getChildren(branch);
    const last = kids[Math.min(kids.length - 1, 9)];
    if (last) await arbor.treeView.reveal(last, { select: false, focus: false });
  } catch {
    // best effort: the tree may have changed meanwhile
  }
}
