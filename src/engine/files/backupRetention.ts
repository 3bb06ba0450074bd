import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { backupsRoot } from './restoreJournal';
import { readRestoreRecord } from './restoreRecords';

/**
 * How long restores' backups are kept. After each restore, every session's
 * backups folder is pruned: per session the newest `count` restores stay,
 * and a restore older than `days` goes (0: no limit of that kind). Never
 * removed: a restore whose files are not all put back (interrupted, or failed
 * with files not rolled back: its backups hold the only old bytes), one still
 * running, one whose record cannot be read, and the restore just made.
 * The one default; the CLI (`--keep-backups`, `--keep-backup-days`, or
 * ARBOR_RESTORE_KEEP_BACKUPS / ARBOR_RESTORE_KEEP_BACKUP_DAYS) and VS Code
 * (`arbor.restore.keepBackups`, `arbor.restore.keepBackupDays`) override it.
 */
export interface BackupRetention {
  count: number;
  days: number;
}

export const DEFAULT_BACKUP_RETENTION: Readonly<BackupRetention> = Object.freeze({ count: 20, days: 30 });

export const BACKUP_RETENTION_ENV = { count: 'ARBOR_RESTORE_KEEP_BACKUPS', days: 'ARBOR_RESTORE_KEEP_BACKUP_DAYS' } as const;

/** A count or a number of days: a whole number from 0. */
export function parseRetentionNumber(text: string, what: string): number {
  if (!/^\d{1,9}$/.test(text.trim())) throw new Error(`${what}: ${JSON.stringify(text)} is not a whole number of 0 or more`);
  return Number(text.trim());
}

/** The retention the environment asks for (each part falls back to the default). */
export function backupRetentionFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  base: BackupRetention = DEFAULT_BACKUP_RETENTION,
): BackupRetention {
  const part = (k: keyof BackupRetention) => {
    const v = env[BACKUP_RETENTION_ENV[k]];
    return v === undefined || v === '' ? base[k] : parseRetentionNumber(v, BACKUP_RETENTION_ENV[k]);
  };
  return { count: part('count'), days: part('days') };
}

const PRUNABLE = new Set(['complete', 'undone', 'rolled-back']);
const DAY_MS = 24 * 60 * 60 * 1000;

/** Removes the restores the retention no longer keeps; returns their folders. */
export async function pruneRestoreBackups(options: {
  retention: BackupRetention;
  env?: NodeJS.ProcessEnv;
  /** A restore never removed (the one just made). */
  keep?: string;
  now?: number;
}): Promise<string[]> {
  const { count, days } = options.retention;
  if (!count && !days) return [];
  const now = options.now ?? Date.now();
  const root = backupsRoot(options.env);
  const removed: string[] = [];
  for (const session of await fs.readdir(root).catch(() => [] as string[])) {
    const base = path.join(root, session);
    const names = (await fs.readdir(base).catch(() => [] as string[])).sort().reverse();
    let kept = 0;
    for (const name of names) {
      const dir = path.join(base, name);
      let startedAt: number;
      let prunable: boolean;
      try {
        const m = await readRestoreRecord(dir);
        startedAt = Date.parse(m.startedAt);
        prunable = PRUNABLE.has(m.state) || (m.state === 'interrupted' && !m.files.length && !m.temps.length);
      } catch {
        continue; // unreadable: left for the user
      }
      if (dir === options.keep || !prunable) {
        kept++;
        continue;
      }
      const tooOld = days > 0 && Number.isFinite(startedAt) && now - startedAt > days * DAY_MS;
      if (tooOld || (count > 0 && kept >= count)) {
        await fs.rm(dir, { recursive: true, force: true });
        removed.push(dir);
      } else kept++;
    }
  }
  return removed;
}
