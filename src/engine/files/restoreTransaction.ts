import { promises as fs, type BigIntStats } from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { closeChain, NoFollowTree, RefusedPath, sameFile, type OpenDir } from './noFollowTree';
import { hashHandle, HASH_BLOCK, writeAll } from './fileHash';
import { writeManifest, type JournalFile, type RestoreManifest } from './restoreJournal';

/**
 * Applying a restore (or its undo) as a transaction over files the session
 * owns. Per file, in order:
 * 1. the folders on the way are opened without following links (NoFollowTree);
 * 2. the file there is hashed as a stream and, for a restore, copied to the
 *    backup in the same pass; it must still be what the plan saw (`onDisk`),
 *    else the file is skipped with the reason;
 * 3. the new content goes to a temporary file in the same folder (fsynced);
 * 4. right before the replace: the file is still the one hashed (device,
 *    inode, size, times) and every folder on the way is still the one opened
 *    (verifyChain); else skipped, nothing written;
 * 5. rename over the file (a new file: hard link, so nothing that appeared
 *    meanwhile is overwritten), or unlink for a delete.
 * Temporary files are removed whatever happens. A failure (an I/O error, not
 * a check) stops the run and rolls back, through the same steps, what was
 * already written; the result says what was and was not rolled back.
 */
export interface RestoreStep {
  path: string;
  action: 'write' | 'delete';
  /** A write's new content: text, or the bytes of a file (a backup being put back). */
  text?: string;
  fromFile?: string;
  /** Mode for a file that does not exist yet. */
  mode?: number;
  /** What must be on disk right before: sha256, or null for no file. */
  onDisk: string | null;
}

export interface RestoreHooks {
  /** Called when a file was verified and its new content is ready, right before the last checks and the replace (tests change the tree here). */
  beforeReplace?(path: string): void | Promise<void>;
}

export interface ApplyOptions {
  root: string;
  /** Backups and the record of what was done (a folder from newRestoreDir and its manifest); none for an undo or a rollback. */
  journal?: { dir: string; manifest: RestoreManifest };
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
  /** A step failed: nothing after it was tried; what was written before it was rolled back (or is listed as not). */
  failure?: { path: string; error: string; rolledBack: string[]; notRolledBack: { path: string; reason: string }[] };
}

interface Done {
  file: JournalFile;
  created: string[];
}

type StepOutcome = { done: Done } | { skip: string };

export async function applyRestore(steps: readonly RestoreStep[], options: ApplyOptions): Promise<ApplyResult> {
  const result: ApplyResult = { written: [], deleted: [], skipped: [] };
  let tree: NoFollowTree;
  try {
    tree = await NoFollowTree.open(options.root);
  } catch (err) {
    for (const s of steps) result.skipped.push({ path: s.path, reason: (err as Error).message });
    return result;
  }
  const journal = options.journal;
  const done: Done[] = [];
  try {
    for (const step of steps) {
      let outcome: StepOutcome;
      try {
        outcome = await applyStep(tree, step, {
          ...options,
          backupName: journal ? path.join(journal.dir, 'files', String(done.length + 1)) : undefined,
        });
      } catch (err) {
        if (err instanceof RefusedPath) outcome = { skip: err.message };
        else {
          if ((err as Error).name === 'AbortError' && !done.length) throw err;
          const kept = {
            rolledBack: [],
            notRolledBack: done.map((d) => ({ path: d.file.path, reason: 'put back before the failure; stays put back' })),
          };
          result.failure = {
            path: step.path,
            error: (err as Error).message,
            ...(options.noRollback ? kept : await rollBack(tree, done, options)),
          };
          if (journal) {
            journal.manifest.state = result.failure.notRolledBack.length ? 'failed' : 'rolled-back';
            await writeManifest(journal.dir, journal.manifest);
          }
          return result;
        }
      }
      if ('skip' in outcome) {
        result.skipped.push({ path: step.path, reason: outcome.skip });
        continue;
      }
      done.push(outcome.done);
      (step.action === 'write' ? result.written : result.deleted).push(step.path);
      if (journal) {
        journal.manifest.files.push(outcome.done.file);
        journal.manifest.createdDirs.push(...outcome.done.created);
        await writeManifest(journal.dir, journal.manifest);
      }
    }
    if (journal) {
      journal.manifest.state = 'complete';
      await writeManifest(journal.dir, journal.manifest);
    }
    return result;
  } finally {
    await tree.close();
  }
}

/** Puts back, newest first, what the run wrote: each file only if it still holds what the run left. */
async function rollBack(
  tree: NoFollowTree,
  done: Done[],
  options: ApplyOptions,
): Promise<{ rolledBack: string[]; notRolledBack: { path: string; reason: string }[] }> {
  const rolledBack: string[] = [];
  const notRolledBack: { path: string; reason: string }[] = [];
  for (const d of [...done].reverse()) {
    const undo = inverseStep(d.file, options.journal?.dir);
    if (!undo) {
      notRolledBack.push({ path: d.file.path, reason: 'no backup of its earlier content' });
      continue;
    }
    try {
      const r = await applyStep(tree, undo, { since: 'this restore wrote it' });
      if ('skip' in r) notRolledBack.push({ path: d.file.path, reason: r.skip });
      else rolledBack.push(d.file.path);
    } catch (err) {
      notRolledBack.push({ path: d.file.path, reason: (err as Error).message });
    }
    await tree.removeEmptyDirs(d.created);
  }
  return { rolledBack, notRolledBack };
}

