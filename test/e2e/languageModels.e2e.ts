// UI test for summaries by a VS Code language model (issue 33): "Arbor: Choose Summarizer Model" lists the models
// VS Code offers (the test extension's, registered through vscode.lm.registerLanguageModelChatProvider); a model that
// answers NoPermissions (what VS Code answers when the user did not allow Arbor) writes nothing and says how to allow
// it; the summary model writes the proposal the panel shows, naming the model. (code-server 4.139.1 shows no consent
// prompt for a provider's model, even one that declares requiresAuthorization: that prompt is not tested here.)
// Screenshots go to test-artifacts/screenshots/lm-*.png.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import { runCommand, screenshot, showActivityView, webviewWith } from '../support/vscode/browser';
import { e2e } from './context';
import { collapseAll, row } from './sessionsView';
import { closeNotifications, notification } from './notifications';

const PLAIN = '01a228c2-47b3';
const NAME = 'Language model demo';
const shot = (name: string) => screenshot(e2e.page, `lm-${name}`);

function ownSession(): string {
  const fixtures = path.join(e2e.extensionPath, 'test', 'fixtures', 'workspace', '.pi', 'sessions');
  const name = fs.readdirSync(fixtures).find((f) => f.includes(`_${PLAIN}`));
  assert.ok(name, `no session ${PLAIN}`);
  const copy = path.join(e2e.workspacePath, '.pi', 'sessions', `lm-demo-${name}`);
  if (!fs.existsSync(copy)) fs.copyFileSync(path.join(fixtures, name), copy);
  return copy;
}

const lineCount = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim()).length;

async function choose(page: Page, label: string): Promise<void> {
  await runCommand(page, 'Arbor: Choose Summarizer Model...');
  const pick = page.locator('.quick-input-widget');
  await pick.locator('.quick-input-list .monaco-list-row', { hasText: label }).first().waitFor({ timeout: 30_000 });
  await pick.locator('input').fill(label);
  await pick.locator('.quick-input-list .monaco-list-row', { hasText: label }).first().click();
  // The choice is made when Arbor says who writes summaries now.
  await notification(page, `summaries are now written by ${label === 'Offline summarizer' ? 'the offline summarizer' : label}`);
  await closeNotifications(page);
}

async function compact(page: Page): Promise<void> {
  await row(page, NAME).click();
  await runCommand(page, 'Arbor: Compact...');
  await page.locator('.quick-input-widget', { hasText: 'Optional instructions' }).waitFor();
  await page.keyboard.press('Enter');
}

describe('Summaries by a VS Code language model (UI)', function () {
  this.timeout(240_000);
  let page: Page;

  before(async () => {
    page = e2e.page;
    const file = ownSession();
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    const leaf = JSON.parse(lines[lines.length - 1]) as { id: string };
    fs.appendFileSync(
      file,
      `${JSON.stringify({ type: 'session_info', id: '1a3e0de1', parentId: leaf.id, timestamp: new Date().toISOString(), name: NAME })}\n`,
    );
    await showActivityView(page, 'Arbor');
    await collapseAll(page);
    await row(page, NAME).waitFor({ timeout: 30_000 });
  });

  after(async () => {
    // Back to the offline summarizer for the UI tests that follow.
    await choose(page, 'Offline summarizer');
  });

  it("lists VS Code's models and who is in use; a model the user did not allow writes nothing and says how to allow it", async () => {
    const file = ownSession();
    const before = lineCount(file);
    await runCommand(page, 'Arbor: Choose Summarizer Model...');
    const pick = page.locator('.quick-input-widget');
    await pick.locator('.quick-input-list .monaco-list-row', { hasText: 'Arbor Test Summary Model' }).waitFor({ timeout: 30_000 });
    const rows = await pick.locator('.quick-input-list .monaco-list-row').allInnerTexts();
    assert.ok(
      rows.some((r) => r.includes('Offline summarizer') && r.includes('in use')),
      rows.join(' | '),
    );
    assert.ok(
      rows.some((r) => r.includes('Arbor Test Refusing Model') && r.includes('arbor-test/refusing-model')),
      rows.join(' | '),
    );
    await shot('01-picker');
    await page.keyboard.press('Escape');

    await choose(page, 'Arbor Test Refusing Model');
    await compact(page);
    const toast = await notification(page, 'Compact failed: VS Code language model arbor-test/refusing-model');
    const said = (await toast.innerText()).replace(/\s+/g, ' ');
    await shot('02-not-allowed');
    assert.match(said, /allow it when VS Code asks/, said);
    assert.match(said, /Nothing was written/, said);
    assert.strictEqual(lineCount(file), before, 'nothing written');
    await closeNotifications(page);
  });

  it("the summary model's answer is the proposal, named in the panel, with no invented usage", async () => {
    const file = ownSession();
    const before = lineCount(file);
    await choose(page, 'Arbor Test Summary Model');
    await compact(page);
    const view = await webviewWith(page, '#retention', 60_000);
    const body = (await view.locator('body').innerText()).replace(/\s+/g, ' ');
    assert.match(body, /Written by the Arbor test model/, body.slice(0, 2000));
    assert.match(body, /vscode\/arbor-test\/summary-model/, body.slice(0, 2000));
    assert.match(body, /reports no token usage/, body.slice(0, 2000));
    await shot('04-proposal');
    assert.strictEqual(lineCount(file), before, 'a proposal writes nothing');
    await view.locator('#discard').click();
  });
});
