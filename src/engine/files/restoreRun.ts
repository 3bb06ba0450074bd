import { promises as fs } from 'node:fs';
import { assertWritable } from '../session/agents/readOnly';
import { decideRestore, restoreCandidates, type DiskState, type RestoreDecision } from './restorePlan';
import { diskStateIn } from './diskState';
import { MissingRoot, NoFollowTree } from './noFollowTree';
import { restoreReasons } from './restoreReasons';
import * as path from 'node:path';
import { RestoreJournal, sessionBackupsDir } from './restoreJournal';
import { markLegacyUndone, restoredState, restoreHistory, sessionRestores, type RestoreRecord } from './restoreRecords';
import { backupRetentionFromEnv, pruneRestoreBackups, type BackupRetention } from './backupRetention';
import { applyRestore, inverseStep, type ApplyResult, type RestoreHooks, type RestoreStep } from './restoreTransaction';
import type { SessionFiles } from './sessionFiles';
import type { SessionIndex } from '../session/sessionIndex';

/**
 * A restore from start to end, for the CLI and the extension alike: plan
 * (each file's decision against the disk, hashed as a stream through a
 * no-follow walk), choose the steps, apply them as a transaction with
 * backups (restoreTransaction.ts), and undo the last one.
 */
export interface RestorePlan {
  /** The working directory's real path. */
  root: string;
  decisions: RestoreDecision[];
}

export interface PlanOptions {
  root: string;
  session: string;
  files?: SessionFiles;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** A file to leave alone with the given reason (the extension: unsaved changes in an editor), by absolute path on disk. */
  hold?: (abs: string) => string | undefined;
}

export async function planRestore(index: SessionIndex, targetIndex: number, options: PlanOptions): Promise<RestorePlan> {
  assertWritable(index);
  const candidates = restoreCandidates(index, targetIndex, { files: options.files, signal: options.signal });
  let tree: NoFollowTree;
  try {
    tree = await NoFollowTree.open(options.root);
  } catch (err) {
    const disk: DiskState =
      err instanceof MissingRoot ? { kind: 'no-cwd', cwd: options.root } : { kind: 'refused', reason: (err as Error).message };
    return { root: options.root, decisions: candidates.map((c) => decideRestore(c, disk)) };
  }
  try {
    const restored = restoredState(await restoreHistory(options.session, tree.root, options.env));
    const decisions: RestoreDecision[] = [];
    for (const c of candidates) {
      const disk: DiskState & { abs?: string } = c.insideCwd
        ? await diskStateIn(tree, c.path, options.signal)
        : { kind: 'refused', reason: restoreReasons.outsideCwd().text };
      const held = disk.abs ? options.hold?.(disk.abs) : undefined;
      decisions.push(
        held
          ? { action: 'skip', path: c.path, absPath: c.absPath, reason: held, reasonKind: 'unsaved' }
          : decideRestore(c, disk, restored.get(c.path)),
      );
    }
    return { root: tree.root, decisions };
  } finally {
    await tree.close();
  }
}

export interface StepChoice {
  /** Only these paths. */
  paths?: ReadonlySet<string>;
  /** Delete files the session created on a branch the target does not contain. */
  deleteCreated?: boolean;
  /** Why such a file was left alone without deleteCreated. */
  deleteHint: string;
  /** Skipped files whose target content the user chose to write anyway (over what the plan saw on disk). */
  choose?: ReadonlySet<string>;
}

/** The steps a plan leads to, and the files left alone with their reasons. */
export function restoreSteps(
  decisions: readonly RestoreDecision[],
  choice: StepChoice,
): { steps: RestoreStep[]; skipped: { path: string; reason: string }[] } {
  const steps: RestoreStep[] = [];
  const skipped: { path: string; reason: string }[] = [];
  for (const d of decisions) {
    if (choice.paths && !choice.paths.has(d.path)) continue;
    if (d.action === 'restore') steps.push({ path: d.path, action: 'write', text: d.text, onDisk: d.onDisk });
    else if (d.action === 'delete') {
      if (choice.deleteCreated) steps.push({ path: d.path, action: 'delete', onDisk: d.onDisk });
      else skipped.push({ path: d.path, reason: restoreReasons.createdOnBranch(d.reason, choice.deleteHint).text });
    } else if (d.action === 'skip') {
      if (choice.choose?.has(d.path) && d.chooseText !== undefined && d.onDisk !== undefined)
        steps.push({ path: d.path, action: 'write', text: d.chooseText, onDisk: d.onDisk });
      else skipped.push({ path: d.path, reason: d.reason });
    }
  }
  return { steps, skipped };
}

export interface RunOptions {
  root: string;
  session: string;
  /** The entry restored to (kept in the record). */
  to?: string;
  env?: NodeJS.ProcessEnv;
  hooks?: RestoreHooks;
  signal?: AbortSignal;
  /** How many restores' backups to keep (default: backupRetention.ts, or the environment). */
  retention?: BackupRetention;
}

export type RunResult = ApplyResult & { backupDir?: string; pruned?: string[] };

/**
 * Applies the steps with a backup of every file changed, through a
 * write-ahead journal (restoreJournal.ts); `backupDir` is where they are
 * (removed again when nothing was written). Then old restores' backups are
 * pruned (backupRetention.ts). A journal that cannot be begun (a full disk)
 * stops the restore before any file is touched.
 */