/** The step that undoes a journal record: the backup put back, or the created file removed. */
export function inverseStep(f: JournalFile, dir: string | undefined): RestoreStep | undefined {
  if (f.before === null) return { path: f.path, action: 'delete', onDisk: f.after };
  if (!f.backup || !dir) return undefined;
  return { path: f.path, action: 'write', fromFile: path.join(dir, f.backup), mode: f.mode, onDisk: f.after };
}

async function applyStep(
  tree: NoFollowTree,
  step: RestoreStep,
  options: { hooks?: RestoreHooks; signal?: AbortSignal; backupName?: string; since?: string },
): Promise<StepOutcome> {
  options.signal?.throwIfAborted();
  const created: string[] = [];
  const parents = await tree.openParents(step.path, { create: step.action === 'write' && step.onDisk === null, created });
  if (!parents) return { skip: `missing on disk since ${options.since ?? 'the restore was planned'}` };
  const dir = parents.chain[parents.chain.length - 1];
  const name = parents.name;
  let tmp: string | undefined;
  let backup: string | undefined;
  let ok = false;
  try {
    // What is there now, hashed (and backed up) in one pass.
    backup = options.backupName;
    const seen = await hashExisting(tree, dir, name, options.backupName, options.signal);
    if ((seen?.sha256 ?? null) !== step.onDisk)
      return {
        skip:
          `${seen ? (step.onDisk === null ? 'a file is there now' : 'changed on disk') : 'missing on disk'} since ` +
          `${options.since ?? 'the restore was planned'}; left as it is`,
      };
    let after: string | null = null;
    if (step.action === 'write') {
      const mode = seen ? Number(seen.stat.mode & 0o7777n) : step.mode;
      const t = await tree.createTemp(dir, name, mode === undefined ? 0o666 : 0o600);
      tmp = t.name;
      try {
        after = await writeContent(t.handle, step, options.signal);
        if (mode !== undefined) await t.handle.chmod(mode);
        await t.handle.sync();
      } finally {
        await t.handle.close();
      }
    }
    await options.hooks?.beforeReplace?.(step.path);
    const now = await tree.lstat(dir, name);
    if (seen ? !now || !sameFile(seen.stat, now) : now !== undefined)
      return { skip: 'changed on disk during the restore (after it was verified); left as it is' };
    await tree.verifyChain(parents.chain);
    if (step.action === 'delete') await tree.unlink(dir, name);
    else if (seen) await tree.rename(dir, tmp!, name);
    else {
      try {
        await tree.linkNew(dir, tmp!, name);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') return { skip: 'a file appeared there during the restore; left as it is' };
        throw err;
      }
    }
    tmp = undefined;
    ok = true;
    const mode = seen ? Number(seen.stat.mode & 0o7777n) : undefined;
    return {
      done: {
        created,
        file: {
          path: step.path,
          action: step.action,
          before: seen?.sha256 ?? null,
          ...(seen && backup
            ? {
                backup: path
                  .relative(path.dirname(path.dirname(backup)), backup)
                  .split(path.sep)
                  .join('/'),
              }
            : {}),
          after,
          ...(mode !== undefined ? { mode } : {}),
        },
      },
    };
  } finally {
    if (tmp) await tree.removeQuietly(dir, tmp);
    await closeChain(parents.chain);
    if (!ok) {
      if (backup) await fs.unlink(backup).catch(() => undefined);
      await tree.removeEmptyDirs(created);
    }
  }
}

async function hashExisting(
  tree: NoFollowTree,
  dir: OpenDir,
  name: string,
  backupName: string | undefined,
  signal?: AbortSignal,
): Promise<{ sha256: string; stat: BigIntStats } | undefined> {
  const file = await tree.openFile(dir, name);
  if (!file) return undefined;
  try {
    const copy = backupName ? await fs.open(backupName, 'wx', 0o600) : undefined;
    let sha: string;
    try {
      sha = (await hashHandle(file.handle, { copyTo: copy, signal })).sha256;
      await copy?.sync();
    } finally {
      await copy?.close();
    }
    const end = await file.handle.stat({ bigint: true });
    if (!sameFile(file.stat, end)) throw new RefusedPath('changed on disk while it was being read');
    return { sha256: sha, stat: file.stat };
  } finally {
    await file.handle.close();
  }
}

/** Writes a step's content to the temporary file; returns its sha256. */
async function writeContent(handle: import('node:fs/promises').FileHandle, step: RestoreStep, signal?: AbortSignal): Promise<string> {
  if (step.text !== undefined) {
    const bytes = Buffer.from(step.text, 'utf8');
    await writeAll(handle, bytes);
    return createHash('sha256').update(bytes).digest('hex');
  }
  const src = await fs.open(step.fromFile!, 'r');
  try {
    const hash = createHash('sha256');
    const buf = Buffer.allocUnsafe(HASH_BLOCK);
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead } = await src.read(buf, 0, buf.length, null);
      if (!bytesRead) break;
      hash.update(buf.subarray(0, bytesRead));
      await writeAll(handle, buf.subarray(0, bytesRead));
    }
    return hash.digest('hex');
  } finally {
    await src.close();
  }
}
