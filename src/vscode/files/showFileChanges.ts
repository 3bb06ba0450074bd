import * as vscode from 'vscode';
import { changesBy, historyToEntry } from '../../engine/files/sessionFiles';
import { stepDiff } from '../../engine/files/stepDiff';
import { changeVerdict, type ContentVerdict } from '../../engine/files/contentVerdict';
import { changeWord, type FileChange, type FileHistory } from '../../engine/files/types';
import type { SessionIndex } from '../../engine/session/sessionIndex';
import type { ArborServices } from '../services';
import type { SessionModel } from '../sessions/sessionStore';
import { showInfo } from '../platform/notify';
import { cachedSessionFiles } from './sessionFilesCache';
import { withEveryEntry } from '../../engine/operations/entryLoads';
import type { FileStepDocuments } from './fileDocuments';
import { parseCommandTarget } from '../tree/commandTarget';

export interface ShowFileChangesOptions {
  /** Open this file's change without asking (its last change in the entry or branch). */
  path?: string;
}

export interface ShowFileChangesResult {
  /** Each change with its verdict in the words Restore Files uses for the same file (engine/files/contentVerdict.ts). */
  files: { path: string; changes: { entryId: string; kind: string; verdict: string }[] }[];
  /** The title of the diff editor opened, if any. */
  opened?: string;
}

interface Scope {
  model: SessionModel;
  index: SessionIndex;
  /** The entry whose path gives the contents (the entry, or the branch's newest entry). */
  last: number;
  entryIds: Set<string>;
  title: string;
}

/** An entry row (its own changes) or a side-branch row (the changes of its line, from its first to its newest entry). */
async function scopeOf(arbor: ArborServices, node: unknown): Promise<Scope | undefined> {
  const target = parseCommandTarget(node);
  if (target.kind !== 'branch' && target.kind !== 'entry') return undefined;
  const model = await arbor.resolveSession(target.file);
  const index = model?.index;
  if (!model || !index) return undefined;
  if (target.kind === 'branch') {
    const n = target.node;
    const start = index.indexAtOffset(n.offset, n.startId);
    if (start < 0 || !model.layout) return undefined;
    const last = model.layout.latestUnder(start);
    const path = index.pathTo(last);
    const from = path.indexOf(start);
    return { model, index, last, entryIds: new Set(path.slice(from).map((i) => index.record(i).id)), title: `branch from ${n.startId}` };
  }
  const i = index.indexOf(target.entryId);
  if (i < 0) return undefined;
  return { model, index, last: withToolResults(index, i), entryIds: new Set([target.entryId]), title: `entry ${target.entryId}` };
}

/** The entry, or the last of the tool results that follow it (a call takes effect at its result). */
function withToolResults(index: SessionIndex, i: number): number {
  let last = i;
  for (;;) {
    const next = index.children(last).find((c) => index.record(c).role === 'toolResult');
    if (next === undefined) return last;
    last = next;
  }
}

export async function openStepDiff(docs: FileStepDocuments, file: FileHistory, change: FileChange): Promise<string> {
  const d = stepDiff(change);
  const before = docs.register(file.path, `before ${change.entryId}`, d.before);
  const after = docs.register(file.path, `after ${change.entryId}`, d.after);
  const title = `${file.path} (${change.kind} at ${change.entryId})${d.tag ? ` · ${d.tag}` : ''}`;
  await vscode.commands.executeCommand('vscode.diff', before, after, title, { preview: true });
  if (d.note) void showInfo(`Arbor: ${file.path}: ${d.note}`);
  return title;
}

interface ChangePick extends vscode.QuickPickItem {
  file: FileHistory;
  change: FileChange;
}

/** The one "verified" rule (engine/files/contentVerdict.ts), as Restore Files words the same file at the same entry. */
function verdictFields(what: string, v: ContentVerdict): { description: string; detail?: string } {
  return v.verified ? { description: `${what} · ${v.words}` } : { description: what, detail: v.words };
}

/** Arbor: Show File Changes: the files an entry or a branch changed; each change opens in the diff editor. */
export async function showFileChangesCommand(
  arbor: ArborServices,
  docs: FileStepDocuments,
  node?: unknown,
  options: ShowFileChangesOptions = {},
): Promise<ShowFileChangesResult | undefined> {
  const scope = await scopeOf(arbor, node ?? arbor.treeView.selection[0]);
  if (!scope) {
    void showInfo('Arbor: select an entry or a branch in the Sessions view to see its file changes.');
    return undefined;
  }
  // The histories read every entry (as `arbor files` does): loaded for the call, released after.
  const files = await withEveryEntry(scope.index, () =>
    changesBy(historyToEntry(scope.index, scope.last, cachedSessionFiles(scope.index)), scope.entryIds),
  );
  const result: ShowFileChangesResult = {
    files: files.map((f) => ({
      path: f.path,
      changes: f.changes.map((c) => ({ entryId: c.entryId, kind: c.kind, verdict: changeVerdict(f, c).words })),
    })),
  };
  if (!files.length) {
    void showInfo(`Arbor: ${scope.title} changed no files (successful writes and edits).`);
    return result;
  }
  let pick: ChangePick | undefined;
  if (options.path !== undefined) {
    const f = files.find((x) => x.path === options.path);
    if (!f) throw new Error(`${scope.title} did not change ${options.path}`);
    pick = { label: f.path, file: f, change: f.changes[f.changes.length - 1] };
  } else {
    const items: ChangePick[] = files.flatMap((f) =>
      f.changes.map((c) => ({
        label: `$(diff) ${f.path}`,
        ...verdictFields(`${changeWord(c)} at ${c.entryId}`, changeVerdict(f, c)),
        file: f,
        change: c,
      })),
    );
    pick = await vscode.window.showQuickPick(items, {
      title: `File changes of ${scope.title}`,
      placeHolder: `${files.length} file${files.length === 1 ? '' : 's'} changed: pick one to see the change in the diff editor`,
      matchOnDescription: true,
    });
  }
  if (pick) result.opened = await openStepDiff(docs, pick.file, pick.change);
  return result;
}
