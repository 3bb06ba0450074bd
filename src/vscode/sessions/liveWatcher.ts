import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SessionStore } from './sessionStore';
import { readConfig } from '../platform/settings';
import { log } from '../platform/logging';

/**
 * Follows the session files while Pi writes them: a change in a session
 * folder (or to an opened file) reads only the bytes appended since the last
 * read, at once (no debounce: the new entry shows within milliseconds); events
 * that come while a read runs cause one more read after it. A new file
 * re-lists the folder. fs.watch gives the events; a slow poll of the loaded
 * sessions' sizes is the safety net for file systems without change events.
 */
export class LiveWatcher implements vscode.Disposable {
  private readonly watchers = new Map<string, fs.FSWatcher>();
  private readonly reading = new Set<string>();
  private readonly readAgain = new Set<string>();
  private readonly lastEvent = new Map<string, number>();
  private readonly liveTimers = new Map<string, NodeJS.Timeout>();
  private listTimer: NodeJS.Timeout | undefined;
  private readonly poll: NodeJS.Timeout;
  private readonly subs: vscode.Disposable[] = [];
  private disposed = false;

  constructor(
    private readonly store: SessionStore,
    pollMs = 3000,
  ) {
    this.poll = setInterval(() => void this.pollOnce(), pollMs);
    // Only a new list can change what to watch (not every append to a session).
    this.subs.push(store.onDidChange((model) => model === undefined && this.sync()));
    this.subs.push(vscode.workspace.onDidChangeWorkspaceFolders(() => this.scheduleList()));
    this.sync();
  }

  dispose(): void {
    this.disposed = true;
    clearInterval(this.poll);
    for (const w of this.watchers.values()) w.close();
    for (const t of this.liveTimers.values()) clearTimeout(t);
    if (this.listTimer) clearTimeout(this.listTimer);
    for (const s of this.subs) s.dispose();
  }

  /** Watches the session folders and the opened files the store lists now. */
  private sync(): void {
    if (this.disposed) return;
    const wanted = new Set<string>();
    for (const { dir } of this.store.sessionDirs()) wanted.add(dir);
    for (const f of this.store.openedFiles()) wanted.add(path.dirname(f));
    for (const [target, w] of this.watchers) {
      if (!wanted.has(target)) {
        w.close();
        this.watchers.delete(target);
      }
    }
    for (const target of wanted) {
      if (this.watchers.has(target) || !fs.existsSync(target)) continue;
      try {
        const w = fs.watch(target, { persistent: false }, (_event, name) => this.onEvent(target, name ? String(name) : undefined));
        w.on('error', (err) => {
          log().warn(`watching ${target} failed: ${String(err)}`);
          w.close();
          this.watchers.delete(target);
        });
        this.watchers.set(target, w);
      } catch (err) {
        log().warn(`cannot watch ${target}: ${String(err)}`);
      }
    }
  }

  private onEvent(dir: string, name: string | undefined): void {
    if (!name) {
      this.scheduleList();
      return;
    }
    if (!name.endsWith('.jsonl')) return;
    const file = path.join(dir, name);
    if (this.store.get(file)) {
      this.lastEvent.set(file, performance.now());
      this.scheduleTail(file);
    } else if (this.store.sessionDirs().some((d) => d.dir === dir)) this.scheduleList();
  }

  /** performance.now() of the last change event seen for a listed session file (for the performance test). */
  lastChangeEventAt(file: string): number | undefined {
    return this.lastEvent.get(file);
  }

  /** Reads the new bytes now; if a read of the file is running, once more after it. */
  private scheduleTail(file: string): void {
    if (this.disposed) return;
    if (this.reading.has(file)) {
      this.readAgain.add(file);
      return;
    }
    this.reading.add(file);
    void this.tail(file).finally(() => {
      this.reading.delete(file);
      if (this.readAgain.delete(file)) this.scheduleTail(file);
    });
  }

  private scheduleList(): void {
    if (this.listTimer) clearTimeout(this.listTimer);
    this.listTimer = setTimeout(() => {
      this.listTimer = undefined;
      void this.store.refreshList().catch((err) => log().warn(`re-listing sessions failed: ${String(err)}`));
    }, 250);
  }

  private async tail(file: string): Promise<void> {
    if (!fs.existsSync(file)) {
      this.scheduleList();
      return;
    }
    try {
      const added = await this.store.readTail(file);
      const model = this.store.get(file);
      if (model && this.store.isLive(model)) this.scheduleLiveExpiry(file);
      if (added) log().debug(`${file}: ${added} new entr${added === 1 ? 'y' : 'ies'}`);
    } catch (err) {
      log().warn(`reading new entries of ${file} failed: ${String(err)}`);
    }
  }

  /** Redraws a session when its "live" flag runs out. */
  private scheduleLiveExpiry(file: string): void {
    const existing = this.liveTimers.get(file);
    if (existing) clearTimeout(existing);
    this.liveTimers.set(
      file,
      setTimeout(
        () => {
          this.liveTimers.delete(file);
          const model = this.store.get(file);
          if (model) this.store.touch(model);
        },
        readConfig().liveWriteSeconds * 1000 + 200,
      ),
    );
  }

  private async pollOnce(): Promise<void> {
    if (this.disposed) return;
    if (this.watchers.size < this.store.sessionDirs().length) this.sync();
    for (const model of this.store.list()) {
      try {
        const st = await fs.promises.stat(model.file);
        if (st.size !== model.size) this.scheduleTail(model.file);
      } catch {
        // gone: the next listing drops it
      }
    }
  }
}
