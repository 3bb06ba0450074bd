import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isRecord } from '../session/jsonObject';
import { readRegularTextFile } from '../session/sessionFile';
import { isProcessAlive } from '../livePi/registry';
import type { LastRestoreState } from './restorePlan';
import {
  applyRecord,
  JOURNAL_NAME,
  manifestOf,
  sessionBackupsDir,
  type JournalFile,
  type JournalRecord,
  type RestoreManifest,
} from './restoreJournal';

/**
 * Reading restores' records (restoreJournal.ts writes them): a journal
 * replayed, or the manifest.json of a restore made before the journal. A
 * record is read only from a regular file (a FIFO never blocks, a link is
 * not followed), at most JOURNAL_MAX_BYTES.
 */

const LEGACY_MANIFEST = 'manifest.json';
/** Larger than any journal Arbor writes for a session's files; a larger one is refused, not read. */
const JOURNAL_MAX_BYTES = 64 * 1024 * 1024;

const sha = (v: unknown) => (typeof v === 'string' && /^[0-9a-f]{64}$/.test(v) ? v : null);
const num = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined);

function parseFile(f: unknown): JournalFile | undefined {
  if (!isRecord(f) || typeof f.path !== 'string' || (f.action !== 'write' && f.action !== 'delete')) return undefined;
  const out: JournalFile = { path: f.path, action: f.action, before: sha(f.before), after: sha(f.after) };
  if (typeof f.backup === 'string') out.backup = f.backup;
  for (const k of ['mode', 'uid', 'gid'] as const) {
    const v = num(f[k]);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

function parseRecord(raw: unknown): JournalRecord | undefined {
  if (!isRecord(raw)) return undefined;
  switch (raw.t) {
    case 'begin':
      if (typeof raw.session !== 'string' || typeof raw.root !== 'string' || typeof raw.startedAt !== 'string') return undefined;
      return {
        t: 'begin',
        version: 2,
        session: raw.session,
        root: raw.root,
        ...(typeof raw.to === 'string' ? { to: raw.to } : {}),
        startedAt: raw.startedAt,
        pid: num(raw.pid) ?? 0,
        host: typeof raw.host === 'string' ? raw.host : '',
      };
    case 'dir':
    case 'temp':
    case 'left':
      return typeof raw.path === 'string' ? { t: raw.t, path: raw.path } : undefined;
    case 'intent': {
      const file = parseFile(raw.file);
      return file && { t: 'intent', file };
    }
    case 'end':
      return raw.state === 'complete' || raw.state === 'failed' || raw.state === 'rolled-back' ? { t: 'end', state: raw.state } : undefined;
    case 'undone':
      return { t: 'undone', at: typeof raw.at === 'string' ? raw.at : '' };
  }
  return undefined;
}

/** Replays a journal's text. A torn last line (a record whose write did not finish) is ignored; any other bad line refuses the journal. */
export function parseJournal(text: string, file: string): RestoreManifest {
  const lines = text.split('\n');
  const torn = lines.pop() ?? '';
  let m: RestoreManifest | undefined;
  lines.forEach((line, i) => {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      raw = undefined;
    }
    const r = parseRecord(raw);
    if (!r || (r.t === 'begin') !== (i === 0)) throw new Error(`${file}:${i + 1}: not a restore journal record`);
    if (r.t === 'begin') m = manifestOf(r);
    else applyRecord(m!, r);
  });
  void torn;
  if (!m) throw new Error(`${file}: an empty restore journal`);
  if (m.state === 'running' && m.host === os.hostname() && !isProcessAlive(m.pid ?? 0)) m.state = 'interrupted';
  return m;
}

function parseLegacyManifest(text: string, file: string): RestoreManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    raw = undefined;
  }
  if (
    !isRecord(raw) ||
    raw.version !== 1 ||
    typeof raw.root !== 'string' ||
    typeof raw.state !== 'string' ||
    !Array.isArray(raw.files) ||
    !Array.isArray(raw.createdDirs)
  )
    throw new Error(`${file}: not a restore record`);
  const files: JournalFile[] = [];
  for (const f of raw.files) {
    const parsed = parseFile(f);
    if (!parsed) throw new Error(`${file}: not a restore record`);
    files.push(parsed);
  }
  const state = (['complete', 'failed', 'rolled-back', 'undone'] as const).find((s) => s === raw.state) ?? 'interrupted';
  return {
    version: 1,
    session: typeof raw.session === 'string' ? raw.session : '',
    root: raw.root,
    startedAt: typeof raw.startedAt === 'string' ? raw.startedAt : '',
    state,
    files,
    createdDirs: raw.createdDirs.filter((d): d is string => typeof d === 'string'),
    temps: [],
    ended: 'complete',
  };
}

/** A restore's record: its journal, else (a restore made before it) its manifest. A FIFO, device or link is refused, never opened for reading. */
export async function readRestoreRecord(dir: string): Promise<RestoreManifest> {
  const journal = path.join(dir, JOURNAL_NAME);
  try {
    return parseJournal(await readRegularTextFile(journal, JOURNAL_MAX_BYTES), journal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const legacy = path.join(dir, LEGACY_MANIFEST);
  return parseLegacyManifest(await readRegularTextFile(legacy, JOURNAL_MAX_BYTES), legacy);
}

/** Marks a restore recorded before the journal (its manifest.json) as undone. */
export async function markLegacyUndone(dir: string): Promise<void> {
  const file = path.join(dir, LEGACY_MANIFEST);
  const raw = JSON.parse(await readRegularTextFile(file, JOURNAL_MAX_BYTES)) as Record<string, unknown>;
  const tmp = path.join(dir, `.manifest.${process.pid}.tmp`);
  await fs.writeFile(tmp, `${JSON.stringify({ ...raw, state: 'undone', undoneAt: new Date().toISOString() }, null, 1)}\n`, { mode: 0o600 });
  await fs.rename(tmp, file);
}

export interface RestoreRecord {
  dir: string;
  manifest: RestoreManifest;
}

/** A restore whose record Arbor cannot read (a FIFO, a damaged file): named, never guessed at. */
export interface UnreadableRestore {
  dir: string;
  error: string;
}

/** The restores of `session` (every working directory), newest first; `unreadable` lists the records refused. */
export async function sessionRestores(
  session: string,
  env?: NodeJS.ProcessEnv,
): Promise<{ records: RestoreRecord[]; unreadable: UnreadableRestore[] }> {
  const base = sessionBackupsDir(session, env);
  let names: string[];
  try {
    names = await fs.readdir(base);
  } catch {
    return { records: [], unreadable: [] };
  }
  const records: RestoreRecord[] = [];
  const unreadable: UnreadableRestore[] = [];
  for (const name of names.sort().reverse()) {
    const dir = path.join(base, name);
    try {
      records.push({ dir, manifest: await readRestoreRecord(dir) });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      unreadable.push({ dir, error: (err as Error).message });
    }
  }
  return { records, unreadable };
}

/** The restores of `session` in working directory `root` (real path) that changed files, newest first. */
export async function restoreHistory(session: string, root: string, env?: NodeJS.ProcessEnv): Promise<RestoreRecord[]> {
  return (await sessionRestores(session, env)).records.filter((r) => r.manifest.root === root && r.manifest.files.length);
}

/**
 * What the restores left at each path they changed, from the newest record
 * touching it: what it wrote, or, when it was undone or rolled back, what it
 * found (put back since). A record that failed midway or was interrupted says nothing.
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
