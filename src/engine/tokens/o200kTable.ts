/**
 * The o200k_base rank table: every token's bytes by rank, with an
 * open-addressing hash from a token's bytes to its rank, so that a byte range
 * of a buffer is looked up without making a string.
 *
 * The table file is generated at build time from gpt-tokenizer's data by
 * scripts/o200kTable.mjs (its format is described there) into dist/o200k.bin,
 * next to the bundles. It holds the hash table as well, so loading it is one
 * readFileSync of its 4 MB and typed-array views of it: a few milliseconds
 * (building the hash of 200,000 tokens at load took 30 to 60 ms, mostly
 * before the JIT had compiled the loop).
 */
import { existsSync, readFileSync } from 'node:fs';
import { endianness } from 'node:os';
import * as path from 'node:path';

export const O200K_TABLE_FILE = 'o200k.bin';
const MAGIC = 0x626b326f; // "o2kb", little-endian
const VERSION = 1;
const HEADER = 32;

export interface RankTable {
  readonly file: string;
  /** Number of ranks. */
  readonly size: number;
  /** Rank of bytes[start, end), or -1. */
  rank(bytes: Uint8Array, start: number, end: number): number;
}

/**
 * Where the table may be: next to the bundle (dist/extension.js, dist/cli.js),
 * or in the repository's dist/ from the tsc output (out/src/engine/tokens/).
 */
export function tablePathCandidates(dir = __dirname): string[] {
  return [path.join(dir, O200K_TABLE_FILE), path.resolve(dir, '..', '..', '..', '..', 'dist', O200K_TABLE_FILE)];
}

export function findTable(candidates = tablePathCandidates()): string {
  const found = candidates.find((p) => existsSync(p));
  if (found) return found;
  throw new Error(`the o200k token table is missing: looked for ${candidates.join(' and ')} (\`npm run build\` or \`node scripts/o200kTable.mjs\` writes it)`);
}

/** FNV-1a over bytes[start, end), with a final mix for the low bits (scripts/o200kTable.mjs hashes the table with the same function). */
function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  return h ^ (h >>> 13);
}

/** Loads the table file (default: the first of tablePathCandidates() that exists): one read, then views of it. */
export function loadRankTable(file = findTable()): RankTable {
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch (err) {
    throw new Error(`cannot read the o200k token table ${file}: ${(err as Error).message}`);
  }
  const bad = (why: string) => new Error(`the o200k token table ${file} is invalid (${why}): rebuild it with \`node scripts/o200kTable.mjs\``);
  if (data.length < HEADER || data.readUInt32LE(0) !== MAGIC) throw bad('not a table');
  if (data.readUInt32LE(4) !== VERSION) throw bad(`version ${data.readUInt32LE(4)}, expected ${VERSION}`);
  const n = data.readUInt32LE(8);
  const slotCount = data.readUInt32LE(12);
  const total = data.readUInt32LE(16);
  const slotsAt = HEADER + 4 * (n + 1);
  const bytesAt = slotsAt + 4 * slotCount;
  if (data.length !== bytesAt + total) throw bad(`${data.length} bytes, expected ${bytesAt + total}`);
  if (slotCount & (slotCount - 1) || slotCount < n) throw bad(`${slotCount} slots for ${n} tokens`);
  // The 32-bit words are viewed in place: the file is little-endian, like every platform VS Code runs on.
  if (endianness() !== 'LE') throw new Error(`the o200k token table ${file} is little-endian: this ${endianness()} platform cannot read it`);
  const words = data.byteOffset % 4 === 0 ? data : Buffer.from(data);
  const offsets = new Int32Array(words.buffer, words.byteOffset + HEADER, n + 1);
  const slots = new Int32Array(words.buffer, words.byteOffset + slotsAt, slotCount);
  const bytes = new Uint8Array(words.buffer, words.byteOffset + bytesAt, total);
  if (offsets[0] !== 0 || offsets[n] !== total) throw bad('token offsets do not add up');
  const mask = slotCount - 1;

  function rank(key: Uint8Array, start: number, end: number): number {
    const len = end - start;
    for (let slot = hashBytes(key, start, end) & mask; ; slot = (slot + 1) & mask) {
      const r = slots[slot];
      if (r < 0) return -1;
      const s = offsets[r];
      if (offsets[r + 1] - s !== len) continue;
      let i = 0;
      while (i < len && bytes[s + i] === key[start + i]) i++;
      if (i === len) return r;
    }
  }
  // The file was hashed by the generator: every single byte must be found at its rank (its first 256).
  for (let r = 0; r < 256 && r < n; r++) {
    if (rank(bytes, offsets[r], offsets[r + 1]) !== r) throw bad(`rank ${r} is not found where it was hashed`);
  }
  return { file, size: n, rank };
}
