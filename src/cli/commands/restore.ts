import { stringFlag } from '../args';
import { assertWritable } from '../../engine/session/agents/readOnly';
import { parseWith, FILE_POSITIONAL, JSON_OPTION, usageError, type CommandSpec } from '../commandSpec';
import { printJson, reportDiagnostics, type Io } from '../output';
import { openSession } from '../sessionArgs';
import { withEveryEntry } from '../../engine/operations/entryLoads';
import { shownPath } from './files';
import { ArborUsageError } from '../../engine/session/diagnostics';
import { sessionCwd } from '../../engine/files/sessionFiles';
import { planRestore, restoreSteps, runRestore, undoLastRestore } from '../../engine/files/restoreRun';
import type { ApplyResult } from '../../engine/files/restoreTransaction';

export const restoreSpec: CommandSpec = {
  name: 'restore',
  summary:
    'puts the files the session changed back to their state at an entry (checked on disk first, backed up), or undoes the last restore',
  positionals: [FILE_POSITIONAL],
  synopsis: 'FILE (--to ID [--dry-run] [--delete-created] | --undo)',
  options: {
    to: { type: 'string', value: 'ID', description: 'the entry whose file state to restore' },
    undo: { type: 'boolean', description: 'put back what the last restore of the session in that folder changed' },
    cwd: { type: 'string', value: 'DIR', description: 'the folder the paths are relative to', default: "the session's cwd" },
    'dry-run': { type: 'boolean', description: 'say what would be done, write nothing' },
    'delete-created': { type: 'boolean', description: 'delete files the session created on a branch the entry does not contain' },
    ...JSON_OPTION,
  },
  examples: ['arbor restore session.jsonl --to 3f2a9c1d --dry-run', 'arbor restore session.jsonl --undo'],
};

export interface RestoreReport {
  restored: string[];
  skipped: { path: string; reason: string }[];
  deleted: string[];
}

/**
 * `arbor restore`: puts the files the session changed back to their state at
 * entry `--to`, where the session determines both that state and what is on
 * disk now (sha256 of the file equals the content the session last produced,
 * or what the last restore wrote). Everything else is listed as skipped with
 * the reason. A file the session created on a branch the target does not
 * contain is deleted only with `--delete-created`. Each file is verified
 * again right before it is replaced, through a walk that follows no link,
 * and backed up first (restoreTransaction.ts); `--undo` puts back the last
 * restore. `--dry-run` writes nothing.
 */
export async function restoreCommand(argv: string[], io: Io): Promise<number> {
  const p = parseWith(restoreSpec, argv);
  if (p.positionals.length !== 1) throw usageError(restoreSpec, 'give one session FILE');
  const [file] = p.positionals;
  const to = stringFlag(p.flags, 'to');
  const undo = p.flags.undo === true;
  if (undo && (to !== undefined || p.flags['dry-run'] || p.flags['delete-created']))
    throw usageError(restoreSpec, '--undo goes without --to, --dry-run and --delete-created');
  if (!undo && !to) throw usageError(restoreSpec, '--to ID (or --undo) is required');
  const index = await openSession(file);
  reportDiagnostics(io, index);
  assertWritable(index);
  const root = stringFlag(p.flags, 'cwd') ?? sessionCwd(index);
  if (!root) throw new ArborUsageError(`${index.file} names no working directory: pass --cwd DIR`);
  if (undo) return undoCommand(io, index.file, root, p.flags.json === true);
  const ti = index.indexOf(to!);
  if (ti < 0) throw new ArborUsageError(`--to ${to}: no such entry in ${index.file}`);

  // The file histories read every entry (see withEveryEntry); they stay loaded through planRestore's disk checks.
  const plan = await withEveryEntry(index, () => planRestore(index, ti, { root, session: index.file }));
  const dryRun = p.flags['dry-run'] === true;
  const { steps, skipped } = restoreSteps(plan.decisions, {
    deleteCreated: p.flags['delete-created'] === true,
    deleteHint: 'pass --delete-created to delete it',
  });
  const applied: ApplyResult & { backupDir?: string } = dryRun
    ? {
        written: steps.filter((s) => s.action === 'write').map((s) => s.path),
        deleted: steps.filter((s) => s.action === 'delete').map((s) => s.path),
        skipped: [],
      }
    : await runRestore(steps, { root: plan.root, session: index.file, to });
  const report = {
    restored: applied.written,
    skipped: [...skipped, ...applied.skipped],
    deleted: applied.deleted,
    dryRun,
    ...(applied.backupDir ? { backup: applied.backupDir } : {}),
    ...(applied.failure ? { failure: applied.failure } : {}),
  };
  if (p.flags.json) await printJson(io, report);
  else {
    const verb = dryRun ? 'would ' : '';
    for (const f of report.restored) io.out(`${verb}restore ${shownPath(f)}`);
    for (const f of report.deleted) io.out(`${verb}delete ${shownPath(f)}`);
    for (const s of report.skipped) io.out(`skip ${shownPath(s.path)}: ${shownPath(s.reason)}`);
    if (!plan.decisions.some((d) => d.action !== 'unchanged')) io.out('nothing to restore: the files already are as at that entry');
    if (applied.backupDir)
      io.out(`backup of the files it changed: ${shownPath(applied.backupDir)} (undo: arbor restore ${shownPath(index.file)} --undo)`);
    if (applied.failure) reportFailure(io, applied.failure, 'rolled back');
  }
  return applied.failure ? 1 : 0;
}

async function undoCommand(io: Io, session: string, root: string, json: boolean): Promise<number> {
  const r = await undoLastRestore({ root, session });
  if (json) {
    await printJson(
      io,
      r.undone
        ? {
            undone: true,
            restored: r.written,
            deleted: r.deleted,
            skipped: r.skipped,
            backup: r.backupDir,
            ...(r.failure ? { failure: r.failure } : {}),
          }
        : { undone: false, reason: r.reason },
    );
  } else if (!r.undone) io.out(`nothing to undo: ${shownPath(r.reason)}`);
  else {
    for (const f of r.written) io.out(`put back ${shownPath(f)}`);
    for (const f of r.deleted) io.out(`delete ${shownPath(f)} (the restore created it)`);
    for (const s of r.skipped) io.out(`skip ${shownPath(s.path)}: ${shownPath(s.reason)}`);
    if (r.failure) reportFailure(io, r.failure, 'left put back');
  }
  return r.undone && r.failure ? 1 : 0;
}

function reportFailure(io: Io, f: NonNullable<ApplyResult['failure']>, rolled: string): void {
  io.err(`failed at ${shownPath(f.path)}: ${shownPath(f.error)}; nothing after it was tried`);
  if (f.rolledBack.length) io.err(`${rolled}: ${f.rolledBack.map(shownPath).join(', ')}`);
  for (const n of f.notRolledBack) io.err(`not rolled back: ${shownPath(n.path)}: ${shownPath(n.reason)}`);
}
