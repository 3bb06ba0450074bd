import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { closeChain, NoFollowTree, RefusedPath, sameFile, type OpenDir } from './noFollowTree';
import { syncDir, type JournalFile, type RestoreJournal } from './restoreJournal';
import { keepOwner } from './restoreOwner';
import { hashExisting, writeContent } from './restoreContent';

/**
 * Applying a restore (or its undo) as a transaction over files the session
 * owns. Per file, in order:
 * 1. the folders on the way are opened without following links (NoFollowTree);
 * 2. the file there is hashed as a stream and, for a restore, copied to the
 *    backup in the same pass (fsynced); it must still be what the plan saw
 *    (`onDisk`), else the file is skipped with the reason;
 * 3. the temporary file's name is recorded in the journal, then the new
 *    content goes to it, in the same folder (owner, mode, fsync);
 * 4. the file's intent (before, backup, after) is recorded in the journal;
 * 5. right before the replace: the file is still the one hashed (device,
 *    inode, size, times) and every folder on the way is still the one opened
 *    (verifyChain); else skipped, nothing written;
 * 6. rename over the file (a new file: hard link, so nothing that appeared
 *    meanwhile is overwritten), or unlink for a delete.
 * Every record is fsynced before the step it announces (restoreJournal.ts),
 * so a kill at any point leaves a journal that names each file the run may
 * have changed and every temporary file it may have left. Temporary files are
 * removed whatever happens short of a kill. A failure (an I/O error, not a
 * check) stops the run and rolls back, through the same steps, what was
 * already written; the result says what was and was not rolled back. A file
 * or folder that vanishes during the run (ENOENT) is a skip with what
 * vanished, not a failure.
 */
export interface RestoreStep {
  path: string;
  action: 'write' | 'delete';
  /** A write's new content: text, or the bytes of a file (a backup being put back). */
  text?: string;
  fromFile?: string;
  /** sha256 `fromFile` must have (a backup is checked before it is put back). */
  contentSha?: string;
  /** Mode and owner for a file that does not exist yet. */
  mode?: number;
  owner?: { uid: number; gid: number };
  /** What must be on disk right before: sha256, or null for no file. */
  onDisk: string | null;
  /** When the disk already holds this (sha256, or null for no file), the step is done already (an undo after a crash). */
  already?: { sha256: string | null };
}

/** The points of a step, in order, where a test may stop or kill the run. */
export type RestorePoint = 'backed-up' | 'temp-written' | 'intent' | 'replaced';

export interface RestoreHooks {
  /** Called when a file was verified and its new content is ready, right before the last checks and the replace (tests change the tree here). */
  beforeReplace?(path: string): void | Promise<void>;
  /** Called at each point of each step (tests inject a failure or a kill there). */
  at?(point: RestorePoint, path: string): void | Promise<void>;
}

export interface ApplyOptions {
  root: string;
  /**
   * The journal. `restore`: backups and intents are recorded before each
   * change (a failure to record stops the run). `undo`: only the temporary
   * files it makes are recorded, as far as the disk allows.
   */
  journal?: { journal: RestoreJournal; mode: 'restore' | 'undo' };
  hooks?: RestoreHooks;
  signal?: AbortSignal;
  /** Since when a file must be unchanged, for the reason of a skip (default "the restore was planned"). */
  since?: string;
  /** On a failure, leave what was done (an undo: what it put back stays put back). */
  noRollback?: boolean;
}

export interface ApplyResult {
  written: string[];
  deleted: string[];
  skipped: { path: string; reason: string }[];
  /** Files already as the step would leave them (an undo of an interrupted restore: never changed, or put back already). */
  already: string[];
  /** What was done but not entirely as the file was (an owner only root may give). */
  notes: { path: string; note: string }[];
  /** A step failed: nothing after it was tried; what was written before it was rolled back (or is listed as not). */
  failure?: { path: string; error: string; rolledBack: string[]; notRolledBack: { path: string; reason: string }[] };
}

interface Done {
  file: JournalFile;
  created: string[];
}

type StepOutcome = { done: Done; note?: string } | { skip: string } | { already: true };

