import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';

/** Read size of a streamed hash: memory stays at one block whatever the file's size. */
export const HASH_BLOCK = 1 << 20;

/**
 * The sha256 of an open file, read from its start a block at a time (bounded
 * memory on any size). Every block is also handed to `copyTo` when given
 * (a backup made in the same pass). Returns the hash and the bytes read.
 */
export async function hashHandle(
  handle: FileHandle,
  options: { copyTo?: FileHandle; signal?: AbortSignal } = {},
): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  const buf = Buffer.allocUnsafe(HASH_BLOCK);
  let pos = 0;
  for (;;) {
    options.signal?.throwIfAborted();
    const { bytesRead } = await handle.read(buf, 0, buf.length, pos);
    if (bytesRead === 0) break;
    const block = buf.subarray(0, bytesRead);
    hash.update(block);
    if (options.copyTo) await writeAll(options.copyTo, block);
    pos += bytesRead;
  }
  return { sha256: hash.digest('hex'), size: pos };
}

/** Writes all of `data` at the handle's current position. */
export async function writeAll(handle: FileHandle, data: Uint8Array): Promise<void> {
  let off = 0;
  while (off < data.length) {
    const { bytesWritten } = await handle.write(data, off, data.length - off);
    off += bytesWritten;
  }
}
