// @ts-check
/**
 * The o200k table's hash: which bucket a token's bytes are in. The one
 * definition, shared by the generator that writes the table
 * (scripts/o200kTable.mjs, at build time) and the counter that reads it
 * (o200kTable.ts): plain JavaScript, so that both load it as it is.
 *
 * FNV-1a over the bytes, with a final mix for the low bits (the bucket is
 * the hash's low bits: mask is the number of buckets - 1, a power of two - 1).
 */
'use strict';

const OFFSET = 0x811c9dc5;
const PRIME = 0x01000193;

/** @param {number} h */
function finish(h) {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  return h ^ (h >>> 13);
}

/**
 * The bucket of bytes[start, end).
 * @param {Uint8Array} bytes
 * @param {number} start
 * @param {number} end
 * @param {number} mask
 * @returns {number}
 */
function bucketOfBytes(bytes, start, end, mask) {
  let h = OFFSET;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i], PRIME);
  return finish(h) & mask;
}

/**
 * The bucket of text[start, end) read as bytes (each character its own byte:
 * the same bucket as its UTF-8 while it is ASCII), or -1 when a character is
 * not ASCII.
 * @param {string} text
 * @param {number} start
 * @param {number} end
 * @param {number} mask
 * @returns {number}
 */
function bucketOfAscii(text, start, end, mask) {
  let h = OFFSET;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return -1;
    h = Math.imul(h ^ c, PRIME);
  }
  return finish(h) & mask;
}

module.exports = { bucketOfBytes, bucketOfAscii };
