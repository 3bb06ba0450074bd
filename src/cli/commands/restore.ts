import { intFlag, stringFlag } from '../args';
import { assertWritable } from '../../engine/session/agents/readOnly';
import { parseWith, FILE_POSITIONAL, JSON_OPTION, usageError, type CommandSpec } from '../commandSpec';
import { printJson, reportDiagnostics, type Io } from '../output';
import { openSession } from '../sessionArgs';
import { withEveryEntry } from '../../engine/operations/entryLoads';
import { shownPath } from './files';
import { ArborUsageError } from '../../engine/session/diagnostics';
import { sessionCwd } from '../../engine/files/sessionFiles';
import {
  interruptedRestore,
  planRestore,
  restoreSteps,
  runRestore,
  undoInterruptedRestore,
  undoLastRestore,
  type RunResult,
  type UndoResult,
} from '../../engine/files/restoreRun';
import type { ApplyResult } from '../../engine/files/restoreTransaction';
import {
  backupRetentionFromEnv,
  BACKUP_RETENTION_ENV,
  DEFAULT_BACKUP_RETENTION,
  type BackupRetention,
} from '../../engine/files/backupRetention';

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
    'keep-backups': {
      type: 'string',
      value: 'N',
      description: `restores whose backups are kept per session (0: no limit; or ${BACKUP_RETENTION_ENV.count})`,
      default: String(DEFAULT_BACKUP_RETENTION.count),
    },
    'keep-backup-days': {
      type: 'string',
      value: 'DAYS',
      description: `backups older than this are removed (0: no limit; or ${BACKUP_RETENTION_ENV.days})`,
      default: String(DEFAULT_BACKUP_RETENTION.days),
    },
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
  const retention = retentionFlags(p.flags);
  const index = await openSession(file);
  reportDiagnostics(io, index);
  assertWritable(index);
  const root = stringFlag(p.flags, 'cwd') ?? sessionCwd(index);
  if (!root) throw new ArborUsageError(`${index.file} names no working directory: pass --cwd DIR`);
  if (undo) return undoCommand(io, index.file, root, p.flags.json === true);
  const ti = index.indexOf(to!);
  if (ti < 0) throw new ArborUsageError(`--to ${to}: no such entry in ${index.file}`);

  const dryRun = p.flags['dry-run'] === true;
  // An interrupted restore of this session is undone first (a dry run only says so).
  const recovered = dryRun ? undefined : await undoInterruptedRestore({ root, session: index.file });
  const pending = dryRun ? await interruptedRestore(index.file, root) : undefined;
  // The file histories read every entry (see withEveryEntry); they stay loaded through planRestore's disk checks.
  const plan = await withEveryEntry(index, () => planRestore(index, ti, { root, session: index.file }));
  const { steps, skipped } = restoreSteps(plan.decisions, {
    deleteCreated: p.flags['delete-created'] === true,
    deleteHint: 'pass --delete-created to delete it',
  });
  const applied: RunResult = dryRun
    ? {
        written: steps.filter((s) => s.action === 'write').map((s) => s.path),
        deleted: steps.filter((s) => s.action === 'delete').map((s) => s.path),
        skipped: [],
        already: [],
        notes: [],
      }
    : await runRestore(steps, { root: plan.root, session: index.file, to, retention });
  const report = {
    restored: applied.written,
    skipped: [...skipped, ...applied.skipped],
    deleted: applied.deleted,
    dryRun,
    ...(applied.notes.length ? { notes: applied.notes } : {}),
    ...(applied.backupDir ? { backup: applied.backupDir } : {}),
    ...(applied.failure ? { failure: applied.failure } : {}),
    ...(recovered ? { interruptedUndone: undoJson(recovered) } : {}),
    ...(pending ? { interruptedPending: pending.dir } : {}),
    ...(applied.pruned?.length ? { pruned: applied.pruned } : {}),
  };
  if (p.flags.json) await printJson(io, report);
  else {
    if (recovered) printUndo(io, recovered, 'an interrupted restore');
    if (pending) io.out(`an interrupted restore (${shownPath(pending.dir)}) is undone first when you restore (or: arbor restore --undo)`);
    const verb = dryRun ? 'would ' : '';
    for (const f of report.restored) io.out(`${verb}restore ${shownPath(f)}`);
    for (const f of report.deleted) io.out(`${verb}delete ${shownPath(f)}`);
    for (const s of report.skipped) io.out(`skip ${shownPath(s.path)}: ${shownPath(s.reason)}`);
    for (const n of applied.notes) io.out(`note ${shownPath(n.path)}: ${shownPath(n.note)}`);
    if (!plan.decisions.some((d) => d.action !== 'unchanged')) io.out('nothing to restore: the files already are as at that entry');
    if (applied.backupDir)
      io.out(`backup of the files it changed: ${shownPath(applied.backupDir)} (undo: arbor restore ${shownPath(index.file)} --undo)`);
    if (applied.failure) reportFailure(io, applied.failure, 'rolled back');
  }
  return applied.failure ? 1 : 0;
}

function retentionFlags(flags: Parameters<typeof intFlag>[0]): BackupRetention {
  const base = backupRetentionFromEnv();
  return { count: intFlag(flags, 'keep-backups') ?? base.count, days: intFlag(flags, 'keep-backup-days') ?? base.days };
}

function undoJson(r: UndoResult) {
  return r.undone
    ? {
        undone: true,
        interrupted: r.interrupted,
        restored: r.written,
        deleted: r.deleted,
        already: r.already,
        skipped: r.skipped,
        ...(r.notes.length ? { notes: r.notes } : {}),
        backup: r.backupDir,
        ...(r.failure ? { failure: r.failure } : {}),
      }
    : { undone: false, reason: r.reason };
}

/** What an undo did, in words (`what`: "the restore", or "an interrupted restore" found at the start of another). */
function printUndo(io: Io, r: UndoResult, what: string): void {
  if (!r.undone) {
    io.out(`nothing to undo: ${shownPath(r.reason)}`);
    return;
  }
  if (r.interrupted) io.out(`${what} (${shownPath(r.backupDir)}) did not finish; undoing what it changed`);
  for (const f of r.written) io.out(`put back ${shownPath(f)}`);
  for (const f of r.deleted) io.out(`delete ${shownPath(f)} (the restore created it)`);
  for (const f of r.already) io.out(`unchanged ${shownPath(f)}: already as before the restore`);
  for (const s of r.skipped) io.out(`skip ${shownPath(s.path)}: ${shownPath(s.reason)}`);
  for (const n of r.notes) io.out(`note ${shownPath(n.path)}: ${shownPath(n.note)}`);
  if (r.failure) reportFailure(io, r.failure, 'left put back');
}

async function undoCommand(io: Io, session: string, root: string, json: boolean): Promise<number> {
  const r = await undoLastRestore({ root, session });
  if (json) await printJson(io, undoJson(r));
  else printUndo(io, r, 'the last restore');
  return r.undone && r.failure ? 1 : 0;
}

function reportFailure(io: Io, f: NonNullable<ApplyResult['failure']>, rolled: string): void {
  io.err(`failed at ${shownPath(f.path)}: ${shownPath(f.error)}; nothing after it was tried`);
  if (f.rolledBack.length) io.err(`${rolled}: ${f.rolledBack.map(shownPath).join(', ')}`);
  for (const n of f.notRolledBack) io.err(`not rolled back: ${shownPath(n.path)}: ${shownPath(n.reason)}`);
}
