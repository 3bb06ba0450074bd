import { constants, promises as fsp } from 'node:fs';
import { assertWritableFile } from './agents/readOnly';
import * as path from 'node:path';
import { loadSession } from './loadSession';
import { ArborUsageError, formatDiagnostic } from './diagnostics';
import { statRegularFile } from './sessionFile';
import { StaleSessionError } from './writeErrors';
import { withSessionLock } from './writeLock';
import { CURRENT_SESSION_VERSION } from './types';
import { entryJson } from './entryKinds';

export interface UpgradeResult {
  file: string;
  backup: string;
  fromVersion: number;
  entries: number;
}

/**
 * Writes a version 3 copy of an older session beside it, then swaps it in
 * atomically (rename), keeping a copy of the original as `<file>.v<N>.bak`.
 * Only on the user's request: Arbor never migrates a file on its own.
 * The new file keeps the original's mode and owner. A symbolic link stays
 * a link: its target is upgraded (and locked, like any Arbor write).
 */
export async function upgradeSessionFile(file: string, options: { signal?: AbortSignal } = {}): Promise<UpgradeResult> {
  await statRegularFile(file);
  await assertWritableFile(file);
  const target = await fsp.realpath(file);
  return withSessionLock(target, () => upgradeLocked(file, target, options), { signal: options.signal });
}

async function upgradeLocked(file: string, target: string, options: { signal?: AbortSignal }): Promise<UpgradeResult> {
  const st = await statRegularFile(target);
  const index = await loadSession(target, { validation: 'full', signal: options.signal });
  if (index.version >= CURRENT_SESSION_VERSION) {
    return { file, backup: '', fromVersion: index.version, entries: index.entryCount };
  }
  if (index.diagnostics.length > 0) {
    // The new file is written from the entries read: a line that could not be read would be lost.
    const n = index.diagnostics.length;
    throw new ArborUsageError(
      `${file} has ${n} line${n === 1 ? '' : 's'} Arbor cannot read (${formatDiagnostic(index.diagnostics[0])}${n > 1 ? ', …' : ''}); ` +
        'an upgraded copy would not hold them, so nothing was changed. Fix or remove those lines, then upgrade again.',
    );
  }
  const header = { ...index.header, version: CURRENT_SESSION_VERSION };
  const lines = [JSON.stringify(header)];
  for (let i = 0; i < index.entryCount; i++) lines.push(JSON.stringify(entryJson(index.entry(i))));
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.arbor-upgrade-${process.pid}.tmp`);
  let backup = path.join(path.dirname(file), `${path.basename(file)}.v${index.version}.bak`);
  for (let n = 1; await exists(backup); n++) backup = path.join(path.dirname(file), `${path.basename(file)}.v${index.version}.${n}.bak`);
  const mode = st.mode & 0o7777;
  await fsp.writeFile(tmp, lines.join('\n') + '\n', { flag: 'wx', mode: 0o600 });
  let backupWritten = false;
  try {
    await keepModeAndOwner(tmp, target, mode, st.uid, st.gid);
    options.signal?.throwIfAborted();
    // A real copy (not a link to the file that is about to be replaced), with the same mode and owner.
    await fsp.copyFile(target, backup, constants.COPYFILE_EXCL);
    backupWritten = true;
    await keepModeAndOwner(backup, target, mode, st.uid, st.gid);
    const now = await fsp.stat(target);
    if (now.size !== index.size || now.ino !== st.ino) {
      throw new StaleSessionError(`${file} changed while it was being upgraded; nothing was changed. Try again when no one writes to it.`);
    }
    await fsp.rename(tmp, target);
  } catch (err) {
    await fsp.rm(tmp, { force: true });
    if (backupWritten) await fsp.rm(backup, { force: true });
    throw err;
  }
  return { file, backup, fromVersion: index.version, entries: index.entryCount };
}

/** Gives `copy` the original's mode and owner; refuses (nothing changed) when the owner cannot be kept. */
async function keepModeAndOwner(copy: string, original: string, mode: number, uid: number, gid: number): Promise<void> {
  const st = await fsp.stat(copy);
  if (st.uid !== uid || st.gid !== gid) {
    try {
      await fsp.chown(copy, uid, gid);
    } catch (err) {
      throw new ArborUsageError(
        `${original} belongs to user ${uid}, group ${gid}, which Arbor cannot keep ` +
          `(${(err as NodeJS.ErrnoException).code}); nothing was changed. Upgrade it as its owner.`,
      );
    }
  }
  await fsp.chmod(copy, mode);
}

async function exists(p: string): Promise<boolean> {
  try {
    await fsp.lstat(p);
    return true;
  } catch {
    return false;
  }
}
