// Over 400 lines: the session store is one state machine (listing, loading, previews, appends, Arbor's own writes) over
// one map of sessions; the parts that stand alone are in sessionModel.ts, ownWrites.ts and sessionDirs.ts.
import * as vscode from 'vscode';
import * as path from 'node:path';
import * as fs from 'node:fs';
import { loadIndex as loadExtensionIndex } from './loadIndex';
import { readAppended } from '../../engine/session/tail';
import { listSessions } from '../../engine/session/discovery';
import { otherAgentSessions } from '../../engine/session/agents/discovery';
import { NotRegularFileError, statRegularFile } from '../../engine/session/sessionFile';
import type { SessionIndex } from '../../engine/session/sessionIndex';
import { SessionLayout } from '../../engine/tree/layout';
import { baseTitle, titleFactsAfterAppendWalk, titleFactsWalk, type SessionTitle } from '../../engine/tree/sessionTitle';
import { runEntryWalk } from '../../engine/session/entryWalkLoads';
import { listTitles, peekInto, newSessionModel, previewWhileLoading, PREVIEW_MIN_BYTES, type SessionModel } from './sessionModel';
import { OwnWrites } from './ownWrites';
import { forgetOpened, openedFiles, rememberOpened, workspaceSessionDirs } from './sessionDirs';
import { engineEnv, readConfig } from '../platform/settings';
import { log } from '../platform/logging';
import type { PiState } from '../../engine/livePi/protocol';

export type { SessionModel } from './sessionModel';

/**
 * The sessions Arbor shows and their loaded indexes: one index per session,
 * read by the tree, every command, the status bar and the panel. Loading is
 * lazy (on expand); appended bytes are read incrementally (tail). Every read
 * of a session's index and every append Arbor makes goes through a per-file
 * queue (see write), so a tail read never races another one or a write.
 */
export class SessionStore implements vscode.Disposable {
  private readonly sessions = new Map<string, SessionModel>();
  private order: string[] = [];
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Arbor's own appends, so they are not taken for another writer's, and divergence from them (ownWrites.ts). */
  private readonly own = new OwnWrites();
  private readonly changed = new vscode.EventEmitter<SessionModel | undefined>();
  /** Fires with a session whose content changed, or undefined when the list changed. */
  readonly onDidChange = this.changed.event;
  private listed = false;
  /** Where a running Pi's leaf is (its memory, which a move without a summary left off the file's last entry). */
  private piLeafOf: (file: string) => string | null | undefined = () => undefined;
  private readonly diverged = new vscode.EventEmitter<{ model: SessionModel; ownEntryId: string; piEntryId: string }>();
  /**
   * Another writer (a running Pi without the bridge) appended under the leaf Arbor had just written
   * after: Arbor's entry is left on a side branch that writer does not see.
   */
  readonly onDidDiverge = this.diverged.event;

  /** `indexFile` indexes a session in full (a load, a reload after replacement); Arbor's tests pass one that counts. */
  constructor(
    private readonly memento: vscode.Memento,
    private readonly indexFile: (file: string) => Promise<SessionIndex> = (file) => loadExtensionIndex(file),
  ) {}

  dispose(): void {
    this.changed.dispose();
    this.diverged.dispose();
  }

  /** The state of the running Pi (with the bridge) that holds a session, if any: shown on its row. */
  piStateOf: (file: string) => PiState | undefined = () => undefined;

  /** Tells the store where a live Pi's leaf is (for the tree's leaf marker and the active path), and its state. */
  setPiSources(leaf: (file: string) => string | null | undefined, state: (file: string) => PiState | undefined): void {
    this.piLeafOf = leaf;
    this.piStateOf = state;
  }

  /** The layout of an index, with the active path to a live Pi's leaf when Pi says where it is. */
  private layoutOf(model: SessionModel, index: SessionIndex): SessionLayout {
    const piLeaf = this.piLeafOf(model.file);
    const i = typeof piLeaf === 'string' ? index.indexOf(piLeaf) : -1;
    return i >= 0 ? new SessionLayout(index, i) : new SessionLayout(index);
  }

