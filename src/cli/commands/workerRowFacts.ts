import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import { ENTRY_KINDS } from '../../engine/tree/entryPreview';
import type { SessionIndex } from '../../engine/session/sessionIndex';
import { rowFromIndex, type Row, type RowSource, type RowStyle } from './treeRowFacts';
import { FACTS_WORKER_ARG, type FactsBatch, type FactsMessage, type FactsWorkerData } from './treeFactsWorker';

/** The workers' script: next to this code (dist/ for the bundled CLI, the tsc output for tests). */
export const FACTS_WORKER_FILE = path.join(__dirname, 'treeFactsWorker.js');

/** Worker processes started for one tree: one per core up to this many (the main thread indexes and writes meanwhile). */
const MAX_WORKERS = 4;
const NO_ROW = 0xff;

/** One worker and the part of the file it reads. */
interface Part {
  worker: ChildProcess;
  from: number;
  to: number;
  /** Batches received and not yet joined. */
  queue: FactsBatch[];
  /** Every line of the part starting before this offset has been read. */
  through: number;
  finished: boolean;
}

/** Who is told where rows come from (the tests and the bench count them): rows received from the workers, rows described from the index instead. */
export interface RowObserver {
  received?(rows: number): void;
  fromIndex?(entryIndex: number): void;
}

/**
 * The rows of a large session made by worker processes (treeFactsWorker.ts),
 * each reading one part of the file, while the main thread indexes it: the
 * parsing and describing of every entry, most of `arbor tree`'s work, runs
 * on the other cores.
 *
 * Processes, not worker threads: on Node 20 a worker thread can deadlock as
 * it stops (its thread waits for every background task of the process to
 * drain, while an optimizing compile of its own isolate waits for a garbage
 * collection on that thread; nodejs/node#54918, seen 5 times in about 60
 * runs of a 9 MB tree with both cores busy), and the process stopping it
 * waits with it. A worker process is never waited for: once it has sent its
 * rows (or the tree no longer needs them) it is killed, and whatever it does
 * as it exits cannot hold this process.
 *
 * Rows arrive in file order within each part, keyed by where each line
 * starts, and are joined to the index's records (same start, id and type: a
 * line whose keys the index read differently, such as a key written twice,
 * is not joined). A row's text is a slice of its batch's text, so a batch is
 * kept until its last row is written (rows are written in about file order,
 * and batches hold 4096 rows). An entry with no row from a worker (a line it
 * could not parse, a line too long to parse, lines appended after it read, a
 * worker that failed) is described from the index, as the in-thread source
 * does.
 */
export class WorkerRowFacts implements RowSource {
  private readonly parts: Part[] = [];
  private waiters: { offset: number; resolve: () => void }[] = [];
  // Joined rows, by entry index (sized when the index is known).
  private kinds: Uint8Array | undefined;
  private texts: string[] = [];
  private tokens: Float64Array | undefined;
  /** The next record the join looks at, and the part whose batches it joins. */
  private joinAt = 0;
  private joinPart = 0;
  /** Why a worker stopped early (its rows then come from the index). */
  readonly failures: string[] = [];
  private constructor(
    file: string,
    size: number,
    workers: number,
    private readonly style: RowStyle,
    private readonly observer: RowObserver,
  ) {
    try {
      this.startParts(file, size, workers);
    } catch (err) {
      // A worker that cannot start (a thread limit, say): none of them is used.
      this.close();
      throw err;
    }
  }

