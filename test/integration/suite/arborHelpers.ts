// Helpers for Arbor's integration tests (run inside VS Code's extension host).
// Only types come from src/vscode: the extension under test is the bundled dist/extension.js.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { ArborApi } from '../../../src/vscode/api';
import type { ArborInternals } from '../../../src/vscode/testHooks';
import type { ArborNode } from '../../../src/vscode/tree/nodes';
import { fixturePath } from '../../support/fixtures';

export const EXTENSION_ID = 'arbor-dev.arbor';

/** The public API plus what the tests observe inside the extension host (not part of the API: see src/vscode/testHooks.ts). */
export type ArborTestApi = ArborApi & { readonly internals: ArborInternals };

/** Registered by src/vscode/testHooks.ts in ExtensionMode.Test only. */
export const TEST_INTERNALS_COMMAND = 'arbor.test.internals';

let api: ArborTestApi | undefined;

export async function arborApi(): Promise<ArborTestApi> {
  if (api) return api;
  const ext = vscode.extensions.getExtension<ArborApi>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not loaded`);
  const publicApi = await ext.activate();
  // Registered a moment after activation, and only because the tests run the extension in ExtensionMode.Test.
  const internals = (await waitFor(
    async () => await vscode.commands.executeCommand<ArborInternals | undefined>(TEST_INTERNALS_COMMAND),
    'the test-mode internals command',
  ))!;
  const full: ArborTestApi = { ...publicApi, internals };
  await waitFor(() => full.internals.services.store.isListed, 'the session list');
  api = full;
  return api;
}

export function workspaceDir(): string {
  return vscode.workspace.workspaceFolders![0].uri.fsPath;
}

export function sessionsDir(): string {
  return path.join(workspaceDir(), '.pi', 'sessions');
}

/** Raw entries of a session file, parsed without Arbor. */
export function readEntries(file: string): Record<string, unknown>[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .slice(1)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export interface RawTree {
  ids: string[];
  leafId: string;
  parent: Map<string, string | null>;
  children: Map<string, string[]>;
  /** Root to leaf. */
  activePath: string[];
}

/** The tree of a file from its parentIds, computed independently of the engine. */
export function rawTree(file: string): RawTree {
  const entries = readEntries(file);
  const parent = new Map<string, string | null>();
  const children = new Map<string, string[]>();
  for (const e of entries) {
    const id = String(e.id);
    const pid = (e.parentId as string | null) ?? null;
    parent.set(id, pid);
    if (pid !== null) children.set(pid, [...(children.get(pid) ?? []), id]);
  }
  const leafId = String(entries[entries.length - 1].id);
  const activePath: string[] = [];
  for (let id: string | null = leafId; id !== null; id = parent.get(id) ?? null) activePath.unshift(id);
  return { ids: entries.map((e) => String(e.id)), leafId, parent, children, activePath };
}

/** The workspace copy of a pi-oracle fixture ('03-tree' etc.), found by its header id. */
export function workspaceSession(fixture: string): string {
  const src = fixtureFile(fixture);
  const id = (JSON.parse(fs.readFileSync(src, 'utf8').split('\n')[0]) as { id: string }).id;
  const name = fs.readdirSync(sessionsDir()).find((f) => f.endsWith(`_${id}.jsonl`));
  assert.ok(name, `no workspace copy of ${fixture}`);
  return path.join(sessionsDir(), name);
}

export function fixtureFile(fixture: string): string {
  const dir = fixture.includes('pi16') ? 'fixtures-pi16' : 'fixtures';
  return fixturePath('pi-oracle', dir, `${fixture}.jsonl`);
}

export function golden(fixture: string): Record<string, unknown> {
  const dir = fixture.includes('pi16') ? 'golden16-pi16' : 'golden16';
  return JSON.parse(fs.readFileSync(fixturePath('pi-oracle', dir, `${fixture}.json`), 'utf8')) as Record<string, unknown>;
}

let tmpRoot: string | undefined;

/** A private copy of a fixture outside the workspace (for tests that write), opened in Arbor. */
export async function openCopy(fixture: string, name = fixture): Promise<string> {
  tmpRoot ??= fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-it-'));
  const file = path.join(tmpRoot, `${name}-${Date.now().toString(36)}.jsonl`);
  fs.copyFileSync(fixtureFile(fixture), file);
  // An old session: a fresh mtime would flag it as being written by another process right now.
  const old = new Date(Date.now() - 3600_000);
  fs.utimesSync(file, old, old);
  const opened = await vscode.commands.executeCommand<string>('arbor.openSessionFile', vscode.Uri.file(file));
  assert.strictEqual(opened, file);
  return file;
}

/** Waits for a state; the limit is a safety net for a loaded machine (the test timeout is 60 s), never the expected wait. */
export async function waitFor<T>(cond: () => T | Promise<T>, what: string, timeoutMs = 45_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await cond();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function children(node?: ArborNode): Promise<ArborNode[]> {
  return (await arborApi()).internals.services.tree.getChildren(node);
}

export async function item(node: ArborNode): Promise<vscode.TreeItem> {
  return (await arborApi()).internals.services.tree.getTreeItem(node);
}

export async function sessionNode(file: string): Promise<ArborNode> {
  const roots = await children();
  const node = roots.find((n) => n.file === file);
  assert.ok(node, `${file} is not in the Sessions view`);
  return node;
}

/** Entry ids of a list of nodes (branch nodes as "branch:<startId>"). */
export function ids(nodes: ArborNode[]): string[] {
  return nodes.map((n) => (n.type === 'entry' ? n.entryId : n.type === 'branch' ? `branch:${n.startId}` : `${n.type}`));
}

export function iconId(ti: vscode.TreeItem): string | undefined {
  return ti.iconPath instanceof vscode.ThemeIcon ? ti.iconPath.id : undefined;
}

export function labelText(ti: vscode.TreeItem): string {
  return typeof ti.label === 'string' ? ti.label : (ti.label?.label ?? '');
}

/** Settings a workspace cannot set (machine scope; package.json, src/vscode/platform/settings.ts): tests set them as the user. */
export const MACHINE_SETTINGS = ['summarizer.baseURL', 'piPath', 'piAgentDir', 'sessionDir'];

/** Updates a setting for one test (in the workspace, or the user's settings for a machine setting); returns a restore function. */
export async function withSetting(key: string, value: unknown): Promise<() => Promise<void>> {
  const config = vscode.workspace.getConfiguration('arbor');
  const target = MACHINE_SETTINGS.includes(key) ? vscode.ConfigurationTarget.Global : vscode.ConfigurationTarget.Workspace;
  const inspected = config.inspect(key);
  const before = target === vscode.ConfigurationTarget.Global ? inspected?.globalValue : inspected?.workspaceValue;
  await config.update(key, value, target);
  return async () => {
    await vscode.workspace.getConfiguration('arbor').update(key, before, target);
  };
}

/** Runs `fn` with the Sessions view's filter set to `filter` (e.g. 'all': every entry a row), then back to Default. */
export async function withTreeFilter<T>(filter: string, fn: () => Promise<T>): Promise<T> {
  await vscode.commands.executeCommand(`arbor.filter.${filter}`);
  try {
    return await fn();
  } finally {
    await vscode.commands.executeCommand('arbor.filter.default');
  }
}