export async function applyRestore(steps: readonly RestoreStep[], options: ApplyOptions): Promise<ApplyResult> {
  const result: ApplyResult = { written: [], deleted: [], skipped: [], already: [], notes: [] };
  let tree: NoFollowTree;
  try {
    tree = await NoFollowTree.open(options.root);
  } catch (err) {
    for (const s of steps) result.skipped.push({ path: s.path, reason: (err as Error).message });
    return result;
  }
  const done: Done[] = [];
  try {
    for (const step of steps) {
      let outcome: StepOutcome;
      try {
        outcome = await applyStep(tree, step, options);
      } catch (err) {
        if (err instanceof RefusedPath) outcome = { skip: err.message };
        else {
          if ((err as Error).name === 'AbortError' && !done.length) {
            await endJournal(options, 'rolled-back');
            throw err;
          }
          const kept = {
            rolledBack: [],
            notRolledBack: done.map((d) => ({ path: d.file.path, reason: 'put back before the failure; stays put back' })),
          };
          // Every file whose intent the journal holds (the failing one too: it may have been replaced), judged on disk.
          const journaled = options.journal?.mode === 'restore' ? options.journal.journal.manifest : undefined;
          const toRollBack = journaled
            ? { files: journaled.files, createdDirs: journaled.createdDirs }
            : { files: done.map((d) => d.file), createdDirs: done.flatMap((d) => d.created) };
          result.failure = {
            path: step.path,
            error: (err as Error).message,
            ...(options.noRollback ? kept : await rollBack(tree, toRollBack, options)),
          };
          await endJournal(options, result.failure.notRolledBack.length ? 'failed' : 'rolled-back');
          return result;
        }
      }
      if ('skip' in outcome) {
        result.skipped.push({ path: step.path, reason: outcome.skip });
        continue;
      }
      if ('already' in outcome) {
        result.already.push(step.path);
        continue;
      }
      done.push(outcome.done);
      if (outcome.note) result.notes.push({ path: step.path, note: outcome.note });
      (step.action === 'write' ? result.written : result.deleted).push(step.path);
    }
    await endJournal(options, 'complete');
    return result;
  } finally {
    await tree.close();
  }
}

/** The restore's last record; a disk too full for it leaves the run "interrupted", which undo handles the same way. */
async function endJournal(options: ApplyOptions, state: 'complete' | 'failed' | 'rolled-back'): Promise<void> {
  if (options.journal?.mode === 'restore') await options.journal.journal.append({ t: 'end', state }).catch(() => undefined);
}

/** Puts back, newest first, what the run wrote: each file only if it still holds what the run left (one still as before needs nothing). */
async function rollBack(
  tree: NoFollowTree,
  run: { files: readonly JournalFile[]; createdDirs: readonly string[] },
  options: ApplyOptions,
): Promise<{ rolledBack: string[]; notRolledBack: { path: string; reason: string }[] }> {
  const rolledBack: string[] = [];
  const notRolledBack: { path: string; reason: string }[] = [];
  const journal = options.journal && { journal: options.journal.journal, mode: 'undo' as const };
  for (const f of [...run.files].reverse()) {
    const undo = inverseStep(f, journal?.journal.dir);
    if (!undo) {
      notRolledBack.push({ path: f.path, reason: 'no backup of its earlier content' });
      continue;
    }
    try {
      const r = await applyStep(tree, undo, { journal, since: 'this restore wrote it' });
      if ('skip' in r) notRolledBack.push({ path: f.path, reason: r.skip });
      else if ('done' in r) rolledBack.push(f.path);
    } catch (err) {
      notRolledBack.push({ path: f.path, reason: (err as Error).message });
    }
  }
  await tree.removeEmptyDirs([...run.createdDirs]);
  return { rolledBack, notRolledBack };
}

/** The step that undoes a journal record: the backup put back (checked against the sha256 before), or the created file removed. */
export function inverseStep(f: JournalFile, dir: string | undefined): RestoreStep | undefined {
  const already = { sha256: f.before };
  if (f.before === null) return { path: f.path, action: 'delete', onDisk: f.after, already };
  if (!f.backup || !dir) return undefined;
  return {
    path: f.path,
    action: 'write',
    fromFile: path.join(dir, f.backup),
    contentSha: f.before,
    mode: f.mode,
    ...(f.uid !== undefined && f.gid !== undefined ? { owner: { uid: f.uid, gid: f.gid } } : {}),
    onDisk: f.after,
    already,
  };
}

type StepOptions = Pick<ApplyOptions, 'journal' | 'hooks' | 'signal' | 'since'>;