  private startParts(file: string, size: number, workers: number): void {
    const style = this.style;
    for (let k = 0; k < workers; k++) {
      const from = Math.floor((size * k) / workers);
      // The last part runs to the end, wherever that is when it gets there.
      const to = k === workers - 1 ? Number.MAX_SAFE_INTEGER : Math.floor((size * (k + 1)) / workers);
      const data: FactsWorkerData = { file, style, from, to };
      // No inherited flags (an inspector port, a profiler), nothing on stdin or stdout; rows come back over IPC, typed arrays included.
      const worker = fork(FACTS_WORKER_FILE, [FACTS_WORKER_ARG, JSON.stringify(data)], {
        execArgv: [],
        serialization: 'advanced',
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
      const part: Part = { worker, from, to, queue: [], through: from, finished: false };
      worker.on('message', (m: FactsMessage) => this.receive(part, m));
      worker.on('error', (err) => this.finish(part, err.message));
      // 'close', not 'exit': every message it sent has been received by then.
      worker.on('close', () => this.finish(part, part.finished ? undefined : 'a worker exited early'));
      this.parts.push(part);
    }
  }

  /**
   * Workers making the rows of `file` (`size` bytes), or undefined when
   * their script is not there (rows are then made in the main thread).
   */
  static start(
    file: string,
    size: number,
    style: RowStyle,
    workers = Math.min(MAX_WORKERS, Math.max(1, availableParallelism())),
    observer: RowObserver = {},
  ): WorkerRowFacts | undefined {
    if (!existsSync(FACTS_WORKER_FILE)) return undefined;
    try {
      return new WorkerRowFacts(file, size, workers, style, observer);
    } catch {
      return undefined; // rows are made in the main thread
    }
  }

  private receive(part: Part, m: FactsMessage): void {
    if (m.type === 'facts') {
      if (m.starts.length) part.queue.push(m);
      this.observer.received?.(m.starts.length);
      part.through = Math.max(part.through, m.through);
      this.wake();
    } else this.finish(part, m.type === 'failed' ? m.message : undefined);
  }

  private finish(part: Part, failure: string | undefined): void {
    if (part.finished) return;
    part.finished = true;
    if (failure) this.failures.push(failure);
    this.wake();
  }

  /** Whether every row of a line starting at or before `offset` has arrived (or will not). */
  private settled(offset: number): boolean {
    // A part wholly before the offset must have finished (the join passes a part only once it has).
    return this.parts.every((p) => p.finished || p.from > offset || (p.to > offset && p.through > offset));
  }

  private wake(): void {
    const still: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (this.settled(w.offset)) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
  }

  ready(index: SessionIndex, indexes: readonly number[]): Promise<void> | undefined {
    let last = -1;
    for (const i of indexes) last = Math.max(last, index.record(i).start);
    if (this.settled(last)) {
      this.join(index);
      return undefined;
    }
    return new Promise<void>((resolve) => this.waiters.push({ offset: last, resolve })).then(() => this.join(index));
  }

  /**
   * Joins the batches received to the index's records, both in file order:
   * a part's batches once every part before it has finished (its rows all
   * joined), so the join never passes a record whose row is still coming.
   */
  private join(index: SessionIndex): void {
    const n = index.entryCount;
    this.kinds ??= new Uint8Array(n).fill(NO_ROW);
    this.tokens ??= new Float64Array(n);
    while (this.joinPart < this.parts.length) {
      const part = this.parts[this.joinPart];
      for (const b of part.queue) this.joinBatch(index, b);
      part.queue.length = 0;
      if (!part.finished) break;
      this.joinPart++;
    }
  }

  private joinBatch(index: SessionIndex, b: FactsBatch): void {
    const n = index.entryCount;
    for (let k = 0; k < b.starts.length && this.joinAt < n; k++) {
      const start = b.starts[k];
      while (this.joinAt < n && index.record(this.joinAt).start < start) this.joinAt++;
      if (this.joinAt >= n) return;
      const rec = index.record(this.joinAt);
      if (rec.start !== start) continue; // a line the index does not hold as an entry
      const idFrom = k ? b.idEnds[k - 1] : 0;
      const typeFrom = k ? b.typeEnds[k - 1] : 0;
      const same =
        rec.id.length === b.idEnds[k] - idFrom &&
        b.ids.startsWith(rec.id, idFrom) &&
        rec.type.length === b.typeEnds[k] - typeFrom &&
        b.types.startsWith(rec.type, typeFrom);
      if (same) {
        this.kinds![this.joinAt] = b.kinds[k];
        this.texts[this.joinAt] = b.texts.slice(k ? b.textEnds[k - 1] : 0, b.textEnds[k]);
        this.tokens![this.joinAt] = b.tokens[k];
      }
      this.joinAt++;
    }
  }

  hasRow(i: number): boolean {
    return this.kinds !== undefined && i < this.kinds.length && this.kinds[i] !== NO_ROW;
  }

  row(index: SessionIndex, i: number): Row {
    const code = this.kinds && i < this.kinds.length ? this.kinds[i] : NO_ROW;
    if (code === NO_ROW) {
      this.observer.fromIndex?.(i);
      return rowFromIndex(index, i, this.style);
    }
    return { kind: ENTRY_KINDS[code], text: this.texts[i], tokens: this.tokens![i] };
  }

  forget(i: number): void {
    if (this.kinds && i < this.kinds.length) this.kinds[i] = NO_ROW;
    this.texts[i] = '';
  }

  /**
   * Kills the workers (those still reading after an error or a reader that
   * went away, and those done, which may still be exiting) and lets go of
   * them: this process never waits for one.
   */
  close(): void {
    for (const p of this.parts) {
      p.finished = true;
      if (p.worker.exitCode === null && p.worker.signalCode === null) p.worker.kill('SIGKILL');
      p.worker.channel?.unref();
      p.worker.unref();
    }
  }
}
