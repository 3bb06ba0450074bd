import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { sha256, type DiskState } from './restorePlan';
import { restoreReasons } from './restoreReasons';

/**
 * Where a session file lives under a working directory, refusing anything
 * that could land outside it: absolute or `..` paths, and symbolic links
 * (the file itself, or a folder on the way that leads out of the directory).
 */
export async function safeLocation(root: string, rel: string): Promise<{ ok: true; abs: string } | { ok: false; reason: string; cwdMissing?: boolean }> {
  if (!rel || path.isAbsolute(rel) || /^[a-zA-Z]:/.test(rel)) return { ok: false, reason: 'not a relative path' };
  const parts = rel.split(/[\\/]/);
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
      if (real !== realRoot && !real.startsWith(realRoot + path.sep)) return { ok: false, reason: 'a symbolic link leads out of the working directory' };
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

export async function diskState(root: string, rel: string): Promise<DiskState & { abs?: string }> {
  const loc = await safeLocation(root, rel);
  if (!loc.ok) return loc.cwdMissing ? { kind: 'no-cwd', cwd: root } : { kind: 'refused', reason: loc.reason };
  try {
    const bytes = await fs.readFile(loc.abs);
    return { kind: 'file', sha256: sha256(bytes), text: bytes.toString('utf8'), abs: loc.abs };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing', abs: loc.abs };
    return { kind: 'refused', reason: (err as Error).message };
  }
}

/** A restore candidate's disk state; one outside the working directory is never read (only whether the directory exists). */
export async function candidateDiskState(root: string, c: { path: string; insideCwd: boolean }): Promise<DiskState & { abs?: string }> {
  if (c.insideCwd) return diskState(root, c.path);
  try {
    await fs.stat(root);
  } catch {
    return { kind: 'no-cwd', cwd: root };
  }
  return { kind: 'refused', reason: restoreReasons.outsideCwd().text };
}
