import * as vscode from 'vscode';
import { restoreReasons } from '../../engine/files/restoreReasons';
import { sessionCwd } from '../../engine/files/sessionFiles';
import type { RestoreDecision } from '../../engine/files/restorePlan';
import { safeLocation } from '../../engine/files/diskState';
import {
  planRestore as planEngineRestore,
  restoreSteps,
  runRestore,
  undoInterruptedRestore,
  undoLastRestore,
  type RestorePlan,
  type UndoResult,
} from '../../engine/files/restoreRun';
import type { ArborServices } from '../services';
import type { SessionModel } from '../sessions/sessionStore';
import { askModal, showInfo, showWarning } from '../platform/notify';
import { log } from '../platform/logging';
import { engineEnv, readConfig } from '../platform/settings';
import { cachedSessionFiles } from './sessionFilesCache';
import { withEveryEntry } from '../../engine/operations/entryLoads';
import { parseCommandTarget, targetEntry, targetFile } from '../tree/commandTarget';
import type { FileStepDocuments } from './fileDocuments';

/** Options for restoring from code (tests, other extensions): no questions. */
export interface RestoreFilesOptions {
  /** Only these files (paths relative to the session's cwd). */
  paths?: string[];
  /** Delete the files the session created on a branch the target does not contain. */
  deleteCreated?: boolean;
  /** Write the target content of these skipped files anyway (what a user does after looking at the diff). */
  choose?: string[];
}

export interface RestoreFilesResult {
  restored: string[];
  skipped: { path: string; reason: string }[];
  deleted: string[];
  /** Where the files it changed are backed up (Arbor: Undo Last File Restore puts them back). */
  backup?: string;
  /** An interrupted restore of the session found first and undone (its report). */
  interruptedUndone?: UndoRestoreResult;
}

type Plan = RestorePlan & { recovered?: UndoRestoreResult };

const actionable = (d: RestoreDecision) =>
  d.action === 'restore' || d.action === 'delete' || (d.action === 'skip' && d.chooseText !== undefined);

/** The restore last made in this window, for Undo. */
let lastRun: { session: string; root: string } | undefined;

/**
 * Per file: the target content, the disk check (the engine's plan, as the CLI's) and the decision; files with unsaved
 * editor changes are held. Touches nothing.
 */
async function planRestore(model: SessionModel, targetIndex: number): Promise<Plan | undefined> {
  const index = model.index;
  if (!index) return undefined;
  // An interrupted restore of this session is undone first (what it did is reported), so the plan sees the disk as before it.
  const recovered = await undoInterruptedRestore({ root: sessionCwd(index), session: model.file, env: engineEnv() });
  if (recovered?.undone) reportUndo(recovered, 'an earlier file restore of this session stopped before it finished; Arbor undid it first');
  else if (recovered) log().info(`restore files: an interrupted restore was not undone: ${recovered.reason}`);
  const dirty = new Set(vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'file' && d.isDirty).map((d) => d.uri.fsPath));
  // The histories read every entry (as `arbor restore` does): loaded for the plan, released after.
  const plan = await withEveryEntry(index, () =>
    planEngineRestore(index, targetIndex, {
      root: sessionCwd(index),
      session: model.file,
      files: cachedSessionFiles(index),
      env: engineEnv(),
      hold: (abs) => (dirty.has(abs) ? restoreReasons.unsaved().text : undefined),
    }),
  );
  return {
    ...plan,
    decisions: plan.decisions.filter((d) => d.action !== 'unchanged'),
    ...(recovered ? { recovered: undoResult(recovered) } : {}),
  };
}

