import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { liveBridges } from '../../engine/livePi/findLivePi';
import { bridgeFolder } from '../../engine/livePi/registry';
import { PiRunningError, resolveWriteRoute, type WriteRoute } from '../../engine/livePi/writeRoute';
import { installBridge } from '../../engine/livePi/install';
import { piAgentDir } from '../../engine/session/piAgentDir';
import { MAX_IDLE_WAIT_MS, type PiState } from '../../engine/livePi/protocol';
import type { SessionModel } from '../sessions/sessionStore';
import { engineEnv, readConfig } from '../platform/settings';
import { log } from '../platform/logging';
import { askModal, showInfo, showWarning } from '../platform/notify';

/** How often the state of live bridges is asked while any is live (idle/busy, leaf, context use). */
const POLL_MS = 2000;

/**
 * Which sessions a running Pi with Arbor's bridge holds, and their state
 * (Pi's leaf from memory, idle or busy, its context use), kept current from
 * the bridge registry (watched) and a light poll while any Pi is live. Also
 * where every write command asks how to reach a session (writeRoute).
 */
export class LivePiService implements vscode.Disposable {
  private states = new Map<string, PiState>();
  private readonly changed = new vscode.EventEmitter<string[]>();
  /** Fires with the session files whose live state changed. */
  readonly onDidChange = this.changed.event;
  private timer: NodeJS.Timeout | undefined;
  private watcher: fs.FSWatcher | undefined;
  private watchedDir: string | undefined;
  private refreshing: Promise<void> | undefined;
  private again = false;
  private disposed = false;

  constructor(private readonly bundlePath: string) {
    void this.refresh();
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.watcher?.close();
    this.changed.dispose();
  }

  agentDir(): string {
    return piAgentDir(engineEnv(readConfig()));
  }

  /** The live Pi state of a session, when a Pi with the bridge holds it. */
  stateOf(file: string): PiState | undefined {
    return this.states.get(path.resolve(file));
  }

