/**
 * A worker process of `arbor tree` on a large session (its own bundle,
 * dist/treeFactsWorker.js, started by workerRowFacts.ts with the part it
 * reads as its arguments): while the main thread indexes the file, this
 * reads it too and makes the row of every entry line (parse, preview,
 * tokens: most of the command's work), sending them in file order, in
 * batches, keyed by where each line starts (workerRowFacts.ts joins them to
 * the index). Its lines are read by the engine's line reading
 * (forEachEntryLine: blocks through one buffer, the loaders' trim, a line
 * too long to parse passed over without being held). It only reads: every
 * decision about the file (which lines are entries, their tree) stays with
 * the main thread's index.
 */
import { checkEntryText } from '../../engine/session/parseLine';
import { parsePlainMessageLine } from '../../engine/session/plainMessageLine';
import { entryTypeOf } from '../../engine/session/entryKinds';
import { forEachEntryLine } from '../../engine/session/lineReader';
import { ENTRY_KINDS, type EntryKind } from '../../engine/tree/entryPreview';
import { describeRow, type RowStyle } from './treeRowFacts';
import type { SessionEntry } from '../../engine/session/types';

export interface FactsWorkerData {
  file: string;
  style: RowStyle;
  /** The lines this worker reads: those starting in [from, to) (the file split between workers). */
  from: number;
  to: number;
}

/** Rows of the entry lines read so far, in file order, as few objects as possible (sent over the process channel, typed arrays whole). */
export interface FactsBatch {
  type: 'facts';
  /** File offset where each line starts (after its leading blanks). */
  starts: Float64Array;
  /** The ids joined; idEnds[k] is where the k-th ends. */
  ids: string;
  idEnds: Int32Array;
  /** The entry types joined (a row joins a record of the same type only); typeEnds[k] is where the k-th ends. */
  types: string;
  typeEnds: Int32Array;
  /** Index into ENTRY_KINDS. */
  kinds: Uint8Array;
  texts: string;
  textEnds: Int32Array;
  tokens: Float64Array;
  /** Every line starting before this offset has been read (its row is in this batch or an earlier one, or it has none). */
  through: number;
}

export type FactsMessage = FactsBatch | { type: 'done'; through: number } | { type: 'failed'; message: string };

/** The argument before the worker's data (JSON of FactsWorkerData), so the script does nothing when loaded any other way. */
export const FACTS_WORKER_ARG = '--arbor-tree-facts';

const BATCH = 4096;
const KIND_CODES = new Map<EntryKind, number>(ENTRY_KINDS.map((k, i) => [k, i]));

class Batcher {
  private starts: number[] = [];
  private ids: string[] = [];
  private types: string[] = [];
  private kinds: number[] = [];
  private texts: string[] = [];
  private tokens: number[] = [];

  constructor(private readonly send: (m: FactsMessage) => void) {}

  get size(): number {
    return this.starts.length;
  }

  add(start: number, id: string, type: string, kind: EntryKind, text: string, tokens: number): void {
    this.starts.push(start);
    this.ids.push(id);
    this.types.push(type);
    this.kinds.push(KIND_CODES.get(kind) ?? KIND_CODES.get('unknown')!);
    this.texts.push(text);
    this.tokens.push(tokens);
  }

  flush(through: number): void {
    const batch: FactsBatch = {
      type: 'facts',
      starts: Float64Array.from(this.starts),
      ids: this.ids.join(''),
      idEnds: ends(this.ids),
      types: this.types.join(''),
      typeEnds: ends(this.types),
      kinds: Uint8Array.from(this.kinds),
      texts: this.texts.join(''),
      textEnds: ends(this.texts),
      tokens: Float64Array.from(this.tokens),
      through,
    };
    this.starts = [];
    this.ids = [];
    this.types = [];
    this.kinds = [];
    this.texts = [];
    this.tokens = [];
    this.send(batch);
  }
}

