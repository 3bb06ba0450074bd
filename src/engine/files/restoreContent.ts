import { constants as C, promises as fs, type BigIntStats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { RefusedPath, sameFile, type NoFollowTree, type OpenDir } from './noFollowTree';
import { hashHandle, HASH_BLOCK, writeAll } from './fileHash';

/** The bytes a restore step reads and writes: the file there hashed (and backed up) in one pass, the new content streamed to the temporary file. */

export async function hashExisting(
  tree: NoFollowTree,
  dir: OpenDir,
  name: string,
  backupName: string | undefined,
  signal?: AbortSignal,
): Promise<{ sha256: string; stat: BigIntStats } | undefined> {
  const file = await tree.openFile(dir, name);
  if (!file) return undefined;
  try {
    const copy = backupName ? await fs.open(backupName, 'wx', 0o600) : undefined;
    let sha: string;
    try {
      sha = (await hashHandle(file.handle, { copyTo: copy, signal })).sha256;
      await copy?.sync();
    } finally {
      await copy?.close();
    }
    const end = await file.handle.stat({ bigint: true });
    if (!sameFile(file.stat, end)) throw new RefusedPath('changed on disk while it was being read');
    return { sha256: sha, stat: file.stat };
  } finally {
    await file.handle.close();
  }
}

/** Writes a step's content to the temporary file; returns its sha256. A backup is opened without following a link or blocking on a FIFO. */
export async function writeContent(handle: FileHandle, step: { text?: string; fromFile?: string }, signal?: AbortSignal): Promise<string> {
  if (step.text !== undefined) {
    const bytes = Buffer.from(step.text, 'utf8');
    await writeAll(handle, bytes);
    return createHash('sha256').update(bytes).digest('hex');
  }
  let src: FileHandle;
  try {
    src = await fs.open(step.fromFile!, C.O_RDONLY | (C.O_NOFOLLOW ?? 0) | (C.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new RefusedPath(`its backup ${step.fromFile} is missing; left as it is`);
    if (code === 'ELOOP') throw new RefusedPath(`its backup ${step.fromFile} is a symbolic link; left as it is`);
    throw err;
  }
  try {
    if (!(await src.stat()).isFile()) throw new RefusedPath(`its backup ${step.fromFile} is not a regular file; left as it is`);
    const hash = createHash('sha256');
    const buf = Buffer.allocUnsafe(HASH_BLOCK);
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead } = await src.read(buf, 0, buf.length, null);
      if (!bytesRead) break;
      hash.update(buf.subarray(0, bytesRead));
      await writeAll(handle, buf.subarray(0, bytesRead));
    }
    return hash.digest('hex');
  } finally {
    await src.close();
  }
}