  /** A live Pi's leaf moved (or Pi went away): lays the session out again when its active path changed. */
  piLeafChanged(file: string): void {
    const model = this.sessions.get(file);
    if (!model?.index || !model.layout) {
      if (model) this.changed.fire(model);
      return;
    }
    const piLeaf = this.piLeafOf(model.file);
    const want = typeof piLeaf === 'string' && model.index.indexOf(piLeaf) >= 0 ? model.index.indexOf(piLeaf) : model.index.leafIndex;
    if (want !== model.layout.leafIndex) model.layout = this.layoutOf(model, model.index);
    this.changed.fire(model);
  }

  /** Notes an append Arbor made to the file itself (not through Pi): a foreign entry under the old leaf after it is a divergence. */
  noteFileWrite(model: SessionModel, ids: readonly string[], leafBefore: string | null): void {
    this.own.noteFileWrite(model.file, ids, leafBefore);
  }

  /** Pi's session folders for the open workspace folders. */
  sessionDirs(): { folder: string; dir: string }[] {
    return workspaceSessionDirs();
  }

  openedFiles(): string[] {
    return openedFiles(this.memento);
  }

  get(file: string): SessionModel | undefined {
    return this.sessions.get(file);
  }

  list(): SessionModel[] {
    return this.order.map((f) => this.sessions.get(f)!).filter(Boolean);
  }

  /** Every listed session's title, told apart from the others with the same title (one rule: sessionTitle.ts). */
  titles(): Map<string, SessionTitle> {
    return listTitles(this.list());
  }

  get isListed(): boolean {
    return this.listed;
  }

  /** Re-reads the session folders (and the opened files). Loaded indexes are kept. */
  async refreshList(): Promise<void> {
    const seen = new Set<string>();
    const order: string[] = [];
    const env = engineEnv(readConfig());
    for (const { folder, dir } of this.sessionDirs()) {
      let infos;
      try {
        // The folder's sessions from all three agents (Claude Code's and Codex's are read-only), newest first.
        const [pi, others] = await Promise.all([listSessions(dir), otherAgentSessions(folder, env)]);
        infos = [...pi, ...others].sort((a, b) => b.mtimeMs - a.mtimeMs);
      } catch (err) {
        log().warn(`cannot list ${dir}: ${String(err)}`);
        continue;
      }
      for (const info of infos) {
        if (seen.has(info.file)) continue;
        seen.add(info.file);
        order.push(info.file);
        this.upsert(info.file, 'workspace', info);
      }
    }
    for (const file of this.openedFiles()) {
      if (seen.has(file)) continue;
      try {
        const st = await statRegularFile(file);
        seen.add(file);
        order.push(file);
        this.upsert(file, 'opened', { mtimeMs: st.mtimeMs, size: st.size });
      } catch (err) {
        log().warn(
          err instanceof NotRegularFileError
            ? `${err.message}; removing it from the list`
            : `opened session ${file} is gone; removing it from the list`,
        );
        await forgetOpened(this.memento, file);
      }
    }
    for (const f of [...this.sessions.keys()]) if (!seen.has(f)) this.sessions.delete(f);
    this.order = order;
    await Promise.all(
      this.list()
        .filter((s) => s.peek === undefined || s.peek.size !== s.size)
        .map((s) => peekInto(s)),
    );
    this.listed = true;
    this.changed.fire(undefined);
  }

  /** Adds a file to the list ("Open Session File..."), remembered per workspace. */
  async addOpened(file: string): Promise<SessionModel> {
    const abs = path.resolve(file);
    await statRegularFile(abs); // a FIFO, device or directory is refused here, with its path and kind
    if (!this.sessions.has(abs)) await rememberOpened(this.memento, abs);
    await this.refreshList();
    const model = this.sessions.get(abs);
    if (!model) throw new Error(`${abs} could not be opened`);
    await this.ensureLoaded(model);
    return model;
  }

  /** Takes a file added with "Open Session File..." off the list (the file itself is left alone). */
  async removeOpened(file: string): Promise<void> {
    await forgetOpened(this.memento, path.resolve(file));
    await this.refreshList();
  }