/** Through the engine's transaction (the CLI's path): verified again right before each write, backed up, rolled back on a failure. */
async function applyChoice(model: SessionModel, plan: Plan, options: RestoreFilesOptions, where: string): Promise<RestoreFilesResult> {
  const { steps, skipped } = restoreSteps(plan.decisions, {
    paths: options.paths ? new Set(options.paths) : undefined,
    deleteCreated: options.deleteCreated,
    deleteHint: 'not deleted without confirmation',
    choose: new Set(options.choose ?? []),
  });
  const r = await runRestore(steps, {
    root: plan.root,
    session: model.file,
    to: where,
    env: engineEnv(),
    retention: readConfig().restoreBackups,
  });
  if (r.backupDir) lastRun = { session: model.file, root: plan.root };
  if (r.failure) {
    const f = r.failure;
    const notRolledBack = f.notRolledBack.map((n) => `${n.path} (${n.reason})`).join('; ');
    throw new Error(
      `restoring ${f.path} failed (${f.error}); nothing after it was tried. Rolled back: ${f.rolledBack.join(', ') || 'none'}.` +
        (notRolledBack ? ` Not rolled back: ${notRolledBack}.` : ''),
    );
  }
  for (const n of r.notes) log().info(`restore files: ${n.path}: ${n.note}`);
  if (r.notes.length) void showWarning(`Arbor: ${r.notes.map((n) => `${n.path}: ${n.note}`).join('; ')}.`);
  return {
    restored: r.written,
    skipped: [...skipped, ...r.skipped],
    deleted: r.deleted,
    ...(r.backupDir ? { backup: r.backupDir } : {}),
    ...(plan.recovered ? { interruptedUndone: plan.recovered } : {}),
  };
}

interface FilePick extends vscode.QuickPickItem {
  decision: RestoreDecision;
}

/** Asks which files to restore: verified ones preselected; deletions and files that need a look (diff button) unselected. */
async function askUser(plan: Plan, docs: FileStepDocuments, where: string, afterJump: boolean): Promise<RestoreFilesOptions | undefined> {
  const diffButton: vscode.QuickInputButton = {
    iconPath: new vscode.ThemeIcon('diff'),
    tooltip: 'Compare the file on disk with its content at this point',
  };
  const items: FilePick[] = [];
  for (const d of plan.decisions) {
    if (d.action === 'restore')
      items.push({ label: `$(history) ${d.path}`, description: 'verified: restore', picked: true, decision: d, buttons: [diffButton] });
    else if (d.action === 'delete')
      items.push({ label: `$(trash) ${d.path}`, description: 'delete (asks again)', detail: d.reason, decision: d });
    else if (d.action === 'skip' && d.chooseText !== undefined)
      items.push({
        label: `$(warning) ${d.path}`,
        description: 'left alone unless picked',
        detail: d.reason,
        decision: d,
        buttons: [diffButton],
      });
  }
  const others = plan.decisions.filter((d) => !actionable(d));
  const qp = vscode.window.createQuickPick<FilePick>();
  // "Also" only when it follows a jump; Restore Files to This Point asks for nothing else.
  qp.title = `${afterJump ? 'Also restore' : 'Restore'} files to ${where}?`;
  const leftAlone = others.length ? `; ${others.length} more left alone (their content is not determined: see the Arbor output)` : '';
  qp.placeholder = `${items.length} file${items.length === 1 ? '' : 's'}${leftAlone}. Enter restores the picked ones; Escape restores nothing.`;
  qp.canSelectMany = true;
  qp.ignoreFocusOut = true;
  qp.items = items;
  qp.selectedItems = items.filter((i) => i.picked);
  qp.onDidTriggerItemButton((e) => void compareWithTarget(plan.root, docs, e.item.decision));
  const picked = await new Promise<readonly FilePick[] | undefined>((resolve) => {
    qp.onDidAccept(() => {
      resolve(qp.selectedItems);
      qp.hide();
    });
    qp.onDidHide(() => resolve(undefined));
    qp.show();
  });
  qp.dispose();
  if (!picked?.length) return undefined;
  const deletes = picked.filter((p) => p.decision.action === 'delete');
  let deleteCreated = false;
  if (deletes.length) {
    const ok = await askModal(
      `Delete ${deletes.length} file${deletes.length === 1 ? '' : 's'} the session created on the branch you leave?`,
      deletes.map((d) => d.decision.path).join('\n'),
      'Delete',
    );
    deleteCreated = ok === 'Delete';
  }
  return {
    paths: picked.filter((p) => p.decision.action !== 'delete' || deleteCreated).map((p) => p.decision.path),
    deleteCreated,
    choose: picked.filter((p) => p.decision.action === 'skip').map((p) => p.decision.path),
  };
}

