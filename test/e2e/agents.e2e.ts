// Issue 23: a Claude Code session in the Sessions view (Chromium against code-server): marked with its agent, no write commands.
// Screenshots go to test-artifacts/screenshots/agents-*.png (looked at by the developer).
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { runCommand, screenshot, showActivityView } from '../support/vscode/browser';
import { fixturePath } from '../support/fixtures';
import { e2e } from './context';
import { collapseAll, contextMenuItem, expandRow, row, sidebar } from './sessionsView';

describe('Claude Code sessions in the Sessions view', function () {
  this.timeout(180_000);
  let file: string;

  before(() => {
    // The run's CLAUDE_CONFIG_DIR (test/e2e/run.ts): the workspace's project folder, as Claude Code names it.
    const project = path.join(process.env.CLAUDE_CONFIG_DIR!, 'projects', path.resolve(e2e.workspacePath).replace(/[/\\. ~]/g, '-'));
    fs.mkdirSync(project, { recursive: true });
    file = path.join(project, '5f0c6a1e-0000-4000-8000-000000000001.jsonl');
    fs.copyFileSync(fixturePath('agents', 'claude-code-session.jsonl'), file);
  });
  after(async () => {
    fs.rmSync(file, { force: true });
    await runCommand(e2e.page, 'Arbor: Refresh');
  });

  it('its row says Claude Code; its menu has no Compact; its tree shows the fork, the sidechain and the compactions', async () => {
    const page = e2e.page;
    await showActivityView(page, 'Arbor');
    await runCommand(page, 'Arbor: Refresh');
    await collapseAll(page);
    const session = row(page, 'Fix the greeting in hello.txt');
    await session.waitFor({ timeout: 60_000 });
    assert.match(await session.innerText(), /Claude Code/);
    await contextMenuItem(page, session, 'Show Context');
    const menu = page.locator('.context-view');
    const items = await menu.locator('.action-item').allInnerTexts();
    assert.ok(!items.some((t) => /Compact/.test(t)), items.join(' | '));
    await screenshot(page, 'agents-01-claude-row-menu');
    await page.keyboard.press('Escape');
    await expandRow(session);
    await row(page, 'Yes, all done.').waitFor({ timeout: 30_000 });
    await sidebar(page).locator('.monaco-list-row', { hasText: 'Thanks, all done?' }).first().waitFor();
    await screenshot(page, 'agents-02-claude-tree');
    assert.deepStrictEqual(fs.readFileSync(file), fs.readFileSync(fixturePath('agents', 'claude-code-session.jsonl')), 'not written');
  });
});
