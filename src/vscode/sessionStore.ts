import * as vscode from 'vscode';
import * as path from 'node:path';
import * as fs from 'node:fs';
import { loadSession } from '../engine/session/loadSession';
import { readAppended } from '../engine/session/tail';
import { loadTailPreview } from '../engine/session/tailPreview';
import { PAGE_SIZE } from './tree/pages';
import { listSessions, sessionsDirFor } from '../engine/session/discovery';
import { otherAgentSessions } from '../engine/agents/discovery';
import type { AgentKind } from '../engine/agents/agentKind';
import { NotRegularFileError, statRegularFile } from '../engine/session/sessionFile';
import type { SessionIndex } from '../engine/session/sessionIndex';
import { SessionLayout } from './tree/layout';
import { peekSession, peekTitleFacts, type SessionPeek } from '../engine/tree/sessionPeek';
import {
  baseTitle,
  sessionTitles,
  titleFactsAfterAppend,
  titleFactsFromIndex,
  type SessionTitle,
  type TitleFacts,
} from '../engine/tree/sessionTitle';
import { engineEnv, readConfig } from './settings';
import { log } from './logging';
import type { PiState } from '../engine/livePi/protocol';

export interface SessionModel {
  file: string;
  /** 'workspace': found in Pi's sessions folder for an open folder; 'opened': added by the user. */
  source: 'workspace' | 'opened';
  id: string;
  cwd: string;
  timestamp: string;
  mtimeMs: number;
  size: number;
  /** Session name (session_info) or first user message (engine/tree/sessionTitle.ts); `titles()` tells equal ones apart. */
  title: string | undefined;
  /** What the title rule reads: from the loaded index, else from the peek. */
  titleFacts: TitleFacts | undefined;
  /** What a bounded read of the file says (name, first message, last activity, entry count): see sessionPeek.ts. */
  peek: SessionPeek | undefined;
  index: SessionIndex | undefined;
  layout: SessionLayout | undefined;
  /**
   * While a large session is being indexed: its end, indexed first, for the
   * tree to show (see loadForTree). Never used to write or to plan.
   */
  preview: { index: SessionIndex; layout: SessionLayout } | undefined;
  error: string | undefined;
  /** When another process last appended to the file (ms since epoch). */
  lastExternalWriteAt: number | undefined;
  /** The agent that wrote it (from the listing, the peek or the index): only Pi's sessions are written (engine/agents/readOnly.ts). */
  agent: AgentKind;
}

const OPENED_KEY = 'arbor.openedSessions';

/** Sessions from this size on are previewed while they load (smaller ones load in tens of ms). */
const PREVIEW_MIN_BYTES = 8 * 1024 * 1024;
/** How much of the end to preview: a second, larger try when the first holds less than a page of the active path. */
const PREVIEW_BYTES = [4 * 1024 * 1024, 16 * 1024 * 1024];

