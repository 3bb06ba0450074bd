import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { loadSession } from './loadSession';
import { CURRENT_SESSION_VERSION } from './types';

export interface UpgradeResult {
  file: string;
  backup: string;
  fromVersion: number;
  entries: number;
}

/**
 * Writes a version 3 copy of an older session beside it, then swaps it in
 * atomically (rename), keeping the original as `<file>.v<N>.bak`. Only on the
 * user's request: Arbor never migrates a file on its own.
 */
export async function upgradeSessionFile(file: string, options: { signal?: AbortSignal } = {}): Promise<UpgradeResult> {
  const index = await loadSession(file, { validation: 'full', signal: options.signal });
  if (index.version >= CURRENT_SESSION_VERSION) {
    return { file, backup: '', fromVersion: index.version, entries: index.entryCount };
  }
  const header = { ...index.header, version: CURRENT_SESSION_VERSION };
  const lines = [JSON.stringify(header)];
  for (let i = 0; i < index.entryCount; i++) lines.push(JSON.stringify(index.entry(i)));
  const dir = path.dirname(file);
  const base = path.basename(file);
  const tmp = path.join(dir, `.${base}.arbor-upgrade-${process.pid}.tmp`);
  let backup = path.join(dir, `${base}.v${index.version}.bak`);
  for (let n = 1; await exists(backup); n++) backup = path.join(dir, `${base}.v${index.version}.${n}.bak`);
  await fsp.writeFile(tmp, lines.join('\n') + '\n', { flag: 'wx' });
  try {
    options.signal?.throwIfAborted();
    await fsp.link(file, backup);
    await fsp.rename(tmp, file);
  } catch (err) {
    await fsp.rm(tmp, { force: true });
    throw err;
  }
  return { file, backup, fromVersion: index.version, entries: index.entryCount };
}

async function exists(p: string): Promise<boolean> {
  try {
    await fsp.access(p);
    return true;
  } catch {
    return false;
  }
}
