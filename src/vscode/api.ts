import type * as vscode from 'vscode';
import type { HookBus } from '../engine/hooks/hookBus';
import type { HookHandler, HookName } from '../engine/hooks/events';
import type { SessionIndex } from '../engine/session/sessionIndex';
import type { SummaryView } from '../webview/protocol';
import type { ArborServices } from './services';

export type { HookEvents, HookHandler, HookName } from '../engine/hooks/events';

/**
 * What Arbor's activate() returns: `vscode.extensions.getExtension('arbor.arbor').exports`.
 *
 * Other extensions subscribe to the engine's hooks (spec 8): a
 * `session_before_compact` handler may cancel a compaction or supply its own
 * summary; `session_before_tree` may cancel a jump, supply the branch summary
 * or change the instructions and label; `session_compact`,
 * `session_compact_failed` and `session_tree` report what happened.
 */
export interface ArborApi {
  readonly apiVersion: 1;
  /** Registers a hook handler; dispose the result to remove it. */
  onHook<K extends HookName>(hook: K, handler: HookHandler<K>): vscode.Disposable;
  /** The sessions shown in the Sessions view. */
  listSessions(): { file: string; title: string | undefined; source: 'workspace' | 'opened' }[];
  /** The loaded (live-updated) index of a session; opens it if it is not listed. */
  getSession(file: string): Promise<SessionIndex>;
  /** Re-lists the session folders and reloads loaded sessions. */
  refresh(): Promise<void>;
  /** Fires when the summary panel shows something. */
  readonly onDidShowSummary: vscode.Event<SummaryView>;
}

export function createApi(services: ArborServices, hooks: HookBus, refresh: () => Promise<unknown>): ArborApi {
  return {
    apiVersion: 1,
    onHook(hook, handler) {
      return hooks.on(hook, handler);
    },
    listSessions() {
      return services.store.list().map((m) => ({ file: m.file, title: m.title, source: m.source }));
    },
    async getSession(file) {
      const model = services.store.get(file) ?? (await services.store.addOpened(file));
      return services.store.ensureLoaded(model);
    },
    async refresh() {
      await refresh();
    },
    onDidShowSummary: services.panel.onDidShow,
  };
}
