// Writes dist/o200k.bin, the o200k_base rank table that src/engine/tokens/o200kTable.ts
// loads, from gpt-tokenizer's bpeRanks data (gpt-tokenizer is used only here and by
// the tests, as the oracle). Run by `npm run build` (esbuild.mjs) and `npm run compile`;
// on its own: `node scripts/o200kTable.mjs [OUT]`.
//
// The file holds the hash table too, so that loading it is one read and no pass over
// its 200,000 tokens. Format (little-endian, 32-bit words first so they can be viewed in place):
//   0  "o2kb"                magic
//   4  u32 version (1)
//   8  u32 N                 number of ranks (0 .. N-1)
//   12 u32 S                 number of hash slots (a power of two)
//   16 u32 T                 total bytes of all tokens
//   20 12 bytes of zeros
//   32 i32[N + 1]            offsets: the token of rank r is bytes[offsets[r], offsets[r + 1])
//   .. i32[S]                slots: a rank, or -1; a token's bytes hash (hashBytes below, the same
//                            function as in src/engine/tokens/o200kTable.ts) to its first slot, then
//                            linear probing. Tokens starting with a BOM are left out (see bpeCount.ts).
//   .. u8[T]                 the tokens' bytes, concatenated in rank order
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const O200K_TABLE_OUT = path.join(repo, 'dist', 'o200k.bin');

const MAGIC = 'o2kb';
const VERSION = 1;
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
  const n = tokens.length;
  let slots = 1;
  while (slots < n * 2) slots <<= 1;
  const total = tokens.reduce((s, t) => s + t.length, 0);
  const header = 32;
  const out = Buffer.alloc(header + 4 * (n + 1) + 4 * slots + total);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(VERSION, 4);
  out.writeUInt32LE(n, 8);
  out.writeUInt32LE(slots, 12);
  out.writeUInt32LE(total, 16);
  const offsetsAt = header;
  const slotsAt = offsetsAt + 4 * (n + 1);
  const bytesAt = slotsAt + 4 * slots;
  const slotRank = new Int32Array(slots).fill(-1);
  let at = 0;
  tokens.forEach((t, rank) => {
    out.writeInt32LE(at, offsetsAt + 4 * rank);
    out.set(t, bytesAt + at);
    at += t.length;
    // gpt-tokenizer never finds a token that starts with a BOM (see bpeCount.ts): neither does the table.
    if (startsWithBom(t)) return;
    let slot = hashBytes(t, 0, t.length) & (slots - 1);
    while (slotRank[slot] !== -1) slot = (slot + 1) & (slots - 1);
    slotRank[slot] = rank;
  });
  out.writeInt32LE(at, offsetsAt + 4 * n);
  slotRank.forEach((r, i) => out.writeInt32LE(r, slotsAt + 4 * i));
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
  const file = writeO200kTable(process.argv[2] ? path.resolve(process.argv[2]) : O200K_TABLE_OUT);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}