async function compareWithTarget(cwd: string, docs: FileStepDocuments, d: RestoreDecision): Promise<void> {
  const text = d.action === 'restore' ? d.text : d.action === 'skip' ? d.chooseText : undefined;
  if (text === undefined) return;
  const loc = await safeLocation(cwd, d.path);
  if (!loc.ok) return;
  const target = docs.register(d.path, 'at this point', text);
  await vscode.commands.executeCommand('vscode.diff', vscode.Uri.file(loc.abs), target, `${d.path}: on disk ↔ at this point`, {
    preview: true,
  });
}

/**
 * Restores the files the session changed to their state at an entry.
 * Without options it asks (see askUser); with options it asks nothing.
 */
export async function restoreFilesTo(
  docs: FileStepDocuments,
  model: SessionModel,
  entryIndex: number,
  options?: RestoreFilesOptions,
  asked: { afterJump?: boolean } = {},
): Promise<RestoreFilesResult | undefined> {
  const plan = await planRestore(model, entryIndex);
  if (!plan || !plan.decisions.some(actionable)) {
    if (plan?.decisions.length)
      log().info(
        `restore files: nothing the session determines; left alone: ` +
          `${plan.decisions.map((d) => `${d.path} (${d.action === 'skip' ? d.reason : d.action})`).join('; ')}`,
      );
    return (
      plan && {
        restored: [],
        skipped: plan.decisions.map((d) => ({ path: d.path, reason: d.action === 'skip' ? d.reason : d.action })),
        deleted: [],
        ...(plan.recovered ? { interruptedUndone: plan.recovered } : {}),
      }
    );
  }
  const where = entryIndex >= 0 ? `entry ${model.index!.record(entryIndex).id}` : 'the start of the session';
  const chosen = options ?? (await askUser(plan, docs, where, asked.afterJump === true));
  if (!chosen) return undefined;
  const result = await applyChoice(model, plan, chosen, entryIndex >= 0 ? model.index!.record(entryIndex).id : '(start)');
  log().info(
    `restore files to ${where}: restored ${result.restored.join(', ') || 'none'}; deleted ` +
      `${result.deleted.join(', ') || 'none'}; left alone: ${result.skipped.map((s) => `${s.path} (${s.reason})`).join('; ') || 'none'}`,
  );
  if (result.backup) log().info(`restore files: backup of the files it changed in ${result.backup}`);
  if (!options) {
    void showInfo(
      `Arbor: restored ${result.restored.length} file${result.restored.length === 1 ? '' : 's'}` +
        (result.deleted.length ? `, deleted ${result.deleted.length}` : '') +
        (result.skipped.length ? `; left ${result.skipped.length} alone (see the Arbor output)` : '') +
        `.${result.backup ? ' Undo puts them back.' : ''}`,
      ...(result.backup ? ['Undo'] : []),
    ).then((pick) => (pick === 'Undo' ? undoRestoreCommand() : undefined));
  }
  return result;
}

