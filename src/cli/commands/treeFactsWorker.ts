/**
 * The worker thread of `arbor tree` on a large session (its own bundle,
 * dist/treeFactsWorker.js): while the main thread indexes the file, this
 * reads it too and makes the row of every entry line (parse, preview,
 * tokens: most of the command's work), sending them in file order, in
 * batches, keyed by where each line starts (workerRowFacts.ts joins them to
 * the index). It reads the file in chunks through one buffer; a line too
 * long to parse is passed over without being held. It only reads: every
 * decision about the file (which lines are entries, their tree) stays with
 * the main thread's index.
 */
import { closeSync, readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { checkEntryText } from '../../engine/session/parseLine';
import { findHeader, trimEnd, trimStart } from '../../engine/session/lineReader';
import { MAX_PARSED_ENTRY_BYTES } from '../../engine/session/entryLimits';
import { openRegularFileSync } from '../../engine/session/sessionFile';
import { ENTRY_KINDS, type EntryKind } from '../../engine/tree/entryPreview';
import { describeRow, type RowStyle } from './treeRowFacts';

export interface FactsWorkerData {
  file: string;
  style: RowStyle;
  /** The lines this worker reads: those starting in [from, to) (the file split between workers). */
  from: number;
  to: number;
}

/** Rows of the entry lines read so far, in file order, as few objects as possible (transferred, not copied). */
export interface FactsBatch {
  type: 'facts';
  /** File offset where each line starts (after its leading blanks). */
  starts: Float64Array;
  /** The ids joined; idEnds[k] is where the k-th ends. */
  ids: string;
  idEnds: Int32Array;
  /** Index into ENTRY_KINDS. */
  kinds: Uint8Array;
  texts: string;
  textEnds: Int32Array;
  tokens: Float64Array;
  /** Every line starting before this offset has been read (its row is in this batch or an earlier one, or it has none). */
  through: number;
}

export type FactsMessage = FactsBatch | { type: 'done'; through: number } | { type: 'failed'; message: string };

const CHUNK = 4 * 1024 * 1024;
const BATCH = 4096;
const KIND_CODES = new Map<EntryKind, number>(ENTRY_KINDS.map((k, i) => [k, i]));

class Batcher {
  private starts: number[] = [];
  private ids: string[] = [];
  private kinds: number[] = [];
  private texts: string[] = [];
  private tokens: number[] = [];

  constructor(private readonly send: (m: FactsMessage, transfer: ArrayBuffer[]) => void) {}

  get size(): number {
    return this.starts.length;
  }

  add(start: number, id: string, kind: EntryKind, text: string, tokens: number): void {
    this.starts.push(start);
    this.ids.push(id);
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
      kinds: Uint8Array.from(this.kinds),
      texts: this.texts.join(''),
      textEnds: ends(this.texts),
      tokens: Float64Array.from(this.tokens),
      through,
    };
    this.starts = [];
    this.ids = [];
    this.kinds = [];
    this.texts = [];
    this.tokens = [];
    this.send(batch, [batch.starts.buffer, batch.idEnds.buffer, batch.kinds.buffer, batch.textEnds.buffer, batch.tokens.buffer] as ArrayBuffer[]);
  }
}

function ends(parts: string[]): Int32Array {
  const out = new Int32Array(parts.length);
  let at = 0;
  for (let k = 0; k < parts.length; k++) out[k] = at += parts[k].length;
  return out;
}

/** Where the first line starting at or after `offset` starts (the file's length when none does). */
function lineStartFrom(fd: number, offset: number): number {
  if (offset <= 0) return 0;
  const block = Buffer.allocUnsafe(64 * 1024);
  for (let at = offset - 1; ; ) {
    const n = readSync(fd, block, 0, block.length, at);
    if (n === 0) return at;
    const nl = block.subarray(0, n).indexOf(10);
    if (nl >= 0) return at + nl + 1;
    at += n;
  }
}

/** Reads the file and sends the rows of its entry lines in [from, to) (see the module comment). */
export function makeRows(data: FactsWorkerData, send: (m: FactsMessage, transfer: ArrayBuffer[]) => void): void {
  const batcher = new Batcher(send);
  const fd = openRegularFileSync(data.file);
  try {
    let buf = Buffer.allocUnsafe(CHUNK);
    let len = 0; // bytes in buf
    let bufOffset = 0; // file offset of buf[0]
    let version: number | undefined; // known once the header is read
    let skipping = false; // inside a line too long to parse: its bytes are dropped up to its end
    for (;;) {
      const n = readSync(fd, buf, len, buf.length - len, bufOffset + len);
      len += n;
      const eof = n === 0;
      const view = buf.subarray(0, len);
      let pos = 0;
      if (version === undefined) {
        const found = findHeader(data.file, view, view.lastIndexOf(10) + 1, eof);
        if (found !== 'need-more') {
          version = typeof found.header.version === 'number' ? found.header.version : 1;
          // A version 1 file's entries are migrated as a whole by the loader: its rows come from the index.
          if (version < 2) break;
          pos = found.next;
          const first = lineStartFrom(fd, data.from);
          if (first > bufOffset + pos) {
            // A worker for a later part of the file: on from its first line.
            bufOffset = first;
            len = 0;
            continue;
          }
        } else if (eof) break;
      }
      let past = false; // at a line that starts at or after `to`: the next worker's
      while (version !== undefined && pos < len) {
        if (bufOffset + pos >= data.to) {
          past = true;
          break;
        }
        const nl = view.indexOf(10, pos);
        if (nl < 0 && !eof) break;
        const lineEnd = nl < 0 ? len : nl;
        if (skipping) skipping = false;
        else {
          const start = trimStart(view, pos, lineEnd);
          const end = trimEnd(view, start, lineEnd);
          if (end > start && end - start <= MAX_PARSED_ENTRY_BYTES) {
            const checked = checkEntryText(view.toString('utf8', start, end), version);
            if (checked.ok) {
              const row = describeRow(checked.entry, data.style);
              batcher.add(bufOffset + start, checked.entry.id, row.kind, row.text, row.tokens);
              if (batcher.size >= BATCH) batcher.flush(bufOffset + lineEnd + 1);
            }
          }
        }
        pos = lineEnd + 1;
      }
      if (eof || past) break;
      if (skipping) {
        bufOffset += len; // still inside the long line
        len = 0;
        continue;
      }
      const carry = Math.max(0, len - pos);
      if (carry > MAX_PARSED_ENTRY_BYTES) {
        skipping = true;
        bufOffset += len;
        len = 0;
        continue;
      }
      if (carry * 2 > buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, pos, len);
        buf = bigger;
      } else buf.copy(buf, 0, pos, len);
      bufOffset += len - carry;
      len = carry;
      batcher.flush(bufOffset);
    }
    batcher.flush(bufOffset + len);
    send({ type: 'done', through: Number.MAX_SAFE_INTEGER }, []);
  } finally {
    closeSync(fd);
  }
}

if (parentPort && (workerData as { arborTreeFacts?: FactsWorkerData } | undefined)?.arborTreeFacts) {
  const port = parentPort;
  const data = (workerData as { arborTreeFacts: FactsWorkerData }).arborTreeFacts;
  try {
    makeRows(data, (m, transfer) => port.postMessage(m, transfer));
  } catch (err) {
    port.postMessage({ type: 'failed', message: err instanceof Error ? err.message : String(err) } satisfies FactsMessage);
  }
}