/** Whether a preview holds what the tree shows first: a full page of the active path, or all of it. */
function previewCovers(layout: SessionLayout): boolean {
  const main = layout.mainLine;
  if (main.length > PAGE_SIZE) return true;
  return main.length > 0 && layout.index.record(main[0]).parentId === null;
}

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
  /** Entry ids Arbor itself wrote, so its own appends are not taken for another writer's. */
  private readonly ownIds = new Set<string>();
  private readonly changed = new vscode.EventEmitter<SessionModel | undefined>();
  /** Fires with a session whose content changed, or undefined when the list changed. */
  readonly onDidChange = this.changed.event;
  private listed = false;
  /** How many times each file was indexed in full (a load, a reload after replacement). */
  private readonly loads = new Map<string, number>();
  /** Where a running Pi's leaf is (its memory, which a move without a summary left off the file's last entry). */
  private piLeafOf: (file: string) => string | null | undefined = () => undefined;
  /** Arbor's last append to the file itself (not through Pi), until the next entry someone else appends. */
  private readonly ownFileWrites = new Map<string, { ids: Set<string>; leafBefore: string | null }>();
  private readonly diverged = new vscode.EventEmitter<{ model: SessionModel; ownEntryId: string; piEntryId: string }>();
  /**
   * Another writer (a running Pi without the bridge) appended under the leaf Arbor had just written
   * after: Arbor's entry is left on a side branch that writer does not see.
   */
  readonly onDidDiverge = this.diverged.event;

  constructor(private readonly memento: vscode.Memento) {}

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
    if (ids.length > 0) this.ownFileWrites.set(model.file, { ids: new Set(ids), leafBefore });
  }

  /** Pi's session folders for the open workspace folders. */
  sessionDirs(): { folder: string; dir: string }[] {
    const env = engineEnv(readConfig());
    return (vscode.workspace.workspaceFolders ?? [])
      .filter((f) => f.uri.scheme === 'file')
      .map((f) => ({ folder: f.uri.fsPath, dir: sessionsDirFor(f.uri.fsPath, env) }));
  }

  openedFiles(): string[] {
    return this.memento.get<string[]>(OPENED_KEY, []);
  }

  get(file: string): SessionModel | undefined {
    return this.sessions.get(file);
  }

  list(): SessionModel[] {
    return this.order.map((f) => this.sessions.get(f)!).filter(Boolean);
  }

  /** Every listed session's title, told apart from the others with the same title (one rule: sessionTitle.ts). */
  titles(): Map<string, SessionTitle> {
    const models = this.list();
    const titles = sessionTitles(
      models.map(
        (m) =>
          m.titleFacts ?? {
            name: undefined,
            firstRequest: m.title,
            latestRequest: undefined,
            startedMs: Date.parse(m.timestamp) || undefined,
          },
      ),
    );
    return new Map(models.map((m, k) => [m.file, titles[k]]));
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
        await this.memento.update(
          OPENED_KEY,
          this.openedFiles().filter((f) => f !== file),
        );
      }
    }
    for (const f of [...this.sessions.keys()]) if (!seen.has(f)) this.sessions.delete(f);
    this.order = order;
    await Promise.all(
      this.list()
        .filter((s) => s.peek === undefined || s.peek.size !== s.size)
        .map((s) => this.peekTitle(s)),
    );
    this.listed = true;
    this.changed.fire(undefined);
  }

  /** Adds a file to the list ("Open Session File..."), remembered per workspace. */
  async addOpened(file: string): Promise<SessionModel> {
    const abs = path.resolve(file);
    await statRegularFile(abs); // a FIFO, device or directory is refused here, with its path and kind
    const opened = this.openedFiles();
    if (!opened.includes(abs) && !this.sessions.has(abs)) await this.memento.update(OPENED_KEY, [...opened, abs]);
    await this.refreshList();
    const model = this.sessions.get(abs);
    if (!model) throw new Error(`${abs} could not be opened`);
    await this.ensureLoaded(model);
    return model;
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
    this.sessions.set(file, {
      file,
      source,
      id: info.id ?? '',
      cwd: info.cwd ?? '',
      timestamp: info.timestamp ?? '',
      mtimeMs: info.mtimeMs ?? 0,
      size: info.size ?? 0,
      title: undefined,
      titleFacts: undefined,
      peek: undefined,
      index: undefined,
      layout: undefined,
      preview: undefined,
      error: undefined,
      // Not from the modification time: a file copied or written a moment ago by a script is not live. Bytes arriving are.
      lastExternalWriteAt: undefined,
      agent: info.agent ?? 'pi',
    });
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
          `loaded ${model.file}: ${index.entryCount} entries, ${index.size} bytes; indexed in ${(t1 - t0).toFixed(0)} ms, laid out in ${(performance.now() - t1).toFixed(0)} ms`,
        );
        model.titleFacts = titleFactsFromIndex(index);
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
    let size = 0;
    try {
      size = fs.statSync(model.file).size;
    } catch {
      // ensureLoaded reports it
    }
    if (size < PREVIEW_MIN_BYTES) {
      await full;
      return 'full';
    }
    const fullDone = full.then(() => undefined);
    for (const bytes of PREVIEW_BYTES) {
      const preview = loadTailPreview(model.file, { bytes }).catch((err) => {
        log().debug(`preview of ${model.file} failed: ${String(err)}`);
        return undefined;
      });
      const first = await Promise.race([fullDone, preview]);
      if (!first || model.index) break;
      const layout = new SessionLayout(first);
      if (previewCovers(layout)) {
        model.preview = { index: first, layout };
        log().debug(
          `previewing ${model.file}: ${first.entryCount} entries of the last ${(bytes / 1048576).toFixed(0)} MB while it is indexed`,
        );
        return 'preview';
      }
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
          await this.peekTitle(model);
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
      this.absorb(model, model.index, before);
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
        if (model.index === index) this.absorb(model, index, before);
      }
    });
  }

  /** How many times the store indexed `file` in full (tests: commands use the held index, not a new one). */
  loadCount(file: string): number {
    return this.loads.get(file) ?? 0;
  }

  private loadIndex(file: string): Promise<SessionIndex> {
    this.loads.set(file, this.loadCount(file) + 1);
    return loadSession(file);
  }

  /** Takes entries from `before` on (just read or written) into the model: own or foreign, layout, title. */
  private absorb(model: SessionModel, index: SessionIndex, before: number): void {
    model.size = index.size;
    if (index.entryCount === before) return;
    let foreign = false;
    for (let i = before; i < index.entryCount; i++) {
      const id = index.record(i).id;
      if (this.ownIds.has(id)) this.ownIds.delete(id);
      else {
        if (!foreign) this.checkDivergence(model, index, i);
        foreign = true;
      }
    }
    if (foreign) model.lastExternalWriteAt = Date.now();
    // Pi's appends continue the leaf: extend the layout in place (a rebuild costs tens of ms on a 100 MB session).
    const piLeaf = this.piLeafOf(model.file);
    const piLeafMoved = typeof piLeaf === 'string' && index.indexOf(piLeaf) !== model.layout?.leafIndex;
    if (!model.layout || model.layout.index !== index || piLeafMoved || !model.layout.extend()) model.layout = this.layoutOf(model, index);
    model.titleFacts = titleFactsAfterAppend(index, before, model.titleFacts ?? titleFactsFromIndex(index));
    model.title = baseTitle(model.titleFacts) ?? model.title;
    this.changed.fire(model);
  }

  /**
   * The first entry another process appended after Arbor's own append to the file: when its parent is
   * the leaf Arbor attached to (not Arbor's entry or anything after it), that writer did not see Arbor's
   * entry: a running Pi without the bridge, continuing from its own leaf.
   */
  private checkDivergence(model: SessionModel, index: SessionIndex, i: number): void {
    const own = this.ownFileWrites.get(model.file);
    if (!own) return;
    this.ownFileWrites.delete(model.file);
    let p = index.parentIndex(i);
    while (p >= 0) {
      if (own.ids.has(index.record(p).id)) return; // it continues from Arbor's entry: Pi saw it
      p = index.parentIndex(p);
    }
    const parentId = index.record(i).parentId;
    if (parentId !== own.leafBefore) return;
    const ownEntryId = [...own.ids][0];
    log().warn(
      `${model.file}: entry ${index.record(i).id} was appended under ${parentId ?? '(root)'}, the leaf before Arbor's ${ownEntryId}: the writer did not see Arbor's entry`,
    );
    this.diverged.fire({ model, ownEntryId, piEntryId: index.record(i).id });
  }

  /** Redraws a session (e.g. when its "live" flag runs out). */
  touch(model: SessionModel): void {
    this.changed.fire(model);
  }

  /** Records entries Arbor wrote (their arrival is not another writer's activity). */
  noteOwnWrite(ids: readonly string[]): void {
    for (const id of ids) this.ownIds.add(id);
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

  private async peekTitle(model: SessionModel): Promise<void> {
    try {
      const peek = await peekSession(model.file);
      model.peek = peek;
      model.agent = peek.agent;
      model.id ||= peek.id;
      model.cwd ||= peek.cwd;
      if (!model.timestamp && peek.startedMs !== undefined) model.timestamp = new Date(peek.startedMs).toISOString();
      if (!model.index) {
        model.titleFacts = peekTitleFacts(peek);
        model.title = baseTitle(model.titleFacts);
      }
    } catch {
      model.peek = undefined;
    }
  }
}
