import * as vscode from 'vscode';
import type { ArborServices } from '../services';
import { showWarning } from '../platform/notify';
import { log } from '../platform/logging';

/**
 * Connects the live Pi state to what the user sees:
 * - the tree's active path and leaf marker follow Pi's leaf from memory (a
 *   jump inside Pi without a summary writes nothing to the file), and only
 *   while no entry arrived since Pi said where its leaf is;
 * - a session Pi appended to is asked about again at once (leaf, busy/idle);
 * - when Pi (running without the bridge) appends under its own leaf after
 *   Arbor wrote to the file, the user is told at once, with the fix.
 */
export function watchLivePi(arbor: ArborServices): vscode.Disposable {
  const { store, livePi } = arbor;
  /** The entry count of each session when its Pi state arrived: a later entry makes that leaf stale until the next state. */
  const countAtState = new Map<string, number>();

  store.setPiSources(
    (file) => {
      const state = livePi.stateOf(file);
      const model = store.get(file);
      if (!state || !model?.index) return undefined;
      if (countAtState.get(file) !== model.index.entryCount) return undefined;
      return state.leafId;
    },
    (file) => livePi.stateOf(file),
  );

  const subs: vscode.Disposable[] = [];
  subs.push(
    livePi.onDidChange((files) => {
      for (const file of files) {
        const model = store.get(file);
        if (model?.index) countAtState.set(file, model.index.entryCount);
        else countAtState.delete(file);
        store.piLeafChanged(file);
      }
    }),
    store.onDidChange((model) => {
      if (model && livePi.stateOf(model.file) && countAtState.get(model.file) !== model.index?.entryCount) void livePi.refresh();
    }),
    store.onDidDiverge(async ({ model, ownEntryId, piEntryId }) => {
      log().warn(`${model.file}: Pi continued from its own leaf (entry ${piEntryId}); Arbor's entry ${ownEntryId} is on a side branch`);
      const choice = await showWarning(
        `Arbor: Pi kept going from its own leaf in "${model.title ?? model.file}": what Arbor wrote (entry ` +
          `${ownEntryId}) is now on a side branch Pi does not see. ` +
          "Pi is running without Arbor's bridge; install it and type /reload in Pi so Arbor's compactions and jumps go through Pi.",
        'Install Pi Bridge',
        'Show in Tree',
      );
      if (choice === 'Install Pi Bridge') await livePi.install();
      else if (choice === 'Show in Tree') await arbor.revealEntry(model.file, ownEntryId, { select: true, focus: true });
    }),
  );
  return vscode.Disposable.from(...subs);
}
