// UI test (issue 38 item 1): Restore Files after a restore that was killed midway. The next restore undoes the
// interrupted one first and says so; a file changed by hand since is left, named with where its old bytes are.
// Screenshots: test-artifacts/screenshots/restore-01-interrupted-undone.png, restore-02-picker-after-undo.png,
// restore-03-changed-since.png.
import * as assert from 'assert';
import { spawn } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Page } from 'playwright-core';
import { screenshot, showActivityView } from '../support/vscode/browser';
import { fixturePath } from '../support/fixtures';
import { sessionWithProject } from '../support/filesProject';
import type { KillChildInput } from '../support/restoreKillChild';
import { e2e } from './context';
import { closeNotifications, notification } from './notifications';
import { chooseMenuItem, collapseAll, contextMenuItem, row } from './sessionsView';

const NAME = 'Restore demo';
const sha = (t: string) => createHash('sha256').update(t).digest('hex');

/** A restore of two guides run as its own process that SIGKILLs itself once both are replaced (before its end record). */
async function interruptedRestore(session: string, project: string, agentDir: string): Promise<void> {
  const steps = ['docs/guide-2.md', 'docs/guide-8.md'].map((p) => {
    const now = fs.readFileSync(path.join(project, p), 'utf8');
    return { path: p, action: 'write' as const, text: `${now}written by the restore that was killed\n`, onDisk: sha(now) };
  });
  const input: KillChildInput = { steps, root: project, session, agentDir, kill: { point: 'replaced', path: steps[1].path } };
  const inputFile = path.join(agentDir, 'kill-input.json');
  fs.writeFileSync(inputFile, JSON.stringify(input));
  const child = spawn(process.execPath, [path.join(e2e.extensionPath, 'out', 'test', 'support', 'restoreKillChild.js'), inputFile], {
    stdio: 'ignore',
  });
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, s) => resolve(s)));
  assert.strictEqual(signal, 'SIGKILL', 'the restore was killed midway');
  for (const s of steps)
    assert.match(fs.readFileSync(path.join(project, s.path), 'utf8'), /killed\n$/, `${s.path} written before the kill`);
}

/** Restore Files to This Point on the entry before the session's edits (its context menu). */
async function restoreFromMenu(page: Page): Promise<void> {
  await collapseAll(page);
  await row(page, NAME).waitFor({ timeout: 30_000 });
  await row(page, NAME).click();
  const entry = row(page, 'Checking the data set');
  await entry.waitFor({ timeout: 30_000 });
  await chooseMenuItem(page, await contextMenuItem(page, entry, 'Restore Files to This Point'));
}

/** The notification with this text, expanded in the notification center (a long message is cut to one line there); its text. */
async function expanded(page: Page, text: string): Promise<string> {
  const note = await notification(page, text);
  const expand = note.locator('.codicon-notifications-expand');
  if (await expand.count()) await expand.first().click();
  return (await note.innerText()).replace(/\s+/g, ' ');
}

describe('Restore Files after an interrupted restore (UI)', function () {
  this.timeout(300_000);
  let agentDir = '';
  let session = '';
  let project = '';
  let restoreSettings: () => void = () => undefined;

  before(async () => {
    // Restore backups under a temporary agent folder (a machine setting), not the machine's ~/.pi/agent.
    agentDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-e2e-agent-'));
    const settings = e2e.userSettingsPath;
    const original = fs.readFileSync(settings, 'utf8');
    fs.writeFileSync(settings, JSON.stringify({ ...JSON.parse(original), 'arbor.piAgentDir': agentDir }, null, 2));
    restoreSettings = () => fs.writeFileSync(settings, original);
    const made = await sessionWithProject(fixturePath('pi-oracle', 'fixtures', '04-split-turn.jsonl'));
    project = made.project;
    session = path.join(e2e.workspacePath, '.pi', 'sessions', `restore-demo-${path.basename(made.session)}`);
    const lines = fs.readFileSync(made.session, 'utf8').trimEnd().split('\n');
    const leafId = (JSON.parse(lines[lines.length - 1]) as { id: string }).id;
    lines.push(JSON.stringify({ type: 'session_info', id: 'e57a0e01', parentId: leafId, timestamp: new Date().toISOString(), name: NAME }));
    fs.writeFileSync(session, `${lines.join('\n')}\n`);
    const old = new Date(Date.now() - 3600_000);
    fs.utimesSync(session, old, old);
  });

  after(() => {
    restoreSettings();
    fs.rmSync(session, { force: true });
    fs.rmSync(path.dirname(project), { recursive: true, force: true });
    fs.rmSync(agentDir, { recursive: true, force: true });
  });

  it('the next Restore Files undoes the interrupted restore first and says so; the files are as before it', async () => {
    const page = e2e.page;
    const before = ['docs/guide-2.md', 'docs/guide-8.md'].map((p) => fs.readFileSync(path.join(project, p), 'utf8'));
    await interruptedRestore(session, project, agentDir);
    await showActivityView(page, 'Arbor');
    await restoreFromMenu(page);
    // The picker first (the notification center is opened from the palette, which would close it).
    const picker = page.locator('.quick-input-widget', { hasText: 'Restore files to entry 828931ba' });
    await picker.waitFor({ timeout: 60_000 });
    assert.deepStrictEqual(
      ['docs/guide-2.md', 'docs/guide-8.md'].map((p) => fs.readFileSync(path.join(project, p), 'utf8')),
      before,
      'both files as before the interrupted restore',
    );
    await page.keyboard.press('Escape'); // restore nothing
    await picker.waitFor({ state: 'hidden', timeout: 15_000 });
    const text = await expanded(page, 'Arbor undid it first');
    await screenshot(page, 'restore-01-interrupted-undone');
    assert.match(text, /stopped before it finished; Arbor undid it first: put back docs\/guide-8\.md, docs\/guide-2\.md\./, text);
    await closeNotifications(page);
  });

  it('a file changed by hand since the interrupted restore is left as it is, named with where its old bytes are', async () => {
    const page = e2e.page;
    await interruptedRestore(session, project, agentDir);
    const guide2 = path.join(project, 'docs', 'guide-2.md');
    fs.appendFileSync(guide2, 'edited by hand after the crash\n');
    const edited = fs.readFileSync(guide2, 'utf8');
    await restoreFromMenu(page);
    const picker = page.locator('.quick-input-widget', { hasText: 'Restore files to entry 828931ba' });
    await picker.waitFor({ timeout: 60_000 });
    await screenshot(page, 'restore-02-picker-after-undo');
    await page.keyboard.press('Escape');
    await picker.waitFor({ state: 'hidden', timeout: 15_000 });
    const text = await expanded(page, 'Not put back');
    await screenshot(page, 'restore-03-changed-since');
    assert.match(text, /Arbor undid it first: put back docs\/guide-8\.md\. Not put back: docs\/guide-2\.md: changed on disk since/, text);
    const where = /are in (\/\S+?)\.(?:\s|$)/.exec(text)?.[1];
    assert.ok(where && where.startsWith(fs.realpathSync(agentDir)) && fs.existsSync(where), text);
    assert.strictEqual(fs.readFileSync(guide2, 'utf8'), edited, 'the hand edit is kept');
    await closeNotifications(page);
  });
});
