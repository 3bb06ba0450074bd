// UI test for the retention checklist of the summary panel (issue 19): a compaction proposal shows what the
// summary keeps above Apply; an edit that drops facts shows them missing first; "Put back" adds the ones that
// can be put back mechanically to the editor's text, which the user then applies. Screenshots go to
// test-artifacts/screenshots/retention-*.png.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import { runCommand, screenshot, showActivityView, webviewWith } from '../support/vscode/browser';
import { e2e } from './context';
import { collapseAll, row } from './sessionsView';

const PLAIN = '01a228c2-47b3'; // 01-plain: one long linear conversation (a split turn: its request is open)
const NAME = 'Retention demo: what a summary keeps';
const shot = (name: string) => screenshot(e2e.page, `retention-${name}`);

/**
 * The test's own session: a fresh copy of the fixture workspace's 01-plain (other UI tests compact and jump the
 * workspace's copy, and a session that already ends in a compaction has nothing to compact).
 */
function ownSession(idPrefix: string): string {
  const fixtures = path.join(e2e.extensionPath, 'test', 'fixtures', 'workspace', '.pi', 'sessions');
  const name = fs.readdirSync(fixtures).find((f) => f.includes(`_${idPrefix}`));
  assert.ok(name, `no session ${idPrefix}`);
  const copy = path.join(e2e.workspacePath, '.pi', 'sessions', `retention-demo-${name}`);
  if (!fs.existsSync(copy)) fs.copyFileSync(path.join(fixtures, name), copy);
  return copy;
}

function lastEntry(file: string): Record<string, unknown> {
  const lines = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  return JSON.parse(lines[lines.length - 1]) as Record<string, unknown>;
}

describe('Retention checklist in the summary panel (UI)', function () {
  this.timeout(240_000);
  let page: Page;

  before(async () => {
    page = e2e.page;
    // Name the session (what Pi's /name writes) so its row is found whatever ran before.
    const file = ownSession(PLAIN);
    const leaf = lastEntry(file);
    fs.appendFileSync(
      file,
      `${JSON.stringify({ type: 'session_info', id: '5e55e7e1', parentId: leaf.id, timestamp: new Date().toISOString(), name: NAME })}\n`,
    );
    await showActivityView(page, 'Arbor');
    await collapseAll(page);
    await row(page, NAME).waitFor({ timeout: 30_000 });
  });

  it('shows the facts above Apply; an edit that drops them lists them missing first; Put back restores them as an edit to apply', async () => {
    const file = ownSession(PLAIN);
    const before = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.trim()).length;
    await row(page, NAME).click();
    await runCommand(page, 'Arbor: Compact...');
    await page.locator('.quick-input-widget', { hasText: 'Optional instructions' }).waitFor();
    await page.keyboard.press('Enter');

    const view = await webviewWith(page, '#retention', 60_000);
    // The offline summary keeps every fact: the checklist says so, above the Apply button.
    assert.match((await view.locator('#retention-count').textContent()) ?? '', /^(\d+) of \1 facts kept$/);
    const box = async (sel: string) => (await view.locator(sel).boundingBox())!;
    assert.ok((await box('#retention')).y < (await box('#apply')).y, 'the checklist is above Apply');
    assert.strictEqual(await view.locator('#put-back').count(), 0, 'nothing to put back');
    await view.locator('#facts-kept > summary').click();
    assert.ok(await view.locator('#facts-kept li.fact[data-kind="request"]').count(), 'the open request of the split turn is a fact');
    await shot('01-all-kept');

    // Edit the summary down to one line: the check of the edited text lists what it lost, missing first.
    await view.locator('#edit').click();
    const editor = view.locator('#editor');
    await editor.fill('## Goal\n- Compare the guides');
    await view.locator('#facts-missing li.fact').first().waitFor({ timeout: 15_000 });
    const missingKinds = await view.locator('#facts-missing li.fact').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')));
    assert.ok(missingKinds.includes('request') && missingKinds.includes('file'), missingKinds.join(','));
    const firstFact = await box('#facts-missing');
    const keptList = await view.locator('#facts-kept').count();
    if (keptList) assert.ok(firstFact.y < (await box('#facts-kept')).y, 'missing facts come first');
    await view.locator('#put-back').waitFor();
    await shot('02-edited-missing');

    // Put back: the request and the file names go back into the editor's text; nothing is written yet.
    await view.locator('#put-back').click();
    await view.locator('#facts-missing li.fact[data-kind="request"]').waitFor({ state: 'detached', timeout: 15_000 });
    const text = await editor.inputValue();
    assert.match(text, /^## Goal\n- Compare the guides\n/);
    assert.match(text, /## In Progress\n- \[ \] Compare guides 3 and 4 for me\./);
    assert.match(text, /- Modified files: .*`src\/math\.js`/);
    assert.strictEqual(await view.locator('#facts-missing li.fact[data-kind="file"]').count(), 0);
    assert.strictEqual(
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.trim()).length,
      before,
      'nothing written before Apply',
    );
    await shot('03-put-back');

    // Apply the edited text: the entry written is the edit with the facts put back.
    await view.locator('#apply-edited').click();
    await view.locator('#mode-badge', { hasText: 'In session' }).waitFor({ timeout: 30_000 });
    const written = lastEntry(file);
    assert.strictEqual(written.type, 'compaction');
    assert.match(String(written.summary), /Compare guides 3 and 4 for me\./);
    assert.match(String(written.summary), /`src\/math\.js`/);
    // The written entry's own check (as in the file) is shown too.
    await view.locator('#retention').waitFor();
    await shot('04-applied');
  });
});