  private upsert(
    file: string,
    source: SessionModel['source'],
    info: Partial<Pick<SessionModel, 'id' | 'cwd' | 'timestamp' | 'mtimeMs' | 'size' | 'agent'>>,
  ): void {
    const existing = this.sessions.get(file);
    if (existing) {
      existing.mtimeMs = info.mtimeMs ?? existing.mtimeMs;
      if (!existing.index) existing.size = info.size ?? existing.size;
      return;
    }
    this.sessions.set(file, newSessionModel(file, source, info));
  }

  /** Runs `fn` after every earlier queued read of `file`. */
  private queue<T>(file: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.queues.get(file) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    this.queues.set(
      file,
      next.catch(() => undefined),
    );
    return next;
  }

  /** Loads a session's index (once) and computes its layout. */
  async ensureLoaded(model: SessionModel): Promise<SessionIndex> {
    if (model.index) return model.index;
    return this.queue(model.file, async () => {
      if (model.index) return model.index;
      try {
        const t0 = performance.now();
        const index = await this.loadIndex(model.file);
        const t1 = performance.now();
        model.index = index;
        model.agent = index.agent;
        model.error = undefined;
        model.id = index.header.id;
        model.cwd = index.header.cwd;
        model.timestamp = index.header.timestamp;
        model.size = index.size;
        model.layout = this.layoutOf(model, index);
        log().debug(
          `loaded ${model.file}: ${index.entryCount} entries, ${index.size} bytes; indexed in ${(t1 - t0).toFixed(0)} ` +
            `ms, laid out in ${(performance.now() - t1).toFixed(0)} ms`,
        );
        model.titleFacts = await runEntryWalk(index, titleFactsWalk(index));
        model.title = baseTitle(model.titleFacts) ?? model.title;
        for (const d of index.diagnostics.slice(0, 20)) log().warn(`${d.file}:${d.line}: ${d.message}`);
        return index;
      } catch (err) {
        model.error = err instanceof Error ? err.message : String(err);
        throw err;
      }
    });
  }

  /**
   * Loads a session for the tree. A large one is also previewed: its last few
   * MB are indexed while the whole file is (see tailPreview.ts); when the
   * preview is ready first and holds a full page of the active path, the
   * tree shows it ('preview') and the full index replaces it when done.
   * Otherwise waits for the full index ('full').
   */
  async loadForTree(model: SessionModel): Promise<'full' | 'preview'> {
    if (model.index) return 'full';
    if (model.preview) return 'preview'; // the tree replaces it when the full index is loaded
    const full = this.ensureLoaded(model);
    if (model.error) {
      // The last load failed: no preview hiding it (and no retry loop); Refresh tries again.
      await full;
      return 'full';
    }
    // Asynchronous: the extension host's thread never waits on the disk here.
    const size = await fs.promises.stat(model.file).then(
      (st) => st.size,
      () => 0, // ensureLoaded reports it
    );
    if (size < PREVIEW_MIN_BYTES) {
      await full;
      return 'full';
    }
    const preview = await previewWhileLoading(
      model,
      full.then(() => undefined),
    );
    if (preview) {
      model.preview = preview;
      return 'preview';
    }
    await full;
    return 'full';
  }

  /**
   * Reads what was appended to a loaded session since the last read (or
   * reloads it if the file was replaced) and fires a change when anything
   * was added. Returns the number of new entries.
   */
  async readTail(file: string): Promise<number> {
    const model = this.sessions.get(file);
    if (!model) return 0;
    return this.queue(file, async () => {
      let st;
      try {
        // Synchronous: a stat costs microseconds; a trip through the thread pool costs more on a busy machine.
        st = fs.statSync(file);
      } catch {
        return 0;
      }
      model.mtimeMs = st.mtimeMs;
      if (!model.index) {
        if (st.size !== model.size) {
          const external = st.size > model.size;
          model.size = st.size;
          if (external) model.lastExternalWriteAt = Date.now();
          // Its row reads the bounded peek: a name Pi just gave it (/name), the entry count, the last activity.
          await peekInto(model);
          this.changed.fire(model);
        }
        return 0;
      }
      const before = model.index.entryCount;
      const sizeBefore = model.index.size;
      const result = await readAppended(model.index);
      if (result.replaced) {
        log().info(`${file} was replaced; reloading it`);
        model.index = await this.loadIndex(file);
        model.layout = this.layoutOf(model, model.index);
        model.size = model.index.size;
        this.changed.fire(model);
        return model.index.entryCount;
      }
      if (result.added === 0 && model.index.size > sizeBefore && model.index.hasIncompleteLine) {
        // A line another process is still writing grew (Arbor writes whole lines): that writer is live.
        model.size = model.index.size;
        model.lastExternalWriteAt = Date.now();
        this.changed.fire(model);
        return 0;
      }
      await this.absorb(model, model.index, before);
      return result.added;
    });
  }

