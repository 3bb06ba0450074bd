import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { DiskState } from './restorePlan';
import { closeChain, MissingRoot, NoFollowTree, PATH_SEPARATORS, RefusedPath } from './noFollowTree';
import { hashHandle } from './fileHash';
import { restoreReasons } from './restoreReasons';

/**
 * Where a session file lives under a working directory, refusing anything
 * that could land outside it: absolute or `..` paths, and symbolic links
 * (the file itself, or a folder on the way that leads out of the directory).
 * For showing a file (a diff); restoring goes through NoFollowTree.
 */
export async function safeLocation(
  root: string,
  rel: string,
): Promise<{ ok: true; abs: string } | { ok: false; reason: string; cwdMissing?: boolean }> {
  if (!rel || path.isAbsolute(rel) || /^[a-zA-Z]:/.test(rel)) return { ok: false, reason: 'not a relative path' };
  const parts = rel.split(PATH_SEPARATORS);
  if (parts.some((p) => p === '..')) return { ok: false, reason: 'path leads out of the working directory (..)' };
  let realRoot: string;
  try {
    realRoot = await fs.realpath(root);
  } catch {
    return { ok: false, reason: restoreReasons.cwdMissing(root).text, cwdMissing: true };
  }
  const abs = path.join(realRoot, ...parts);
  let probe = abs;
  for (;;) {
    try {
      const st = await fs.lstat(probe);
      if (probe === abs && st.isSymbolicLink()) return { ok: false, reason: 'is a symbolic link' };
      const real = await fs.realpath(probe);
      if (real !== realRoot && !real.startsWith(realRoot + path.sep))
        return { ok: false, reason: 'a symbolic link leads out of the working directory' };
      if (probe === abs && !st.isFile()) return { ok: false, reason: 'not a regular file' };
      return { ok: true, abs };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return { ok: false, reason: (err as Error).message };
      const up = path.dirname(probe);
      if (up === probe || !up.startsWith(realRoot)) return { ok: true, abs };
      probe = up;
    }
  }
}

/** What is at `rel` under the tree's root, hashed as a stream (bounded memory), reached without following links. */
export async function diskStateIn(tree: NoFollowTree, rel: string, signal?: AbortSignal): Promise<DiskState & { abs?: string }> {
  try {
    const parents = await tree.openParents(rel);
    if (!parents) return { kind: 'missing', abs: path.join(tree.root, rel) };
    const dir = parents.chain[parents.chain.length - 1];
    const abs = path.join(dir.abs, parents.name);
    try {
      const file = await tree.openFile(dir, parents.name);
      if (!file) return { kind: 'missing', abs };
      try {
        const h = await hashHandle(file.handle, { signal });
        return { kind: 'file', sha256: h.sha256, size: h.size, abs };
      } finally {
        await file.handle.close();
      }
    } finally {
      await closeChain(parents.chain);
    }
  } catch (err) {
    if (err instanceof RefusedPath) return { kind: 'refused', reason: err.message };
    if ((err as Error).name === 'AbortError') throw err;
    return { kind: 'refused', reason: (err as Error).message };
  }
}

export async function diskState(root: string, rel: string, signal?: AbortSignal): Promise<DiskState & { abs?: string }> {
  let tree: NoFollowTree;
  try {
    tree = await NoFollowTree.open(root);
  } catch (err) {
    if (err instanceof MissingRoot) return { kind: 'no-cwd', cwd: root };
    return { kind: 'refused', reason: (err as Error).message };
  }
  try {
    return await diskStateIn(tree, rel, signal);
  } finally {
    await tree.close();
  }
}