export async function runRestore(steps: readonly RestoreStep[], options: RunOptions): Promise<RunResult> {
  if (!steps.length) return { written: [], deleted: [], skipped: [], already: [], notes: [] };
  const root = await fs.realpath(options.root).catch(() => options.root);
  let journal: RestoreJournal;
  try {
    journal = await RestoreJournal.begin({ session: options.session, root, to: options.to, env: options.env });
  } catch (err) {
    throw new Error(
      `nothing was restored: the restore's journal could not be written under ${sessionBackupsDir(options.session, options.env)}: ${(err as Error).message}`,
    );
  }
  let r: ApplyResult;
  try {
    r = await applyRestore(steps, { root, journal: { journal, mode: 'restore' }, hooks: options.hooks, signal: options.signal });
  } finally {
    await journal.close();
  }
  const pruned = await pruneRestoreBackups({
    retention: options.retention ?? backupRetentionFromEnv(options.env),
    env: options.env,
    keep: journal.dir,
  }).catch(() => []);
  if (!journal.manifest.files.length) {
    await fs.rm(journal.dir, { recursive: true, force: true });
    return { ...r, pruned };
  }
  return { ...r, backupDir: journal.dir, pruned };
}

export type UndoResult =
  | { undone: false; reason: string }
  | ({
      undone: true;
      backupDir: string;
      /** The restore undone had not finished (a kill, a full disk): what it changed is put back. */
      interrupted: boolean;
    } & ApplyResult);

/**
 * Puts back what the last restore of `session` in `root` changed, whether it
 * finished or was interrupted (the newest first, so an interrupted run is
 * undone before any older one): each file only if it still holds what the
 * restore wrote; a file already as it was before is left (counted in
 * `already`); one changed since is listed as skipped with where its old bytes
 * are. A file the restore created is removed, folders it created too when
 * empty, and any temporary file it left in the working directory.
 */
export async function undoLastRestore(options: Omit<RunOptions, 'to'>): Promise<UndoResult> {
  const root = await fs.realpath(options.root).catch(() => undefined);
  if (!root) return { undone: false, reason: `working directory ${options.root} does not exist` };
  const { records, unreadable } = await sessionRestores(options.session, options.env);
  // A run that never completed and was undone since (recovered) is passed over: the undo before it is the older restore's.
  const last = records.find(
    (r) =>
      r.manifest.root === root &&
      (r.manifest.files.length || r.manifest.temps.length) &&
      !(r.manifest.state === 'undone' && r.manifest.ended !== 'complete'),
  );
  const newerUnreadable = unreadable.find((u) => !last || u.dir > last.dir);
  if (newerUnreadable)
    return { undone: false, reason: `the record of a newer restore cannot be read (${newerUnreadable.error}); nothing was undone` };
  if (!last) return { undone: false, reason: 'no restore of this session in this working directory to undo' };
  return undoRecord(last, root, options);
}

/**
 * The automatic check at the start of a restore: an interrupted restore of
 * `session` in `root` (its process died before the end) is undone first.
 * Undefined when there is none.
 */
export async function undoInterruptedRestore(options: Omit<RunOptions, 'to'>): Promise<UndoResult | undefined> {
  const pending = await interruptedRestore(options.session, options.root, options.env);
  if (!pending) return undefined;
  return undoRecord(pending, pending.manifest.root, options);
}

/** The newest restore of `session` in `root`, when it was interrupted (for a dry run to say so). */
export async function interruptedRestore(session: string, root: string, env?: NodeJS.ProcessEnv): Promise<RestoreRecord | undefined> {
  const real = await fs.realpath(root).catch(() => undefined);
  if (!real) return undefined;
  const last = (await sessionRestores(session, env)).records.find(
    (r) => r.manifest.root === real && (r.manifest.files.length || r.manifest.temps.length),
  );
  return last?.manifest.state === 'interrupted' ? last : undefined;
}

async function undoRecord(last: RestoreRecord, root: string, options: Omit<RunOptions, 'to'>): Promise<UndoResult> {
  const m = last.manifest;
  if (m.state === 'undone') return { undone: false, reason: `the last restore (${last.dir}) was already undone` };
  if (m.state === 'rolled-back')
    return { undone: false, reason: `the last restore (${last.dir}) failed and was rolled back: nothing to undo` };
  if (m.state === 'running')
    return {
      undone: false,
      reason: `the last restore (${last.dir}) is still running (process ${m.pid} on ${m.host}); undo it when it has ended`,
    };
  const interrupted = m.state === 'interrupted';
  const journal = m.version === 2 ? await RestoreJournal.reopen(last.dir, m).catch(() => undefined) : undefined;
  try {
    const steps: RestoreStep[] = [];
    const skipped: { path: string; reason: string }[] = [];
    for (const f of [...m.files].reverse()) {
      const s = inverseStep(f, last.dir);
      if (s) steps.push(s);
      else skipped.push({ path: f.path, reason: 'no backup of its earlier content' });
    }
    const r = await applyRestore(steps, {
      root,
      journal: journal && { journal, mode: 'undo' },
      hooks: options.hooks,
      signal: options.signal,
      noRollback: true,
      since: 'the restore wrote it',
    });
    const tree = await NoFollowTree.open(root);
    try {
      await tree.removeLeftTemps(m.temps);
      if (!r.failure) await tree.removeEmptyDirs(m.createdDirs);
    } finally {
      await tree.close();
    }
    if (!r.failure) {
      if (journal) await journal.append({ t: 'undone', at: new Date().toISOString() });
      else await markLegacyUndone(last.dir);
    }
    const whereBytes = new Map(m.files.filter((f) => f.backup).map((f) => [f.path, path.join(last.dir, f.backup!)]));
    const withBytes = (s: { path: string; reason: string }) =>
      whereBytes.has(s.path) ? { ...s, reason: `${s.reason}; its bytes before the restore are in ${whereBytes.get(s.path)}` } : s;
    return {
      undone: true,
      backupDir: last.dir,
      interrupted,
      ...r,
      skipped: [...skipped, ...r.skipped].map(withBytes),
    };
  } finally {
    await journal?.close();
  }
}
