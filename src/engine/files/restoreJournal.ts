import { createHash, randomBytes } from 'node:crypto';
import { constants as C, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { piAgentDir } from '../session/piAgentDir';

/**
 * Where restores keep their backups and what they did:
 * `<Pi's agent folder>/arbor/restore-backups/<session name>-<hash of its path>/<stamp>/`
 * holds `journal.jsonl` and `files/<n>`, the bytes each file had before the
 * restore changed it. Outside the sessions folder, so nothing there is ever
 * read as a session.
 *
 * The journal is write-ahead: one JSON record a line, appended and fsynced
 * before the step it announces. A file's backup is written and fsynced, then
 * a temporary file's name is recorded before it is made in the working
 * directory, then the file's intent (what it held, where its backup is, what
 * it will hold) is recorded, and only then is the file replaced or deleted.
 * Whatever stops a run (ENOSPC, EIO, a kill), the journal names every file
 * the run may have changed and where its old bytes are; undo judges each by
 * its content on disk (what the restore wrote: put back; what it held before:
 * nothing to do). A record torn by a full disk is cut off again (the journal
 * is truncated back to its last whole line), and a torn last line is ignored
 * when read: the step it announced was never taken.
 * Restores before this journal kept `manifest.json` (read still: restoreRecords.ts).
 */
export interface JournalFile {
  path: string;
  /** What the restore did to the file. */
  action: 'write' | 'delete';
  /** sha256 before the restore, null if there was no file. */
  before: string | null;
  /** The backup of the bytes before (relative to the restore's folder), when there were some. */
  backup?: string;
  /** sha256 the restore left, null where it deleted. */
  after: string | null;
  mode?: number;
  /** The owner the file had (put back by undo where the user may). */
  uid?: number;
  gid?: number;
}

export type RestoreState = 'running' | 'interrupted' | 'complete' | 'failed' | 'rolled-back' | 'undone';

export interface RestoreManifest {
  version: 1 | 2;
  session: string;
  /** The working directory's real path. */
  root: string;
  /** The entry restored to (informative). */
  to?: string;
  startedAt: string;
  /** `running` while its process lives; `interrupted` when it died before the end record. */
  state: RestoreState;
  /** Every file whose intent was recorded (so the run may have changed it). */
  files: JournalFile[];
  /** Folders the restore created (outermost first). */
  createdDirs: string[];
  /** Temporary files the run (or an undo of it) made in the working directory; whatever is left of them is removed by undo. */
  temps: string[];
  /** The process that ran it (so an interrupted run is told from a running one). */
  pid?: number;
  host?: string;
  undoneAt?: string;
  /** How the run itself ended (none: it was interrupted). */
  ended?: 'complete' | 'failed' | 'rolled-back';
}

/** One line of the journal. */
export type JournalRecord =
  | {
      t: 'begin';
      version: 2;
      session: string;
      root: string;
      to?: string;
      startedAt: string;
      pid: number;
      host: string;
    }
  | { t: 'dir'; path: string }
  | { t: 'temp'; path: string }
  | { t: 'intent'; file: JournalFile }
  /** The intent just recorded for `path` was not carried out (a check refused it): the file was left as it is. */
  | { t: 'left'; path: string }
  | { t: 'end'; state: 'complete' | 'failed' | 'rolled-back' }
  | { t: 'undone'; at: string };

export const JOURNAL_NAME = 'journal.jsonl';

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

/** Applies one record to the state it describes (the one reading of a journal: replay and the writer's own copy). */
export function applyRecord(m: RestoreManifest, r: JournalRecord): void {
  switch (r.t) {
    case 'dir':
      m.createdDirs.push(r.path);
      break;
    case 'temp':
      m.temps.push(r.path);
      break;
    case 'intent':
      m.files.push(r.file);
      break;
    case 'left': {
      const i = m.files.map((f) => f.path).lastIndexOf(r.path);
      if (i >= 0) m.files.splice(i, 1);
      break;
    }
    case 'end':
      m.state = r.state;
      m.ended = r.state;
      break;
    case 'undone':
      m.state = 'undone';
      m.undoneAt = r.at;
      break;
    case 'begin':
      break;
  }
}

/**
 * An open journal: records are appended and fsynced one at a time. A failed
 * append (a full disk) truncates the file back to its last whole record and
 * throws: the caller has not taken the step yet.
 */
export class RestoreJournal {
  private constructor(
    readonly dir: string,
    readonly manifest: RestoreManifest,
    private readonly handle: FileHandle,
    private length: number,
  ) {}

  /** A new restore's folder (sortable by time) with its journal begun. On failure nothing of it is left. */
  static async begin(options: { session: string; root: string; to?: string; env?: NodeJS.ProcessEnv }): Promise<RestoreJournal> {
    const stamp = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
    const dir = path.join(sessionBackupsDir(options.session, options.env), stamp);
    await fs.mkdir(path.join(dir, 'files'), { recursive: true, mode: 0o700 });
    let journal: RestoreJournal | undefined;
    try {
      const handle = await fs.open(
        path.join(dir, JOURNAL_NAME),
        C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_APPEND | (C.O_NOFOLLOW ?? 0),
        0o600,
      );
      const begin: JournalRecord = {
        t: 'begin',
        version: 2,
        session: options.session,
        root: options.root,
        ...(options.to ? { to: options.to } : {}),
        startedAt: new Date().toISOString(),
        pid: process.pid,
        host: os.hostname(),
      };
      journal = new RestoreJournal(dir, manifestOf(begin), handle, 0);
      await journal.append(begin);
      await syncDir(dir);
      await syncDir(path.dirname(dir));
      return journal;
    } catch (err) {
      await journal?.close();
      await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
      throw err;
    }
  }

  /** The journal of an earlier restore, opened to record its undo (and the temporary files the undo makes). */
  static async reopen(dir: string, manifest: RestoreManifest): Promise<RestoreJournal> {
    const file = path.join(dir, JOURNAL_NAME);
    const handle = await fs.open(file, C.O_WRONLY | C.O_APPEND | (C.O_NOFOLLOW ?? 0));
    const st = await handle.stat();
    if (!st.isFile()) {
      await handle.close();
      throw new Error(`${file}: not a regular file`);
    }
    return new RestoreJournal(dir, manifest, handle, st.size);
  }

  async append(record: JournalRecord): Promise<void> {
    const line = Buffer.from(`${JSON.stringify(record)}\n`, 'utf8');
    try {
      let off = 0;
      while (off < line.length) off += (await this.handle.write(line, off, line.length - off)).bytesWritten;
      await this.handle.sync();
    } catch (err) {
      await this.handle.truncate(this.length).catch(() => undefined);
      throw err;
    }
    this.length += line.length;
    applyRecord(this.manifest, record);
  }

  /** Where a backup of the journal's next file goes. */
  backupName(n: number): string {
    return path.join(this.dir, 'files', String(n));
  }

  async close(): Promise<void> {
    await this.handle.close().catch(() => undefined);
  }
}

/** fsync of a folder, so the names made in it survive a crash. */
export async function syncDir(dir: string): Promise<void> {
  const h = await fs.open(dir, C.O_RDONLY | (C.O_DIRECTORY ?? 0));
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}

export function manifestOf(b: Extract<JournalRecord, { t: 'begin' }>): RestoreManifest {
  return {
    version: 2,
    session: b.session,
    root: b.root,
    ...(b.to ? { to: b.to } : {}),
    startedAt: b.startedAt,
    state: 'running',
    files: [],
    createdDirs: [],
    temps: [],
    pid: b.pid,
    host: b.host,
  };
}
