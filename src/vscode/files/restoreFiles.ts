import * as vscode from 'vscode';
import { restoreReasons } from '../../engine/files/restoreReasons';
import { sessionCwd } from '../../engine/files/sessionFiles';
import { decideRestore, restoreCandidates, type RestoreDecision } from '../../engine/files/restorePlan';
import { candidateDiskState, safeLocation } from '../../engine/files/diskState';
import type { ArborServices } from '../services';
import type { SessionModel } from '../sessionStore';
import { askModal, showInfo } from '../notify';
import { log } from '../logging';
import { cachedSessionFiles } from './sessionFilesCache';
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
}

interface Plan {
  cwd: string;
  decisions: RestoreDecision[];
}

const actionable = (d: RestoreDecision) => d.action === 'restore' || d.action === 'delete' || (d.action === 'skip' && d.chooseText !== undefined);

/** Per file: the target content, the disk check (sha256 against what the session last produced) and the decision. Touches nothing. */
async function planRestore(model: SessionModel, targetIndex: number): Promise<Plan | undefined> {
  const index = model.index;
  if (!index) return undefined;
  const cwd = sessionCwd(index);
  const decisions: RestoreDecision[] = [];
  for (const c of restoreCandidates(index, targetIndex, { files: cachedSessionFiles(index) })) {
    const disk = await candidateDiskState(cwd, c);
    const open = 'abs' in disk && disk.abs ? vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === disk.abs && d.isDirty) : undefined;
    decisions.push(open ? { action: 'skip', path: c.path, absPath: c.absPath, reason: restoreReasons.unsaved().text, reasonKind: 'unsaved' } : decideRestore(c, disk));
  }
  return { cwd, decisions: decisions.filter((d) => d.action !== 'unchanged') };
}

interface Step {
  path: string;
  text?: string;
}

/** One WorkspaceEdit (so one Undo reverts it), then the changed documents are saved. */
async function applySteps(cwd: string, writes: Step[], deletes: Step[], skipped: RestoreFilesResult['skipped']): Promise<RestoreFilesResult> {
  const edit = new vscode.WorkspaceEdit();
  const meta: vscode.WorkspaceEditEntryMetadata = { label: 'Arbor: restore files', needsConfirmation: false };
  const toSave: vscode.TextDocument[] = [];
  const result: RestoreFilesResult = { restored: [], skipped, deleted: [] };
  for (const w of writes) {
    const loc = await safeLocation(cwd, w.path);
    if (!loc.ok) {
      skipped.push({ path: w.path, reason: loc.reason });
      continue;
    }
    const uri = vscode.Uri.file(loc.abs);
    let doc: vscode.TextDocument | undefined;
    try {
      doc = await vscode.workspace.openTextDocument(uri);
    } catch {
      doc = undefined;
    }
    if (doc) {
      edit.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), w.text!, meta);
      toSave.push(doc);
    } else {
      edit.createFile(uri, { overwrite: false, contents: Buffer.from(w.text!, 'utf8') }, meta);
    }
    result.restored.push(w.path);
  }
  for (const d of deletes) {
    const loc = await safeLocation(cwd, d.path);
    if (!loc.ok) {
      skipped.push({ path: d.path, reason: loc.reason });
      continue;
    }
    edit.deleteFile(vscode.Uri.file(loc.abs), { ignoreIfNotExists: true }, meta);
    result.deleted.push(d.path);
  }
  if (!result.restored.length && !result.deleted.length) return result;
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error('VS Code did not apply the restore (nothing was changed)');
  for (const doc of toSave) await doc.save();
  return result;
}

function partition(plan: Plan, options: RestoreFilesOptions): { writes: Step[]; deletes: Step[]; skipped: RestoreFilesResult['skipped'] } {
  const only = options.paths ? new Set(options.paths) : undefined;
  const chosen = new Set(options.choose ?? []);
  const writes: Step[] = [];
  const deletes: Step[] = [];
  const skipped: RestoreFilesResult['skipped'] = [];
  for (const d of plan.decisions) {
    if (only && !only.has(d.path)) continue;
    if (d.action === 'restore') writes.push({ path: d.path, text: d.text });
    else if (d.action === 'delete') {
      if (options.deleteCreated) deletes.push({ path: d.path });
      else skipped.push({ path: d.path, reason: restoreReasons.createdOnBranch(d.reason, 'not deleted without confirmation').text });
    } else if (d.action === 'skip') {
      if (chosen.has(d.path) && d.chooseText !== undefined) writes.push({ path: d.path, text: d.chooseText });
      else skipped.push({ path: d.path, reason: d.reason });
    }
  }
  return { writes, deletes, skipped };
}

interface FilePick extends vscode.QuickPickItem {
  decision: RestoreDecision;
}

