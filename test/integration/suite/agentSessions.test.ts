// Issue 23: a Claude Code session of the workspace in the Sessions view: marked with its agent, read-only (write commands hidden).
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { EXTENSION_ID, children, item, labelText, waitFor, workspaceDir } from './arborHelpers';
import { fixturePath } from '../../support/fixtures';

/** Whether one `viewItem`/`view` test of a when clause holds. */
function termHolds(t: string, viewItem: string): boolean {
  if (t === 'view == arbor.sessions') return true;
  const m = /^viewItem =~ \/(.*)\/$/.exec(t);
  if (m) return new RegExp(m[1]).test(viewItem);
  const eq = /^viewItem == (.*)$/.exec(t);
  assert.ok(eq, `a when term this test reads: ${t}`);
  return viewItem === eq[1];
}

/** Whether a menu `when` clause of the forms Arbor's menus use (`a && !(b) && (c || d)`) holds for a row. */
function menuShows(when: string, viewItem: string): boolean {
  return when.split(/\s*&&\s*/).every((term) => {
    const negated = /^!\((.*)\)$/.exec(term);
    if (negated) return !termHolds(negated[1], viewItem);
    const group = /^\((.*)\)$/.exec(term);
    if (group) return group[1].split(/\s*\|\|\s*/).some((t) => termHolds(t, viewItem));
    return termHolds(term, viewItem);
  });
}

function commandsShownFor(viewItem: string): Set<string> {
  const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as {
    contributes: { menus: Record<string, { command: string; when?: string }[]> };
  };
  return new Set(pkg.contributes.menus['view/item/context'].filter((m) => m.when && menuShows(m.when, viewItem)).map((m) => m.command));
}

describe('Claude Code sessions in the Sessions view (issue 23)', () => {
  let configDir: string;
  let file: string;
  const before = process.env.CLAUDE_CONFIG_DIR;

  beforeEach(async () => {
    configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-claude-config-'));
    const project = path.join(configDir, 'projects', path.resolve(workspaceDir()).replace(/[/\\. ~]/g, '-'));
    fs.mkdirSync(project, { recursive: true });
    file = path.join(project, '5f0c6a1e-0000-4000-8000-000000000001.jsonl');
    fs.copyFileSync(fixturePath('agents', 'claude-code-session.jsonl'), file);
    process.env.CLAUDE_CONFIG_DIR = configDir;
    await vscode.commands.executeCommand('arbor.refresh');
  });
  afterEach(async () => {
    if (before === undefined) delete process.env.CLAUDE_CONFIG_DIR;
    else process.env.CLAUDE_CONFIG_DIR = before;
    await vscode.commands.executeCommand('arbor.refresh');
    fs.rmSync(configDir, { recursive: true, force: true });
  });

  it('its row is marked with its agent and hides Compact, Continue in Pi and Undo Restore; its entries hide every write', async () => {
    const node = await waitFor(async () => (await children()).find((n) => n.file === file), 'the Claude Code session row', 15_000);
    const row = await item(node!);
    assert.strictEqual(labelText(row), 'Fix the greeting in hello.txt');
    assert.match(String(row.description), /^Claude Code · /);
    assert.match(String(row.contextValue), /^arborSession.*:readonly:agent=claude-code$/);
    const shown = commandsShownFor(String(row.contextValue));
    for (const hidden of ['arbor.compact', 'arbor.continueInPi', 'arbor.undoRestoreFiles'])
      assert.ok(!shown.has(hidden), `${hidden} hidden`);
    for (const kept of ['arbor.showContext', 'arbor.search', 'arbor.exportBranch', 'arbor.showSummary'])
      assert.ok(shown.has(kept), `${kept} shown`);
    // A Pi row still shows Compact (the clause only hides read-only rows).
    assert.ok(commandsShownFor('arborSession').has('arbor.compact'));

    const entries = await waitFor(
      async () => {
        const c = await children(node!);
        return c.length > 0 ? c : undefined;
      },
      'the session’s entries',
      15_000,
    );
    const rows = await Promise.all(entries!.filter((n) => n.type === 'entry').map((n) => item(n)));
    assert.ok(rows.length > 0);
    for (const r of rows) {
      assert.match(String(r.contextValue), /:readonly:agent=claude-code$/);
      const s = commandsShownFor(String(r.contextValue));
      for (const hidden of ['arbor.jumpHere', 'arbor.compact', 'arbor.setLabel', 'arbor.togglePin', 'arbor.restoreFiles'])
        assert.ok(!s.has(hidden), `${hidden} hidden`);
      assert.ok(s.has('arbor.showEntry') && s.has('arbor.showContext'));
    }
    const bytes = fs.readFileSync(file);
    assert.deepStrictEqual(fs.readFileSync(fixturePath('agents', 'claude-code-session.jsonl')), bytes, 'the file was not written');
    assert.deepStrictEqual(fs.readdirSync(path.dirname(file)), [path.basename(file)], 'nothing written beside it (no lock file)');
  });
});