function ends(parts: string[]): Int32Array {
  const out = new Int32Array(parts.length);
  let at = 0;
  for (let k = 0; k < parts.length; k++) out[k] = at += parts[k].length;
  return out;
}

/** Sends one message; `sent` is called once it is written to the channel (or failed to be). */
export type SendFacts = (m: FactsMessage, sent: () => void) => void;

/**
 * Batches sent and not yet written to the channel, at most, before the
 * reading waits for them: a batch is written only while this process's event
 * loop runs and the parent reads, so without waiting every row would queue
 * up here and reach the parent only once the whole part was read.
 */
const MAX_UNSENT = 4;

/** Reads the file's lines in [from, to) and sends the rows of its entries as it reads (see the module comment). */
export async function makeRows(data: FactsWorkerData, send: SendFacts): Promise<void> {
  let unsent = 0;
  let drained: (() => void) | undefined;
  const post = (m: FactsMessage) => {
    unsent++;
    send(m, () => {
      unsent--;
      if (unsent <= MAX_UNSENT && drained) {
        drained();
        drained = undefined;
      }
    });
  };
  const batcher = new Batcher(post);
  await forEachEntryLine(data.file, {
    from: data.from,
    to: data.to,
    line: (text, start, version) => {
      // A plain message line is read without JSON.parse (the same entry, faster); any other is parsed and checked.
      let entry: SessionEntry | undefined = parsePlainMessageLine(text, version);
      if (!entry) {
        const checked = checkEntryText(text, version);
        if (!checked.ok) return;
        entry = checked.entry;
      }
      const row = describeRow(entry, data.style);
      batcher.add(start, entry.id, entryTypeOf(entry), row.kind, row.text, row.tokens);
      if (batcher.size >= BATCH) batcher.flush(start + 1);
    },
    read: async (through) => {
      batcher.flush(through);
      if (unsent > MAX_UNSENT) await new Promise<void>((resolve) => (drained = resolve));
    },
  });
  batcher.flush(Number.MAX_SAFE_INTEGER);
  post({ type: 'done', through: Number.MAX_SAFE_INTEGER });
}

/** The data the parent handed this worker process (JSON after FACTS_WORKER_ARG), checked; undefined: not valid. */
export function factsWorkerData(d: unknown): FactsWorkerData | undefined {
  if (typeof d !== 'object' || d === null || !('file' in d) || !('style' in d) || !('from' in d) || !('to' in d)) return undefined;
  const { file, style, from, to } = d;
  if (typeof file !== 'string' || typeof from !== 'number' || typeof to !== 'number') return undefined;
  if (typeof style !== 'object' || style === null || !('estimator' in style) || !('json' in style)) return undefined;
  const { estimator, json } = style;
  if ((estimator !== 'chars' && estimator !== 'tokenizer') || typeof json !== 'boolean') return undefined;
  return { file, from, to, style: { estimator, json } };
}

/** Run as a worker (forked with FACTS_WORKER_ARG and the data): makes the rows and sends them to the parent. */
async function runAsWorker(): Promise<void> {
  const at = process.argv.indexOf(FACTS_WORKER_ARG);
  const send = process.send?.bind(process);
  if (!send || at < 2 || at + 1 >= process.argv.length) return;
  // The parent may be gone or done (its output closed, as in `arbor tree | head -1`): a send that fails, or the
  // channel closing, ends this worker quietly instead of an unhandled EPIPE on the shared stderr.
  process.on('error', () => process.exit(0));
  process.on('disconnect', () => process.exit(0));
  try {
    const data = factsWorkerData(JSON.parse(process.argv[at + 1]));
    if (!data) throw new Error('arbor tree worker: the data it was started with is not valid');
    await makeRows(data, (m, sent) => send(m, undefined, undefined, () => sent()));
  } catch (err) {
    send({ type: 'failed', message: err instanceof Error ? err.message : String(err) } satisfies FactsMessage);
  }
  // Nothing to wait for once the messages are written: the channel lets this process end (or the tree kills it first).
  process.channel?.unref();
}

void runAsWorker();