/** Asks which files to restore: verified ones preselected; deletions and files that need a look (diff button) unselected. */
async function askUser(plan: Plan, docs: FileStepDocuments, where: string): Promise<RestoreFilesOptions | undefined> {
  const diffButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('diff'), tooltip: 'Compare the file on disk with its content at this point' };
  const items: FilePick[] = [];
  for (const d of plan.decisions) {
    if (d.action === 'restore') items.push({ label: `$(history) ${d.path}`, description: 'verified: restore', picked: true, decision: d, buttons: [diffButton] });
    else if (d.action === 'delete') items.push({ label: `$(trash) ${d.path}`, description: 'delete (asks again)', detail: d.reason, decision: d });
    else if (d.action === 'skip' && d.chooseText !== undefined) items.push({ label: `$(warning) ${d.path}`, description: 'left alone unless picked', detail: d.reason, decision: d, buttons: [diffButton] });
  }
  const others = plan.decisions.filter((d) => !actionable(d));
  const qp = vscode.window.createQuickPick<FilePick>();
  qp.title = `Also restore files to ${where}?`;
  qp.placeholder = `${items.length} file${items.length === 1 ? '' : 's'}${others.length ? `; ${others.length} more left alone (their content is not determined: see the Arbor output)` : ''}. Enter restores the picked ones; Escape restores nothing.`;
  qp.canSelectMany = true;
  qp.ignoreFocusOut = true;
  qp.items = items;
  qp.selectedItems = items.filter((i) => i.picked);
  qp.onDidTriggerItemButton((e) => void compareWithTarget(plan.cwd, docs, e.item.decision));
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
    const ok = await askModal(`Delete ${deletes.length} file${deletes.length === 1 ? '' : 's'} the session created on the branch you leave?`, deletes.map((d) => d.decision.path).join('\n'), 'Delete');
    deleteCreated = ok === 'Delete';
  }
  return { paths: picked.filter((p) => p.decision.action !== 'delete' || deleteCreated).map((p) => p.decision.path), deleteCreated, choose: picked.filter((p) => p.decision.action === 'skip').map((p) => p.decision.path) };
}

async function compareWithTarget(cwd: string, docs: FileStepDocuments, d: RestoreDecision): Promise<void> {
  const text = d.action === 'restore' ? d.text : d.action === 'skip' ? d.chooseText : undefined;
  if (text === undefined) return;
  const loc = await safeLocation(cwd, d.path);
  if (!loc.ok) return;
  const target = docs.register(d.path, 'at this point', text);
  await vscode.commands.executeCommand('vscode.diff', vscode.Uri.file(loc.abs), target, `${d.path}: on disk ↔ at this point`, { preview: true });
}

/**
 * Restores the files the session changed to their state at an entry.
 * Without options it asks (see askUser); with options it asks nothing.
 */
export async function restoreFilesTo(docs: FileStepDocuments, model: SessionModel, entryIndex: number, options?: RestoreFilesOptions): Promise<RestoreFilesResult | undefined> {
  const plan = await planRestore(model, entryIndex);
  if (!plan || !plan.decisions.some(actionable)) {
    if (plan?.decisions.length) log().info(`restore files: nothing the session determines; left alone: ${plan.decisions.map((d) => `${d.path} (${d.action === 'skip' ? d.reason : d.action})`).join('; ')}`);
    return plan && { restored: [], skipped: plan.decisions.map((d) => ({ path: d.path, reason: d.action === 'skip' ? d.reason : d.action })), deleted: [] };
  }
  const where = entryIndex >= 0 ? `entry ${model.index!.record(entryIndex).id}` : 'the start of the session';
  const chosen = options ?? (await askUser(plan, docs, where));
  if (!chosen) return undefined;
  const { writes, deletes, skipped } = partition(plan, chosen);
  const result = await applySteps(plan.cwd, writes, deletes, skipped);
  log().info(`restore files to ${where}: restored ${result.restored.join(', ') || 'none'}; deleted ${result.deleted.join(', ') || 'none'}; left alone: ${result.skipped.map((s) => `${s.path} (${s.reason})`).join('; ') || 'none'}`);
  if (!options) void showInfo(`Arbor: restored ${result.restored.length} file${result.restored.length === 1 ? '' : 's'}${result.deleted.length ? `, deleted ${result.deleted.length}` : ''}${result.skipped.length ? `; left ${result.skipped.length} alone (see the Arbor output)` : ''}. Undo (Ctrl+Z in a restored file) reverts it.`);
  return result;
}

/** Arbor: Restore Files to This Point (an entry row). */
export async function restoreFilesCommand(arbor: ArborServices, docs: FileStepDocuments, node?: unknown, options?: RestoreFilesOptions): Promise<RestoreFilesResult | undefined> {
  const n = (node ?? arbor.treeView.selection[0]) as { file?: unknown; entryId?: unknown } | undefined;
  if (!n || typeof n.file !== 'string' || typeof n.entryId !== 'string') {
    void showInfo('Arbor: select an entry in the Sessions view to restore files to.');
    return undefined;
  }
  const model = await arbor.resolveSession(n.file);
  const i = model?.index?.indexOf(n.entryId) ?? -1;
  if (!model || i < 0) return undefined;
  return restoreFilesTo(docs, model, i, options);
}
