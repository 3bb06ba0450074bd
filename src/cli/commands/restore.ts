import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { stringFlag } from '../args';
import { parseWith, FILE_POSITIONAL, JSON_OPTION, usageError, type CommandSpec } from '../commandSpec';
import { printJson, reportDiagnostics, type Io } from '../output';
import { openSession } from '../sessionArgs';
import { shownPath } from './files';
import { ArborUsageError } from '../../engine/session/diagnostics';
import { sessionCwd } from '../../engine/files/sessionFiles';
import { decideRestore, restoreCandidates, type RestoreDecision } from '../../engine/files/restorePlan';
import { candidateDiskState, safeLocation } from '../../engine/files/diskState';
import { restoreReasons } from '../../engine/files/restoreReasons';

export const restoreSpec: CommandSpec = {
  name: 'restore',
  summary: 'puts the files the session changed back to their state at an entry (checked on disk first)',
  positionals: [FILE_POSITIONAL],
  options: {
    to: { type: 'string', value: 'ID', description: 'the entry whose file state to restore', required: true },
    cwd: { type: 'string', value: 'DIR', description: 'the folder the paths are relative to', default: "the session's cwd" },
    'dry-run': { type: 'boolean', description: 'say what would be done, write nothing' },
    'delete-created': { type: 'boolean', description: 'delete files the session created on a branch the entry does not contain' },
    ...JSON_OPTION,
  },
  examples: ['arbor restore session.jsonl --to 3f2a9c1d --dry-run'],
};

export interface RestoreReport {
  restored: string[];
  skipped: { path: string; reason: string }[];
  deleted: string[];
}

/**
 * `arbor restore`: puts the files the session changed back to their state at
 * entry `--to`, where the session determines both that state and what is on
 * disk now (sha256 of the file equals the content the session last produced).
 * Everything else is listed as skipped with the reason. A file the session
 * created on a branch the target does not contain is deleted only with
 * `--delete-created`. All checks happen before the first write; `--dry-run`
 * writes nothing. Nothing is written outside the working directory.
 */
export async function restoreCommand(argv: string[], io: Io): Promise<number> {
  const p = parseWith(restoreSpec, argv);
  const [file] = p.positionals;
  const to = stringFlag(p.flags, 'to');
  if (!to) throw usageError(restoreSpec, '--to ID is required');
  const index = await openSession(file);
  reportDiagnostics(io, index);
  const ti = index.indexOf(to);
  if (ti < 0) throw new ArborUsageError(`--to ${to}: no such entry in ${index.file}`);
  const root = stringFlag(p.flags, 'cwd') ?? sessionCwd(index);
  if (!root) throw new ArborUsageError(`${index.file} names no working directory: pass --cwd DIR`);

  const decisions: RestoreDecision[] = [];
  for (const c of restoreCandidates(index, ti)) decisions.push(decideRestore(c, await candidateDiskState(root, c)));
  const report: RestoreReport = { restored: [], skipped: [], deleted: [] };
  const dryRun = p.flags['dry-run'] === true;
  for (const d of decisions) {
    if (d.action === 'skip') report.skipped.push({ path: d.path, reason: d.reason });
    else if (d.action === 'delete' && p.flags['delete-created'] !== true) {
      report.skipped.push({ path: d.path, reason: restoreReasons.createdOnBranch(d.reason, 'pass --delete-created to delete it').text });
    }
  }
  for (const d of decisions) {
    if (d.action !== 'restore' && !(d.action === 'delete' && p.flags['delete-created'] === true)) continue;
    const loc = await safeLocation(root, d.path);
    if (!loc.ok) {
      report.skipped.push({ path: d.path, reason: loc.reason });
      continue;
    }
    if (d.action === 'restore') {
      if (!dryRun) await writeAtomically(loc.abs, d.text);
      report.restored.push(d.path);
    } else {
      if (!dryRun) await fs.unlink(loc.abs);
      report.deleted.push(d.path);
    }
  }
  if (p.flags.json) {
    printJson(io, { ...report, dryRun });
    return 0;
  }
  const verb = dryRun ? 'would ' : '';
  for (const f of report.restored) io.out(`${verb}restore ${shownPath(f)}`);
  for (const f of report.deleted) io.out(`${verb}delete ${shownPath(f)}`);
  for (const s of report.skipped) io.out(`skip ${shownPath(s.path)}: ${shownPath(s.reason)}`);
  if (!decisions.length) io.out('nothing to restore: the files already are as at that entry');
  return 0;
}

/** Writes through a temporary file in the same folder and a rename, so a reader never sees half a file. */
async function writeAtomically(abs: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(abs), { recursive: true });
  const tmp = path.join(path.dirname(abs), `.${path.basename(abs)}.arbor-restore-${process.pid}`);
  let mode: number | undefined;
  try {
    mode = (await fs.stat(abs)).mode;
  } catch {
    mode = undefined;
  }
  await fs.writeFile(tmp, text, { flag: 'wx', mode });
  await fs.rename(tmp, abs);
}
