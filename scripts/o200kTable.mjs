// Writes dist/o200k.bin, the o200k_base rank table that src/engine/tokens/o200kTable.ts
// loads, from gpt-tokenizer's o200k_base rank data (a devDependency: its
// data/o200k_base.tiktoken, read from node_modules, so the build is offline and
// deterministic). OpenAI's reference tokenizer, tiktoken (also a devDependency), stays the
// oracle: the tests compare this table with tiktoken's ranks entry by entry and every count
// with tiktoken's. Run by `npm run build` (esbuild.mjs) and `npm run compile`; on its own:
// `node scripts/o200kTable.mjs [OUT]`.
//
// The file is the hash table itself, so that loading it is one read and no pass over its
// 200,000 tokens. Format (little-endian; the 32-bit words first, to be viewed in place):
//   0  "o2kb"                magic
//   4  u32 version (3)
//   8  u32 N                 number of ranks (0 .. N-1)
//   12 u32 B                 number of hash buckets (a power of two)
//   16 u32 R                 bytes of records
//   20 12 bytes of zeros
//   32 u32[B + 1]            where each bucket's records start (and the last one ends) in the records
//   .. u8[R]                 records, bucket by bucket, each [length u8][rank u24][token bytes]; a token
//                            is in the bucket its bytes hash to (bucketOfBytes, src/engine/tokens/o200kHash.js,
//                            the function the counter looks tokens up with).
// Version 3: every token, from its bytes (version 2 read gpt-tokenizer's tokens as JavaScript strings,
// which left out those starting with a BOM).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const O200K_TABLE_OUT = path.join(repo, 'dist', 'o200k.bin');

const MAGIC = 'o2kb';
const VERSION = 3;
const require = createRequire(import.meta.url);
const { bucketOfBytes } = require('../src/engine/tokens/o200kHash.js');

/** Where the build reads the ranks: gpt-tokenizer's o200k_base data, one "<token bytes in base64> <rank>" a line. */
export const O200K_RANKS_FILE = require.resolve('gpt-tokenizer/data/o200k_base.tiktoken');

/**
 * The tokens' bytes in rank order, from a .tiktoken rank file (line i is "<base64> i"), checked against what
 * the counter assumes of them; anything else is an error naming the file and line.
 */
export function tokensOf(file = O200K_RANKS_FILE) {
  const lines = readFileSync(file, 'latin1').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const tokens = lines.map((line, rank) => {
    const bad = (why) => new Error(`o200k table: ${file}:${rank + 1}: ${why}`);
    const space = line.indexOf(' ');
    const b64 = line.slice(0, space);
    if (space < 0 || line.slice(space + 1) !== String(rank)) throw bad(`expected "<token in base64> ${rank}"`);
    const bytes = Buffer.from(b64, 'base64');
    if (bytes.length === 0 || bytes.length > 255 || bytes.toString('base64') !== b64) throw bad(`the token is not 1 to 255 bytes in base64`);
    return bytes;
  });
  const seen = new Set();
  tokens.forEach((t, rank) => {
    const size = seen.add(t.toString('latin1')).size;
    if (size === rank) throw new Error(`o200k table: ${file}:${rank + 1}: a token an earlier line has`);
  });
  for (let b = 0; b < 256; b++) if (!seen.has(String.fromCharCode(b))) throw new Error(`o200k table: ${file}: no token for byte ${b}`);
  return tokens;
}

/** The table file's bytes. */
export function o200kTableBytes(ranksFile = O200K_RANKS_FILE) {
  const tokens = tokensOf(ranksFile);
  let buckets = 1;
  while (buckets * 2 < tokens.length) buckets <<= 1; // about 1.5 tokens a bucket
  const inBucket = Array.from({ length: buckets }, () => []);
  tokens.forEach((t, rank) => inBucket[bucketOfBytes(t, 0, t.length, buckets - 1)].push(rank));
  const recordBytes = tokens.reduce((s, t) => s + 4 + t.length, 0);
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
