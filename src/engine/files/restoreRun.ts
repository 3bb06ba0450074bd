import { promises as fs } from 'node:fs';
import { assertWritable } from '../session/agents/readOnly';
import { decideRestore, restoreCandidates, type DiskState, type RestoreDecision } from './restorePlan';
import { diskStateIn } from './diskState';
import { MissingRoot, NoFollowTree } from './noFollowTree';
import { restoreReasons } from './restoreReasons';
import { lastRestore, newRestoreDir, restoredState, restoreHistory, writeManifest, type RestoreManifest } from './restoreJournal';
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
}

/** Applies the steps with a backup of every file changed; `backupDir` is where they are (removed again when nothing was written). */
export async function runRestore(steps: readonly RestoreStep[], options: RunOptions): Promise<ApplyResult & { backupDir?: string }> {
  if (!steps.length) return { written: [], deleted: [], skipped: [] };
  const root = await fs.realpath(options.root).catch(() => options.root);
  const dir = await newRestoreDir(options.session, options.env);
  const manifest: RestoreManifest = {
    version: 1,
    session: options.session,
    root,
    ...(options.to ? { to: options.to } : {}),
    startedAt: new Date().toISOString(),
    state: 'running',
    files: [],
    createdDirs: [],
  };
  await writeManifest(dir, manifest);
  const r = await applyRestore(steps, { root, journal: { dir, manifest }, hooks: options.hooks, signal: options.signal });
  if (!manifest.files.length) {
    await fs.rm(dir, { recursive: true, force: true });
    return r;
  }
  return { ...r, backupDir: dir };
}

export type UndoResult = { undone: false; reason: string } | ({ undone: true; backupDir: string } & ApplyResult);

/**
 * Puts back what the last restore of `session` in `root` changed: each file
 * only if it still holds what the restore wrote (else listed as skipped); a
 * file the restore created is removed, folders it created too when empty.
 */
export async function undoLastRestore(options: Omit<RunOptions, 'to'>): Promise<UndoResult> {
  const root = await fs.realpath(options.root).catch(() => undefined);
  if (!root) return { undone: false, reason: `working directory ${options.root} does not exist` };
  const last = await lastRestore(options.session, root, options.env);
  if (!last) return { undone: false, reason: 'no restore of this session in this working directory to undo' };
  const m = last.manifest;
  if (m.state === 'undone') return { undone: false, reason: `the last restore (${last.dir}) was already undone` };
  if (m.state === 'rolled-back')
    return { undone: false, reason: `the last restore (${last.dir}) failed and was rolled back: nothing to undo` };
  const steps: RestoreStep[] = [];
  const skipped: { path: string; reason: string }[] = [];
  for (const f of [...m.files].reverse()) {
    const s = inverseStep(f, last.dir);
    if (s) steps.push(s);
    else skipped.push({ path: f.path, reason: 'no backup of its earlier content' });
  }
  const r = await applyRestore(steps, {
    root,
    hooks: options.hooks,
    signal: options.signal,
    noRollback: true,
    since: 'the restore wrote it',
  });
  if (!r.failure) {
    const tree = await NoFollowTree.open(root);
    try {
      await tree.removeEmptyDirs(m.createdDirs);
    } finally {
      await tree.close();
    }
    m.state = 'undone';
    m.undoneAt = new Date().toISOString();
    await writeManifest(last.dir, m);
  }
  return { undone: true, backupDir: last.dir, ...r, skipped: [...skipped, ...r.skipped] };
}