/** Arbor: Restore Files to This Point (an entry row). */
export async function restoreFilesCommand(
  arbor: ArborServices,
  docs: FileStepDocuments,
  node?: unknown,
  options?: RestoreFilesOptions,
): Promise<RestoreFilesResult | undefined> {
  const n = targetEntry(parseCommandTarget(node ?? arbor.treeView.selection[0]));
  if (!n) {
    void showInfo('Arbor: select an entry in the Sessions view to restore files to.');
    return undefined;
  }
  const model = await arbor.resolveSession(n.file);
  const i = model?.index?.indexOf(n.entryId) ?? -1;
  if (!model || i < 0) return undefined;
  return restoreFilesTo(docs, model, i, options);
}

export interface UndoRestoreResult {
  undone: boolean;
  reason?: string;
  /** The restore undone had not finished. */
  interrupted?: boolean;
  restored?: string[];
  deleted?: string[];
  /** Files already as before the restore. */
  already?: string[];
  skipped?: { path: string; reason: string }[];
}

function undoResult(r: UndoResult): UndoRestoreResult {
  if (!r.undone) return { undone: false, reason: r.reason };
  return { undone: true, interrupted: r.interrupted, restored: r.written, deleted: r.deleted, already: r.already, skipped: r.skipped };
}

/**
 * What an undo did, in the log and a notification (the CLI's words): what was
 * put back, and each file it could not put back with the reason and where its
 * old bytes are. A file it could not put back (or a failure) makes it a warning.
 */
function reportUndo(r: Extract<UndoResult, { undone: true }>, what: string): void {
  log().info(
    `undo restore${r.interrupted ? ' (interrupted)' : ''}: put back ${r.written.join(', ') || 'none'}; deleted ` +
      `${r.deleted.join(', ') || 'none'}; already as before: ${r.already.join(', ') || 'none'}; left alone: ` +
      `${r.skipped.map((s) => `${s.path} (${s.reason})`).join('; ') || 'none'}`,
  );
  const back = [...r.written, ...r.deleted.map((d) => `${d} (removed: that restore had created it)`)];
  const head = `Arbor: ${what}: ${back.length ? `put back ${namesOf(back)}` : 'no file needed putting back'}`;
  if (r.failure)
    throw new Error(
      `${head}, then it failed at ${r.failure.path} (${r.failure.error}); put back before it: ${r.written.join(', ') || 'none'}`,
    );
  if (r.skipped.length) void showWarning(`${head}. Not put back: ${r.skipped.map((s) => `${s.path}: ${s.reason}`).join('; ')}.`);
  else void showInfo(`${head}${r.already.length ? `; ${r.already.length} already as before` : ''}.`);
}

/** Paths for a message: the first few, then how many more (the Arbor output lists them all). */
function namesOf(paths: string[]): string {
  const shown = paths.slice(0, 4).join(', ');
  return paths.length > 4 ? `${shown} and ${paths.length - 4} more (see the Arbor output)` : shown;
}

/**
 * Arbor: Undo Last File Restore. Puts back what the last restore (of the
 * session row's file, else the last one made in this window) changed, each file
 * only if it still holds what the restore wrote (the engine's undo, as
 * `arbor restore --undo`).
 */
export async function undoRestoreCommand(arbor?: ArborServices, node?: unknown): Promise<UndoRestoreResult> {
  const target = targetFile(parseCommandTarget(node)) ?? lastRun?.session;
  if (!target) {
    void showInfo('Arbor: no file restore to undo in this window (run it on a session row).');
    return { undone: false, reason: 'no file restore in this window' };
  }
  const model = lastRun?.session === target ? undefined : await arbor?.resolveSession(target);
  const root = lastRun?.session === target ? lastRun.root : model?.index ? sessionCwd(model.index) : undefined;
  if (!root) return { undone: false, reason: `${target} names no working directory` };
  const r = await undoLastRestore({ root, session: target, env: engineEnv() });
  if (!r.undone) {
    void showInfo(`Arbor: nothing to undo: ${r.reason}.`);
    return { undone: false, reason: r.reason };
  }
  reportUndo(r, r.interrupted ? 'undid the last file restore (it had stopped before it finished)' : 'undid the file restore');
  return undoResult(r);
}
