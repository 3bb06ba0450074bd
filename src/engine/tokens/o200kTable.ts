/**
 * The o200k_base rank table: a hash from a token's bytes to its rank, so that
 * a byte range of a buffer is looked up without making a string.
 *
 * The table file is generated at build time from gpt-tokenizer's o200k_base
 * rank data by scripts/o200kTable.mjs (its format is described there; the
 * hash is o200kHash.js, shared; the tests check it entry by entry against
 * tiktoken, OpenAI's reference tokenizer) into dist/o200k.bin,
 * next to the bundles. The file is the hash table itself (buckets of
 * records), so loading it is one readFileSync of its 2.7 MB and typed-array
 * views of it. Building a hash of the 200,000 tokens at load took 30 to 60 ms
 * on a 2-core VM, mostly before the JIT compiled the loop; there, reading the
 * file costs about 3 ms a MB, most of it faulting in fresh memory, hence a
 * compact file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { endianness } from 'node:os';
import * as path from 'node:path';
import { bucketOfAscii, bucketOfBytes } from './o200kHash';

export const O200K_TABLE_FILE = 'o200k.bin';
const MAGIC = 0x626b326f; // "o2kb", little-endian
const VERSION = 3;
const HEADER = 32;

export interface RankTable {
  readonly file: string;
  /** Number of ranks. */
  readonly size: number;
  /** Rank of bytes[start, end), or -1. */
  rank(bytes: Uint8Array, start: number, end: number): number;
  /**
   * Rank of text[start, end) read as bytes when it is all ASCII (each
   * character its own byte: no UTF-8 copy is made), -1 when it is not a
   * token, NOT_ASCII when a character is not ASCII.
   */
  rankOfAscii(text: string, start: number, end: number): number;
}

/** What rankOfAscii returns for text with a character that is not ASCII. */
export const NOT_ASCII = -2;

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
  throw new Error(
    `the o200k token table is missing: looked for ${candidates.join(' and ')} (\`npm run build\` or \`node scripts/o200kTable.mjs\` writes it)`,
  );
}

/** Loads the table file (default: the first of tablePathCandidates() that exists): one read, then views of it. */
export function loadRankTable(file = findTable()): RankTable {
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch (err) {
    throw new Error(`cannot read the o200k token table ${file}: ${(err as Error).message}`);
  }
  const bad = (why: string) =>
    new Error(`the o200k token table ${file} is invalid (${why}): rebuild it with \`node scripts/o200kTable.mjs\``);
  if (data.length < HEADER || data.readUInt32LE(0) !== MAGIC) throw bad('not a table');
  if (data.readUInt32LE(4) !== VERSION) throw bad(`version ${data.readUInt32LE(4)}, expected ${VERSION}`);
  const n = data.readUInt32LE(8);
  const bucketCount = data.readUInt32LE(12);
  const recordBytes = data.readUInt32LE(16);
  const recordsAt = HEADER + 4 * (bucketCount + 1);
  if (data.length !== recordsAt + recordBytes) throw bad(`${data.length} bytes, expected ${recordsAt + recordBytes}`);
  if (bucketCount & (bucketCount - 1)) throw bad(`${bucketCount} buckets`);
  // The bucket starts are viewed in place: the file is little-endian, like every platform VS Code runs on.
  if (endianness() !== 'LE')
    throw new Error(`the o200k token table ${file} is little-endian: this ${endianness()} platform cannot read it`);
  const words = data.byteOffset % 4 === 0 ? data : Buffer.from(data);
  const bucketStarts = new Uint32Array(words.buffer, words.byteOffset + HEADER, bucketCount + 1);
  const records = new Uint8Array(words.buffer, words.byteOffset + recordsAt, recordBytes);
  if (bucketStarts[0] !== 0 || bucketStarts[bucketCount] !== recordBytes) throw bad('its buckets do not add up');
  const mask = bucketCount - 1;

  function rank(key: Uint8Array, start: number, end: number): number {
    const len = end - start;
    const b = bucketOfBytes(key, start, end, mask);
    for (let p = bucketStarts[b], last = bucketStarts[b + 1]; p < last; p += 4 + records[p]) {
      if (records[p] !== len) continue;
      let i = 0;
      while (i < len && records[p + 4 + i] === key[start + i]) i++;
      if (i === len) return records[p + 1] | (records[p + 2] << 8) | (records[p + 3] << 16);
    }
    return -1;
  }
  function rankOfAscii(text: string, start: number, end: number): number {
    // The characters are the bytes while they are ASCII.
    const b = bucketOfAscii(text, start, end, mask);
    if (b < 0) return NOT_ASCII;
    const len = end - start;
    for (let p = bucketStarts[b], last = bucketStarts[b + 1]; p < last; p += 4 + records[p]) {
      if (records[p] !== len) continue;
      let i = 0;
      while (i < len && records[p + 4 + i] === text.charCodeAt(start + i)) i++;
      if (i === len) return records[p + 1] | (records[p + 2] << 8) | (records[p + 3] << 16);
    }
    return -1;
  }
  // The generator hashed the file with the same function (o200kHash.js): every byte (a token each) must be found.
  const byte = new Uint8Array(1);
  for (let c = 0; c < 256; c++) {
    byte[0] = c;
    if (rank(byte, 0, 1) < 0) throw bad(`byte ${c} is not found where it was hashed`);
  }
  return { file, size: n, rank, rankOfAscii };
}