  /**
   * Appends to a session with its store-held index: `fn` runs in the file's
   * queue (no tail read in between) with the loaded index, which the writer
   * brings to the file's end before it checks the leaf and appends. What
   * was read or written is then taken into the layout like any other append.
   */
  async write<T>(model: SessionModel, fn: (index: SessionIndex) => Promise<T>): Promise<T> {
    await this.ensureLoaded(model);
    return this.queue(model.file, async () => {
      const index = model.index;
      if (!index) throw new Error(`${model.file} is not loaded; nothing was written`);
      const before = index.entryCount;
      try {
        return await fn(index);
      } finally {
        if (model.index === index) await this.absorb(model, index, before);
      }
    });
  }

  private loadIndex(file: string): Promise<SessionIndex> {
    return this.indexFile(file);
  }

  /** Takes entries from `before` on (just read or written) into the model: own or foreign, layout, title. */
  private async absorb(model: SessionModel, index: SessionIndex, before: number): Promise<void> {
    model.size = index.size;
    if (index.entryCount === before) return;
    const { foreign, divergence } = this.own.sort(model.file, index, before);
    if (divergence) {
      log().warn(
        `${model.file}: entry ${divergence.piEntryId} was appended under ${divergence.parentId ?? '(root)'}, the leaf ` +
          `before Arbor's ${divergence.ownEntryId}: the writer did not see Arbor's entry`,
      );
      this.diverged.fire({ model, ownEntryId: divergence.ownEntryId, piEntryId: divergence.piEntryId });
    }
    if (foreign) model.lastExternalWriteAt = Date.now();
    // Pi's appends continue the leaf: extend the layout in place (a rebuild costs tens of ms on a 100 MB session).
    const piLeaf = this.piLeafOf(model.file);
    const piLeafMoved = typeof piLeaf === 'string' && index.indexOf(piLeaf) !== model.layout?.leafIndex;
    if (!model.layout || model.layout.index !== index || piLeafMoved || !model.layout.extend()) model.layout = this.layoutOf(model, index);
    // The appended user messages are read (loaded a batch at a time); a file that changed meanwhile keeps the title.
    try {
      const facts = model.titleFacts ?? (await runEntryWalk(index, titleFactsWalk(index)));
      model.titleFacts = await runEntryWalk(index, titleFactsAfterAppendWalk(index, before, facts));
      model.title = baseTitle(model.titleFacts) ?? model.title;
    } catch (err) {
      log().warn(`${model.file}: its title was not updated: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.changed.fire(model);
  }

  /** Redraws a session (e.g. when its "live" flag runs out). */
  touch(model: SessionModel): void {
    this.changed.fire(model);
  }

  /** Records entries Arbor wrote (their arrival is not another writer's activity). */
  noteOwnWrite(ids: readonly string[]): void {
    this.own.note(ids);
  }

  /**
   * For the writer's `beforeWrite`: notes Arbor's entries before their bytes
   * land, so a tail read the file watcher starts meanwhile does not flag the
   * session as written by another process.
   */
  readonly noteOwnEntries = (entries: readonly { id: string }[]): void => {
    this.noteOwnWrite(entries.map((e) => e.id));
  };

  /** Whether another process wrote to the file within `arbor.liveWriteSeconds`. */
  isLive(model: SessionModel, now = Date.now()): boolean {
    return model.lastExternalWriteAt !== undefined && now - model.lastExternalWriteAt < readConfig().liveWriteSeconds * 1000;
  }

  /** Drops a loaded index (Refresh): the next expand reloads it from disk. */
  async reload(model: SessionModel): Promise<void> {
    await this.queue(model.file, async () => {
      model.index = undefined;
      model.layout = undefined;
    });
    await this.ensureLoaded(model);
    this.changed.fire(model);
  }
}
