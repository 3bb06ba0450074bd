// Issue 35: sessions the real Claude Code 2.1.332 and Codex CLI 0.171.0 wrote (test/fixtures/agents/real), in the
// Sessions view of a real VS Code. Screenshots go to test-artifacts/screenshots/real-agents-*.png (looked at by the developer).
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { runCommand, screenshot, showActivityView, webviewWith } from '../support/vscode/browser';
import { fixturePath } from '../support/fixtures';
import { e2e } from './context';
import { collapseAll, expandRow, row, sidebar } from './sessionsView';

/** Every file below a folder. */
function walk(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? walk(path.join(dir, d.name)) : [path.join(dir, d.name)]));
}

describe('real Claude Code and Codex sessions in the Sessions view', function () {
  this.timeout(240_000);
  const written: string[] = [];

  before(() => {
    const workspace = path.resolve(e2e.workspacePath);
    // The Claude Code session as its project folder names the workspace (the folder decides, not the recorded cwd).
    const project = path.join(process.env.CLAUDE_CONFIG_DIR!, 'projects', workspace.replace(/[/\\. ~]/g, '-'));
    fs.mkdirSync(project, { recursive: true });
    const claude = path.join(project, '00000000-0000-4000-8000-00000000c1a1.jsonl');
    fs.copyFileSync(fixturePath('agents', 'real', 'claude-code', '-tmp-arbor-fixture-proj', path.basename(claude)), claude);
    written.push(claude);
    // The Codex rollouts, their cwd made the workspace's (a rollout belongs to the folder its session_meta names).
    const codexRoot = fixturePath('agents', 'real', 'codex');
    for (const f of walk(codexRoot)) {
      const target = path.join(process.env.CODEX_HOME!, 'sessions', path.relative(codexRoot, f));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, fs.readFileSync(f, 'utf8').split('/tmp/arbor-fixture/proj').join(workspace));
      written.push(target);
    }
  });
  after(async () => {
    for (const f of written) fs.rmSync(f, { force: true });
    await runCommand(e2e.page, 'Arbor: Refresh');
  });

  it('the Claude Code session: its -n name as title, parallel calls as one step, both compactions, the task notification', async () => {
    const page = e2e.page;
    await showActivityView(page, 'Arbor');
    await runCommand(page, 'Arbor: Refresh');
    await collapseAll(page);
    const session = row(page, 'fixture tasks');
    await session.waitFor({ timeout: 60_000 });
    assert.match(await session.innerText(), /Claude Code/);
    await screenshot(page, 'real-agents-01-sessions');
    await expandRow(session);
    await row(page, 'Both done.').waitFor({ timeout: 30_000 });
    await row(page, /^File created successfully/).waitFor({ timeout: 30_000 });
    await row(page, /^<task-notification>/).waitFor({ timeout: 30_000 });
    await screenshot(page, 'real-agents-02-claude-tree-top');
    // The end of the tree (the list renders only the rows in view): select a row of it and go to the last row.
    await row(page, 'Both done.').click();
    // The click opens the entry panel, which takes the keyboard: the list gets it back before End.
    await webviewWith(page, '#entry-title');
    await sidebar(page).locator('.monaco-list').first().focus();
    await page.keyboard.press('End');
    await row(page, 'Hello! Ready to help.').waitFor({ timeout: 30_000 });
    await screenshot(page, 'real-agents-03-claude-tree-end');
  });

  it('the Codex rollout: a failed command, the patch, the compaction with its tokens', async () => {
    const page = e2e.page;
    await collapseAll(page);
    const session = row(page, /read the notes/)
      .filter({ hasText: 'Codex' })
      .first();
    await session.waitFor({ timeout: 60_000 });
    await expandRow(session);
    await row(page, 'It exited 3.').waitFor({ timeout: 30_000 });
    await row(page, /^exec_command\(cat notes\.txt\)/).waitFor({ timeout: 30_000 });
    await screenshot(page, 'real-agents-04-codex-tree');
  });

  it('Show File Changes opens the patch in the diff editor; Show Context lists the real sessions’ messages', async () => {
    const page = e2e.page;
    await collapseAll(page);
    const codex = row(page, /read the notes/)
      .filter({ hasText: 'Codex' })
      .first();
    await codex.waitFor({ timeout: 60_000 });
    await codex.click();
    // The entry of the patch's result (Show File Changes lists what an entry or a branch changed).
    const patched = row(page, /^Exit code: 0/).first();
    await patched.waitFor({ timeout: 30_000 });
    await patched.click();
    await runCommand(page, 'Arbor: Show File Changes');
    const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: 'notes.txt' }).first();
    await pick.waitFor({ timeout: 30_000 });
    await screenshot(page, 'real-agents-05-codex-file-pick');
    await pick.click();
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 30_000 });
    await page.locator('.monaco-diff-editor .view-line', { hasText: 'hello patched' }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'real-agents-06-codex-diff');

    await codex.click();
    await runCommand(page, 'Arbor: Show Context');
    const codexContext = await webviewWith(page, '#context-title');
    await codexContext.locator('#context-messages li', { hasText: 'say hello after the compaction' }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'real-agents-07-codex-context');

    const claude = row(page, 'fixture tasks');
    await claude.click();
    await runCommand(page, 'Arbor: Show Context');
    const claudeContext = await webviewWith(page, '#context-title');
    await claudeContext.locator('#context-messages li', { hasText: 'Hello! Ready to help.' }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'real-agents-08-claude-context');
    await runCommand(page, 'View: Close All Editors');
  });
});
