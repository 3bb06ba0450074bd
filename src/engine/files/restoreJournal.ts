import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { piAgentDir } from '../session/piAgentDir';
import { isRecord } from '../session/jsonObject';
import type { LastRestoreState } from './restorePlan';

/**
 * Where restores keep their backups and what they did:
 * `<Pi's agent folder>/arbor/restore-backups/<session name>-<hash of its path>/<stamp>/`
 * holds `manifest.json` and `files/<n>`, the bytes each file had before the
 * restore changed it. Outside the sessions folder, so nothing there is ever
 * read as a session.
 */
export interface JournalFile {
  path: string;
  /** What the restore did to the file. */
  action: 'write' | 'delete';
  /** sha256 before the restore, null if there was no file. */
  before: string | null;
  /** The backup of the bytes before (under the restore's folder), when there were some. */
  backup?: string;
  /** sha256 the restore left, null where it deleted. */
  after: string | null;
  mode?: number;
}

export interface RestoreManifest {
  version: 1;
  session: string;
  /** The working directory's real path. */
  root: string;
  /** The entry restored to (informative). */
  to?: string;
  startedAt: string;
  state: 'running' | 'complete' | 'failed' | 'rolled-back' | 'undone';
  files: JournalFile[];
  /** Folders the restore created (outermost first). */
  createdDirs: string[];
  undoneAt?: string;
}

export function backupsRoot(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(piAgentDir(env), 'arbor', 'restore-backups');
}

export function sessionBackupsDir(session: string, env: NodeJS.ProcessEnv = process.env): string {
  const abs = path.resolve(session);
  const name = path
    .basename(abs)
    .replace(/\.jsonl$/, '')
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .slice(0, 80);
  return path.join(backupsRoot(env), `${name}-${createHash('sha256').update(abs).digest('hex').slice(0, 12)}`);
}

/** A new restore's folder (sortable by time). */
export async function newRestoreDir(session: string, env?: NodeJS.ProcessEnv): Promise<string> {
  const stamp = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
  const dir = path.join(sessionBackupsDir(session, env), stamp);
  await fs.mkdir(path.join(dir, 'files'), { recursive: true, mode: 0o700 });
  return dir;
}

export async function writeManifest(dir: string, m: RestoreManifest): Promise<void> {
  const tmp = path.join(dir, `.manifest.${process.pid}.tmp`);
  await fs.writeFile(tmp, `${JSON.stringify(m, null, 1)}\n`, { mode: 0o600 });
  await fs.rename(tmp, path.join(dir, 'manifest.json'));
}

function parseManifest(text: string): RestoreManifest | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (
    !isRecord(raw) ||
    raw.version !== 1 ||
    typeof raw.root !== 'string' ||
    typeof raw.state !== 'string' ||
    !Array.isArray(raw.files) ||
    !Array.isArray(raw.createdDirs)
  )
    return undefined;
  const files: JournalFile[] = [];
  for (const f of raw.files) {
    if (!isRecord(f) || typeof f.path !== 'string' || (f.action !== 'write' && f.action !== 'delete')) return undefined;
    const sha = (v: unknown) => (typeof v === 'string' ? v : null);
    files.push({
      path: f.path,
      action: f.action,
      before: sha(f.before),
      after: sha(f.after),
      backup: typeof f.backup === 'string' ? f.backup : undefined,
      mode: typeof f.mode === 'number' ? f.mode : undefined,
    });
  }
  return { ...(raw as unknown as RestoreManifest), files, createdDirs: raw.createdDirs.filter((d): d is string => typeof d === 'string') };
}

/** The restores of `session` in working directory `root` (real path), newest first. */
export async function restoreHistory(
  session: string,
  root: string,
  env?: NodeJS.ProcessEnv,
): Promise<{ dir: string; manifest: RestoreManifest }[]> {
  const base = sessionBackupsDir(session, env);
  let names: string[];
  try {
    names = await fs.readdir(base);
  } catch {
    return [];
  }
  const out: { dir: string; manifest: RestoreManifest }[] = [];
  for (const name of names.sort().reverse()) {
    const dir = path.join(base, name);
    let text: string;
    try {
      text = await fs.readFile(path.join(dir, 'manifest.json'), 'utf8');
    } catch {
      continue;
    }
    const m = parseManifest(text);
    if (m && m.root === root && m.files.length) out.push({ dir, manifest: m });
  }
  return out;
}

/** The newest restore of `session` in `root`, or undefined. */
export async function lastRestore(
  session: string,
  root: string,
  env?: NodeJS.ProcessEnv,
): Promise<{ dir: string; manifest: RestoreManifest } | undefined> {
  return (await restoreHistory(session, root, env))[0];
}

/**
 * What the restores left at each path they changed, from the newest record
 * touching it: what it wrote, or, when it was undone or rolled back, what it
 * found (put back since). A record that failed midway says nothing.
 */
export function restoredState(history: readonly { manifest: RestoreManifest }[]): LastRestoreState {
  const out = new Map<string, string | null>();
  const decided = new Set<string>();
  for (const { manifest: m } of history) {
    for (const f of m.files) {
      if (decided.has(f.path)) continue;
      decided.add(f.path);
      if (m.state === 'complete') out.set(f.path, f.after);
      else if (m.state === 'undone' || m.state === 'rolled-back') out.set(f.path, f.before);
    }
  }
  return out;
}
