// Writes dist/o200k.bin, the o200k_base rank table that src/engine/tokens/o200kTable.ts
// loads, from gpt-tokenizer's bpeRanks data (gpt-tokenizer is used only here and by
// the tests, as the oracle). Run by `npm run build` (esbuild.mjs) and `npm run compile`;
// on its own: `node scripts/o200kTable.mjs [OUT]`.
//
// The file is the hash table itself, so that loading it is one read and no pass over its
// 200,000 tokens. Format (little-endian; the 32-bit words first, to be viewed in place):
//   0  "o2kb"                magic
//   4  u32 version (2)
//   8  u32 N                 number of ranks (0 .. N-1)
//   12 u32 B                 number of hash buckets (a power of two)
//   16 u32 R                 bytes of records
//   20 12 bytes of zeros
//   32 u32[B + 1]            where each bucket's records start (and the last one ends) in the records
//   .. u8[R]                 records, bucket by bucket, each [length u8][rank u24][token bytes]; a token
//                            is in the bucket its bytes hash to (hashBytes below, the same function as in
//                            src/engine/tokens/o200kTable.ts). Tokens starting with a BOM are left out
//                            (gpt-tokenizer never finds them, see bpeCount.ts).
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const O200K_TABLE_OUT = path.join(repo, 'dist', 'o200k.bin');

const MAGIC = 'o2kb';
const VERSION = 2;
const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const isValidUtf8 = (bytes) => {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
};
const startsWithBom = (b) => b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf;

/** The tokens' bytes in rank order, checked against what the counter assumes of them. */
function tokensOf(ranks) {
  const tokens = [];
  for (let rank = 0; rank < ranks.length; rank++) {
    const v = ranks[rank];
    if (v === undefined) throw new Error(`o200k table: no token for rank ${rank}`);
    const bytes = typeof v === 'string' ? utf8.encode(v) : Uint8Array.from(v);
    if (bytes.length === 0 || bytes.length > 255) throw new Error(`o200k table: rank ${rank} has ${bytes.length} bytes`);
    // gpt-tokenizer keeps a token as text exactly when its bytes are valid UTF-8 not starting with a BOM
    // (it decodes with a TextDecoder that drops a leading BOM); the counter relies on that (bpeCount.ts).
    const asText = isValidUtf8(bytes) && !startsWithBom(bytes);
    if ((typeof v === 'string') !== asText) throw new Error(`o200k table: rank ${rank} is stored as ${typeof v}, expected ${asText ? 'text' : 'bytes'}`);
    if (startsWithBom(bytes) && !isValidUtf8(bytes)) throw new Error(`o200k table: rank ${rank} starts with a BOM but is not UTF-8`);
    tokens.push(bytes);
  }
  for (let b = 0; b < 256; b++) if (!tokens.some((t) => t.length === 1 && t[0] === b)) throw new Error(`o200k table: no token for byte ${b}`);
  return tokens;
}

/** FNV-1a over bytes[start, end), with a final mix for the low bits (as in o200kTable.ts). */
function hashBytes(bytes, start, end) {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  return h ^ (h >>> 13);
}

/** The table file's bytes. */
export function o200kTableBytes() {
  const require = createRequire(import.meta.url);
  const ranks = require('gpt-tokenizer/bpeRanks/o200k_base').default;
  const tokens = tokensOf(ranks);
  let buckets = 1;
  while (buckets * 2 < tokens.length) buckets <<= 1; // about 1.5 tokens a bucket
  const inBucket = Array.from({ length: buckets }, () => []);
  tokens.forEach((t, rank) => {
    if (!startsWithBom(t)) inBucket[hashBytes(t, 0, t.length) & (buckets - 1)].push(rank);
  });
  const recordBytes = tokens.reduce((s, t) => s + (startsWithBom(t) ? 0 : 4 + t.length), 0);
  const startsAt = 32;
  const recordsAt = startsAt + 4 * (buckets + 1);
  const out = Buffer.alloc(recordsAt + recordBytes);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(VERSION, 4);
  out.writeUInt32LE(tokens.length, 8);
  out.writeUInt32LE(buckets, 12);
  out.writeUInt32LE(recordBytes, 16);
  let at = 0;
  inBucket.forEach((rankList, b) => {
    out.writeUInt32LE(at, startsAt + 4 * b);
    for (const rank of rankList) {
      const t = tokens[rank];
      out[recordsAt + at] = t.length;
      out.writeUIntLE(rank, recordsAt + at + 1, 3);
      out.set(t, recordsAt + at + 4);
      at += 4 + t.length;
    }
  });
  out.writeUInt32LE(at, startsAt + 4 * buckets);
  return out;
}

/** Writes the table (atomically: a build reading it never sees half a file). */
export function writeO200kTable(file = O200K_TABLE_OUT) {
  const bytes = o200kTableBytes();
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, file);
  return file;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // Silent on success, as the build is.
  writeO200kTable(process.argv[2] ? path.resolve(process.argv[2]) : O200K_TABLE_OUT);
}