  /** Re-reads the registry and asks every live bridge for its state (coalesced). */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.again = false;
        await this.refreshOnce();
      } while (this.again && !this.disposed);
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async refreshOnce(): Promise<void> {
    const dir = this.agentDir();
    this.watch(bridgeFolder(dir));
    let bridges: Awaited<ReturnType<typeof liveBridges>> = [];
    try {
      bridges = await liveBridges(dir, { timeoutMs: 2000 });
    } catch (err) {
      log().debug(`live Pi: ${String(err)}`);
    }
    const next = new Map<string, PiState>();
    for (const b of bridges) {
      const file = path.resolve(b.state.sessionFile || b.entry.sessionFile);
      next.set(file, b.state);
      try {
        next.set(fs.realpathSync(file), b.state);
      } catch {
        // not on disk yet (Pi writes the file with its first answer)
      }
    }
    const changedFiles: string[] = [];
    for (const [file, s] of next) {
      const old = this.states.get(file);
      if (
        !old ||
        old.leafId !== s.leafId ||
        old.idle !== s.idle ||
        old.pid !== s.pid ||
        old.contextUsage?.tokens !== s.contextUsage?.tokens
      )
        changedFiles.push(file);
    }
    for (const file of this.states.keys()) if (!next.has(file)) changedFiles.push(file);
    this.states = next;
    if (changedFiles.length > 0 && !this.disposed) this.changed.fire(changedFiles);
    if (this.timer) clearTimeout(this.timer);
    if (!this.disposed && (next.size > 0 || !this.watcher)) {
      // Polled while a Pi is live (its idle/busy and leaf change without touching the registry), or while the folder cannot be watched yet.
      this.timer = setTimeout(() => void this.refresh(), next.size > 0 ? POLL_MS : POLL_MS * 5);
      this.timer.unref?.();
    }
  }

  private watch(dir: string): void {
    if (this.watchedDir === dir && this.watcher) return;
    this.watcher?.close();
    this.watcher = undefined;
    this.watchedDir = dir;
    try {
      this.watcher = fs.watch(dir, () => void this.refresh());
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch {
      // no bridge folder yet: the slow poll looks again
    }
  }

  /**
   * How a write to `model` reaches it. A live Pi with the bridge: through
   * it. A Pi without the bridge in the session's folder: say so, and offer
   * to install the bridge or to write to the file anyway; undefined when the
   * user chose neither (nothing is written).
   */
  async writeRoute(
    model: SessionModel,
    what: string,
    options_: { signal?: AbortSignal; force?: boolean } = {},
  ): Promise<WriteRoute | undefined> {
    // A working Pi: say so at once, with Cancel, and plan only once it stops (at its leaf then).
    const cancel = new AbortController();
    const signal = options_.signal ? AbortSignal.any([options_.signal, cancel.signal]) : cancel.signal;
    let stopWaiting: (() => void) | undefined;
    const options = {
      agentDir: this.agentDir(),
      cwd: model.cwd || model.index?.header.cwd || '',
      sessionId: typeof model.index?.header.id === 'string' ? model.index.header.id : undefined,
      signal,
      force: options_.force,
      waitForIdle: true,
      waitMs: MAX_IDLE_WAIT_MS,
      onBusy: (state: PiState) => {
        log().info(`live Pi: pid ${state.pid} is working; waiting for it to stop before planning`);
        void vscode.window.withProgress(
          {
            location: vscode.ProgressLocation.Notification,
            title: `Pi (pid ${state.pid}) is working; Arbor will plan when it stops`,
            cancellable: true,
          },
          (_progress, token) =>
            new Promise<void>((resolve) => {
              stopWaiting = resolve;
              token.onCancellationRequested(() => {
                cancel.abort();
                resolve();
              });
            }),
        );
      },
    };
    try {
      return await this.resolveRoute(model, what, options);
    } catch (err) {
      if (cancel.signal.aborted) return undefined; // the user cancelled the wait: nothing planned or written
      throw err;
    } finally {
      stopWaiting?.();
    }
  }

  private async resolveRoute(
    model: SessionModel,
    what: string,
    options: Parameters<typeof resolveWriteRoute>[1],
  ): Promise<WriteRoute | undefined> {
    try {
      return await resolveWriteRoute(model.file, options);
    } catch (err) {
      if (!(err instanceof PiRunningError)) throw err;
      const pids = err.pids.join(', ');
      const several = err.pids.length > 1;
      const choice = await askModal(
        several
          ? `${err.pids.length} Pis hold this session (pid ${pids}). ${what} would reach at most one of them; the others would ` +
              'not see it: their next entries would go under their own leaves.'
          : `Pi holds this session (pid ${pids}) without Arbor's bridge. ${what} would be written to the ` +
              `file, but that Pi would not see it: its next entry would go under its own leaf.`,
        several
          ? "Quit all but one Pi (with Arbor's bridge) and try again."
          : "Install Arbor's bridge and type /reload in Pi to let Arbor work through Pi, or quit Pi first.",
        ...(several ? [] : ['Install Pi Bridge']),
        several ? 'Write Anyway' : 'Write to File Anyway',
      );
      if (choice === 'Install Pi Bridge') await this.install();
      if (choice !== 'Write to File Anyway' && choice !== 'Write Anyway') return undefined;
      return resolveWriteRoute(model.file, { ...options, force: true });
    }
  }

  /** Arbor: Install Pi Bridge. */
  async install(): Promise<void> {
    const dir = this.agentDir();
    try {
      const r = await installBridge(dir, this.bundlePath);
      log().info(`pi bridge: ${r.action} ${r.version} at ${r.file}`);
      const what =
        r.action === 'unchanged'
          ? `Arbor's bridge ${r.version} is already installed`
          : r.action === 'replaced'
            ? `Arbor's bridge was updated to ${r.version}`
            : `Arbor's bridge ${r.version} is installed`;
      void showInfo(
        `${what} (${r.file}). Pi loads it when it starts: type /reload in a running Pi (or restart it) so Arbor can compact and jump through it.`,
      );
    } catch (err) {
      void showWarning(`Arbor: could not install the Pi bridge: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