async function applyStep(tree: NoFollowTree, step: RestoreStep, options: StepOptions): Promise<StepOutcome> {
  options.signal?.throwIfAborted();
  const created: string[] = [];
  const parents = await tree.openParents(step.path, { create: step.action === 'write' && step.onDisk === null, created });
  if (!parents) {
    if (step.already?.sha256 === null) return { already: true };
    return { skip: `missing on disk since ${options.since ?? 'the restore was planned'}` };
  }
  const dir = parents.chain[parents.chain.length - 1];
  const name = parents.name;
  const restoring = options.journal?.mode === 'restore' ? options.journal.journal : undefined;
  const at = async (point: RestorePoint) => options.hooks?.at?.(point, step.path);
  let tmp: string | undefined;
  let backup: string | undefined;
  let ok = false;
  try {
    for (const d of created) await noteInJournal(options, { t: 'dir', path: d });
    // What is there now, hashed (and backed up, fsynced) in one pass.
    backup = restoring?.backupName(restoring.manifest.files.length + 1);
    const seen = await hashExisting(tree, dir, name, backup, options.signal);
    if (seen && backup) {
      await syncDir(path.dirname(backup));
      await at('backed-up');
    } else backup = undefined;
    if (step.already && (seen?.sha256 ?? null) === step.already.sha256) return { already: true };
    if ((seen?.sha256 ?? null) !== step.onDisk)
      return {
        skip:
          `${seen ? (step.onDisk === null ? 'a file is there now' : 'changed on disk') : 'missing on disk'} since ` +
          `${options.since ?? 'the restore was planned'}; left as it is`,
      };
    let after: string | null = null;
    let note: string | undefined;
    if (step.action === 'write') {
      const mode = seen ? Number(seen.stat.mode & 0o7777n) : step.mode;
      const owner = seen ? { uid: Number(seen.stat.uid), gid: Number(seen.stat.gid) } : step.owner;
      const name_ = NoFollowTree.tempName(name);
      await noteInJournal(options, { t: 'temp', path: path.relative(tree.root, path.join(dir.abs, name_)).split(path.sep).join('/') });
      const handle = await inTree(tree, parents.chain, name, () => tree.createTemp(dir, name_, mode === undefined ? 0o666 : 0o600));
      tmp = name_;
      try {
        after = await writeContent(handle, step, options.signal);
        if (owner) note = await keepOwner(handle, owner);
        if (mode !== undefined) await handle.chmod(mode);
        await handle.sync();
      } finally {
        await handle.close();
      }
      if (step.contentSha !== undefined && after !== step.contentSha)
        return { skip: `its backup ${step.fromFile} does not hold the bytes it had before the restore; left as it is` };
      await at('temp-written');
    }
    const file: JournalFile = {
      path: step.path,
      action: step.action,
      before: seen?.sha256 ?? null,
      ...(backup ? { backup: path.relative(restoring!.dir, backup).split(path.sep).join('/') } : {}),
      after,
      ...(seen ? { mode: Number(seen.stat.mode & 0o7777n), uid: Number(seen.stat.uid), gid: Number(seen.stat.gid) } : {}),
    };
    if (restoring) {
      await restoring.append({ t: 'intent', file });
      await at('intent');
    }
    try {
      await options.hooks?.beforeReplace?.(step.path);
      const now = await tree.lstat(dir, name);
      if (seen ? !now || !sameFile(seen.stat, now) : now !== undefined)
        throw new RefusedPath('changed on disk during the restore (after it was verified); left as it is');
      await tree.verifyChain(parents.chain);
      if (step.action === 'delete') await inTree(tree, parents.chain, name, () => tree.unlink(dir, name));
      else if (seen) await inTree(tree, parents.chain, name, () => tree.rename(dir, tmp!, name), tmp);
      else {
        try {
          await inTree(tree, parents.chain, name, () => tree.linkNew(dir, tmp!, name), tmp);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'EEXIST')
            throw new RefusedPath('a file appeared there during the restore; left as it is');
          throw err;
        }
      }
    } catch (err) {
      // The intent was not carried out: the journal says so (then its backup is not needed).
      if (restoring && err instanceof RefusedPath) await restoring.append({ t: 'left', path: step.path }).catch(() => undefined);
      throw err;
    }
    tmp = undefined;
    ok = true;
    await at('replaced');
    return { done: { created, file }, ...(note ? { note } : {}) };
  } finally {
    if (tmp) await tree.removeQuietly(dir, tmp);
    await closeChain(parents.chain);
    if (!ok) {
      // A backup the journal still names (an intent whose file may have changed) stays.
      if (backup && !restoring?.manifest.files.some((f) => f.backup !== undefined && path.join(restoring.dir, f.backup) === backup))
        await fs.unlink(backup).catch(() => undefined);
      await tree.removeEmptyDirs(created);
    }
  }
}

/** Records a folder or temporary file before the working directory holds it: a restore must (else it stops); an undo tries. */
async function noteInJournal(options: StepOptions, record: { t: 'dir' | 'temp'; path: string }): Promise<void> {
  if (!options.journal) return;
  const append = options.journal.journal.append(record);
  if (options.journal.mode === 'restore') await append;
  else await append.catch(() => undefined);
}

/**
 * An operation in the working directory; ENOENT (something vanished since it
 * was verified: another program at work) becomes a skip naming what vanished.
 */
async function inTree<T>(tree: NoFollowTree, chain: OpenDir[], name: string, fn: () => Promise<T>, tmp?: string): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    await tree.verifyChain(chain); // a folder on the way moved or removed: its own message
    const dir = chain[chain.length - 1];
    if (tmp && !(await tree.lstat(dir, tmp)))
      throw new RefusedPath('its temporary file was removed by another program during the restore; left as it is');
    if (!(await tree.lstat(dir, name))) throw new RefusedPath('removed by another program during the restore; left as it is');
    throw new RefusedPath(`something on its way vanished during the restore (${(err as Error).message}); left as it is`);
  }
}
