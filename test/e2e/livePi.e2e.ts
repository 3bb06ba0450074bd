// UI test of Arbor working through a running Pi (issue 18): the real Pi 1.6 in RPC mode with Arbor's bridge,
// against the local fake model. Screenshots go to test-artifacts/screenshots/livepi-*.png (looked at by the developer).
import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import { runCommand, screenshot, showActivityView, webviewWith } from '../support/vscode/browser';
import { startFakeProvider, type FakeProviderServer } from '../support/fakeProvider';
import { makeAgentFolder, node22, PiRpc, type PiAgentFolder } from '../support/pi/piRpc';
import { e2e } from './context';
import { sessionEntries as entries } from './sessionFiles';
import { collapseAll, row } from './sessionsView';
import { notification } from './notifications';

const shot = (name: string) => screenshot(e2e.page, `livepi-${name}`);
const NAME = 'Live Pi demo: compact while Pi runs';

describe('Arbor through a running Pi (UI)', function () {
  this.timeout(240_000);
  let page: Page;
  let fake: FakeProviderServer;
  let agent: PiAgentFolder;
  let pi: PiRpc | undefined;
  let file: string;
  let restoreSettings: () => void = () => undefined;

  before(async () => {
    page = e2e.page;
    if (!fs.existsSync(node22())) throw new Error(`Pi 1.6 needs Node 22+: ${node22()} is missing (scripts/vscode-test/install.sh)`);
    fake = await startFakeProvider();
    fake.usageFromRequest = true;
    fake.setFallback({ type: 'text', text: 'Done: I read the file and explained it; nothing was changed.' });
    // Pi ignores the workspace's .pi/settings.json (it does not trust the project in RPC mode): its own settings decide.
    agent = makeAgentFolder(fake.openaiBaseURL, { keepRecentTokens: 1000 });
    const settings = e2e.userSettingsPath;
    const original = fs.readFileSync(settings, 'utf8');
    fs.writeFileSync(settings, JSON.stringify({ ...JSON.parse(original), 'arbor.piAgentDir': agent.dir }, null, 2));
    restoreSettings = () => fs.writeFileSync(settings, original);
    execFileSync(process.execPath, [path.join(e2e.extensionPath, 'dist', 'cli.js'), 'pi-bridge', 'install'], {
      env: { ...process.env, PI_CODING_AGENT_DIR: agent.dir },
    });
    file = path.join(e2e.workspacePath, '.pi', 'sessions', 'live-pi-demo.jsonl');
    pi = new PiRpc({ agentDir: agent.dir, cwd: e2e.workspacePath, sessionFile: file });
    for (let i = 1; i <= 6; i++)
      await pi.prompt(`Explain src/part${i}.js to me, step by step. ${'It handles the input, checks it and passes it on. '.repeat(40)}`);
    await pi.command('set_session_name', { name: NAME });
  });

  after(async () => {
    await pi?.stop();
    restoreSettings();
    fs.rmSync(file, { force: true });
    agent?.remove();
    await fake?.stop();
  });

  it('the session row says Pi is live, idle or busy', async () => {
    await showActivityView(page, 'Arbor');
    await runCommand(page, 'Arbor: Refresh');
    await collapseAll(page);
    const session = row(page, NAME);
    await session.waitFor({ timeout: 60_000 });
    await row(page, new RegExp(`${NAME}.*Pi idle`)).waitFor({ timeout: 30_000 });
    await shot('01-row-idle');
    // A prompt the fake model never finishes answering keeps Pi busy.
    fake.script({ type: 'stall', text: 'Thinking about it', pieces: 1 });
    const from = pi!.seen;
    await pi!.command('prompt', { message: 'Now refactor everything.' });
    await pi!.waitFor((r) => r.type === 'agent_start', from);
    await row(page, new RegExp(`${NAME}.*Pi busy`)).waitFor({ timeout: 30_000 });
    await shot('02-row-busy');
    await pi!.command('abort');
    await pi!.waitFor((r) => r.type === 'agent_settled', from);
    await row(page, new RegExp(`${NAME}.*Pi idle`)).waitFor({ timeout: 30_000 });
  });

  it('Compact → Apply: Pi writes the compaction, the tree and Pi continue from it', async () => {
    const before = entries(file);
    const piLeaf = String(before[before.length - 1].id);
    await collapseAll(page);
    await row(page, NAME).click();
    await runCommand(page, 'Arbor: Compact...');
    await page.locator('.quick-input-widget', { hasText: 'Optional instructions' }).waitFor();
    await page.keyboard.press('Enter');
    const view = await webviewWith(page, '#summary-title', 60_000);
    await view.locator('#apply').waitFor();
    await shot('03-review');
    await view.locator('#apply').click();
    await view.locator('#mode-badge', { hasText: 'In session' }).waitFor({ timeout: 30_000 });
    const after = entries(file);
    assert.strictEqual(after.length, before.length + 1, 'one entry, written by Pi');
    const compaction = after[after.length - 1];
    assert.strictEqual(compaction.type, 'compaction');
    assert.strictEqual(compaction.parentId, piLeaf);
    const context = (await pi!.messages()).filter((m) => m.role !== 'system');
    assert.strictEqual(context[0].role, 'compactionSummary');
    await row(page, /Compaction.*● current|● current.*Compaction/).waitFor({ timeout: 15_000 });
    await shot('04-applied');
    await pi!.prompt('Good. Now add a test for part 6.');
    const next = entries(file)
      .slice(before.length + 1)
      .find((e) => e.type === 'message');
    assert.strictEqual(next?.parentId, compaction.id, 'Pi continues from the compaction');
    await row(page, /Now add a test for part 6/).waitFor({ timeout: 15_000 });
    await shot('05-pi-continued');
  });

  it("issue 36 item 1: Compact while Pi works waits (Cancel), plans at Pi's new leaf; an Apply during a turn waits, then plans again", async () => {
    /** Pi starts a turn whose answer the fake model holds until `fake.release()`. */
    const busyTurn = async (message: string) => {
      fake.script({ type: 'held', text: `Worked on it. ${'The parts now validate their input. '.repeat(30)}` });
      const asked = fake.requests.length;
      await pi!.command('prompt', { message });
      await fake.waitForRequests(asked + 1);
      await row(page, new RegExp(`${NAME}.*Pi busy`)).waitFor({ timeout: 30_000 });
    };
    const release = async () => {
      const from = pi!.seen;
      fake.release();
      await pi!.waitFor((r) => r.type === 'agent_settled', from);
    };
    // More history since the last compaction, so that there is something to compact at Pi's leaf.
    for (let i = 7; i <= 9; i++)
      await pi!.prompt(`Explain src/part${i}.js to me, step by step. ${'It handles the input, checks it and passes it on. '.repeat(40)}`);
    await collapseAll(page);
    await busyTurn(`Now make every part validate its input. ${'Be thorough. '.repeat(40)}`);
    await row(page, NAME).click();
    await runCommand(page, 'Arbor: Compact...');
    await page.locator('.quick-input-widget', { hasText: 'Optional instructions' }).waitFor();
    await page.keyboard.press('Enter');
    // Waiting, said at once, with Cancel: nothing is summarized while Pi works.
    const waiting = await notification(page, 'is working; Arbor will plan when it stops');
    assert.ok(await waiting.getByRole('button', { name: 'Cancel' }).count(), 'the waiting notification offers Cancel');
    await shot('06-waiting-for-pi');
    await release();
    const view = await webviewWith(page, '#summary-title', 60_000);
    await view.locator('#apply').waitFor();
    await shot('07-review-after-pi-stopped');
    const firstStats = await view.locator('#stats').innerText();
    // Pi works again while the proposal is reviewed: Apply waits for it (buttons disabled), then plans again at its new leaf.
    await busyTurn('And add a test for each part.');
    await view.locator('#apply').click();
    await view.locator('.busy', { hasText: 'Writing the compaction' }).waitFor({ timeout: 15_000 });
    assert.equal(await view.locator('#apply').isDisabled(), true, 'Apply is disabled while the write is in flight');
    await notification(page, 'is working; Arbor will plan when it stops');
    await shot('08-apply-waits-for-pi');
    const compactions = () => entries(file).filter((e) => e.type === 'compaction').length;
    const before = compactions();
    await release();
    await notification(page, 'went on working while the compaction was reviewed');
    // The new proposal: planned at Pi's leaf after the turn (more tokens before), Apply enabled again.
    await view.locator('#stats', { hasNotText: firstStats }).waitFor({ timeout: 60_000 });
    await view.locator('#apply:not([disabled])').waitFor({ timeout: 60_000 });
    await shot('09-planned-again');
    assert.equal(compactions(), before, 'the proposal planned before Pi moved on is not written');
    const piLeaf = String(entries(file).at(-1)!.id);
    await view.locator('#apply').click();
    await view.locator('#mode-badge', { hasText: 'In session' }).waitFor({ timeout: 30_000 });
    const compaction = entries(file).at(-1)!;
    assert.equal(compaction.type, 'compaction');
    assert.equal(compaction.parentId, piLeaf, 'written by Pi at its leaf after the turn Arbor waited for');
    await shot('10-applied-after-wait');
  });
});
