import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { openRegularFile } from '../sessionFile';

/**
 * The transcript a Claude Code `--fork-session` file was forked from. Claude Code records no link: the fork
 * copies the origin's records ahead of its own, keeping their `uuid`s (their `sessionId` becomes the fork's).
 * The origin is the other transcript of the same project folder holding the first copied uuid; when several
 * do (another fork of the same origin, a fork of the fork), the one holding the most of the copied uuids,
 * then the oldest file. Read only; bounded by SCAN_BUDGET_BYTES over the whole folder.
 */

/** Bytes of the project folder read at most to find the origin (more: no link is made). */
export const SCAN_BUDGET_BYTES = 256 * 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;
const UUID = /^[0-9a-fA-F-]{8,64}$/;

export interface ForkOriginOptions {
  /** The fork's file (its siblings are searched). */
  file: string;
  /** The uuids of the records the fork copied, in file order. */
  copiedUuids: readonly string[];
  signal?: AbortSignal;
}

export async function claudeForkOrigin({ file, copiedUuids, signal }: ForkOriginOptions): Promise<string | undefined> {
  const first = copiedUuids[0];
  if (first === undefined || !UUID.test(first)) return undefined;
  const dir = path.dirname(file);
  let names: string[];
  try {
    names = (await fsp.readdir(dir, { withFileTypes: true })).filter((d) => d.isFile() && d.name.endsWith('.jsonl')).map((d) => d.name);
  } catch {
    return undefined;
  }
  const self = path.basename(file);
  const budget = { left: SCAN_BUDGET_BYTES };
  const needle = Buffer.from(`"uuid":"${first}"`);
  const candidates: string[] = [];
  for (const name of names.sort()) {
    if (name === self) continue;
    const other = path.join(dir, name);
    if (await holds(other, needle, budget, signal)) candidates.push(other);
    if (budget.left <= 0) return undefined;
  }
  if (candidates.length <= 1) return candidates[0];
  const wanted = new Set(copiedUuids);
  let best: { file: string; shared: number; born: number } | undefined;
  for (const c of candidates) {
    const shared = await sharedUuids(c, wanted, budget, signal);
    if (budget.left <= 0) return undefined;
    const st = await fsp.stat(c).catch(() => undefined);
    const born = st ? st.birthtimeMs || st.mtimeMs : Infinity;
    if (!best || shared > best.shared || (shared === best.shared && born < best.born)) best = { file: c, shared, born };
  }
  return best?.file;
}

/** Reads a file a chunk at a time (charged to the budget); `each` sees every chunk with the bytes carried from the last. */
async function scan(
  file: string,
  budget: { left: number },
  signal: AbortSignal | undefined,
  each: (bytes: Buffer) => { stop: boolean; carry: number },
): Promise<void> {
  let fh: Awaited<ReturnType<typeof openRegularFile>>;
  try {
    fh = await openRegularFile(file);
  } catch {
    return;
  }
  try {
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    let carry = Buffer.alloc(0);
    for (let position = 0; budget.left > 0;) {
      signal?.throwIfAborted();
      const { bytesRead } = await fh.read(buf, 0, buf.length, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      budget.left -= bytesRead;
      const bytes = carry.length ? Buffer.concat([carry, buf.subarray(0, bytesRead)]) : buf.subarray(0, bytesRead);
      const r = each(bytes);
      if (r.stop) return;
      carry = Buffer.from(bytes.subarray(bytes.length - Math.min(r.carry, bytes.length)));
    }
  } finally {
    await fh.close();
  }
}

/** Whether the file holds `needle` (a chunk keeps the needle's length less one of the last, so none is missed at a seam). */
async function holds(file: string, needle: Buffer, budget: { left: number }, signal?: AbortSignal): Promise<boolean> {
  let found = false;
  await scan(file, budget, signal, (bytes) => {
    found = bytes.indexOf(needle) >= 0;
    return { stop: found, carry: needle.length - 1 };
  });
  return found;
}

/** How many of `wanted` the file's records carry as their `uuid` (whole lines only: a chunk's unfinished line is carried). */
async function sharedUuids(file: string, wanted: ReadonlySet<string>, budget: { left: number }, signal?: AbortSignal): Promise<number> {
  const seen = new Set<string>();
  await scan(file, budget, signal, (bytes) => {
    const end = bytes.lastIndexOf(10) + 1;
    const text = bytes.toString('utf8', 0, end);
    for (const m of text.matchAll(/"uuid":"([0-9a-fA-F-]{8,64})"/g)) if (wanted.has(m[1])) seen.add(m[1]);
    // A line longer than the carry bound is read on from its last bytes (a uuid is whole or not counted).
    return { stop: false, carry: Math.min(bytes.length - end, CHUNK_BYTES) };
  });
  return seen.size;
}
