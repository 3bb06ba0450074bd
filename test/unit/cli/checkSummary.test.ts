/** Issue 19: `arbor check-summary`, and the retention report of `arbor compact/navigate --json` (built binary). */
import * as assert from 'node:assert/strict';
import { promises as fsp, existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fixturePath } from '../../support/fixtures';
import { arbor, cli } from '../../support/builtCli';

const WORKSPACE_AUDIT = fixturePath('workspace', '.pi', 'sessions', '2026-11-29T19-22-32-469Z_01a228c2-4e95-75a4-b7ad-da14e3c26c1d.jsonl');
const WORKSPACE_MUL = fixturePath('workspace', '.pi', 'sessions', '2026-11-29T19-36-32-277Z_01a228cf-1f14-7375-95f5-91ee6b4355fc.jsonl');

async function json(args: string[]): Promise<any> {
  const r = await arbor([...args, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const SAMPLE = path.join(fixturePath('..', '..'), 'samples', 'sample-session.jsonl');

const isItem = (x: any) =>
  typeof x.kind === 'string' &&
  typeof x.text === 'string' &&
  (x.entryId === null || typeof x.entryId === 'string') &&
  Object.keys(x).length === 3;

describe('arbor check-summary and the retention reports (built binary)', function () {
  before(() => assert.ok(existsSync(cli), `${cli} is missing: run npm run build first`));

  it('checks a summary already in the file: which facts of its span it keeps and drops; exit 0 either way', async () => {
    const r = await json(['check-summary', WORKSPACE_AUDIT]);
    assert.equal(r.entryId, '52caca59');
    assert.equal(r.type, 'compaction');
    assert.ok(r.retention.kept.every(isItem) && r.retention.missing.every(isItem));
    assert.ok(
      r.retention.kept.some((f: any) => f.kind === 'request' && f.text.startsWith('Audit all the docs') && f.entryId === '79bf9194'),
    );
    assert.ok(
      r.retention.missing.some((f: any) => f.kind === 'identifier' && f.text.startsWith('awk ')),
      JSON.stringify(r.retention.missing),
    );
    const text = await arbor(['check-summary', WORKSPACE_AUDIT, '--entry', '52caca59']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /retention: the summary keeps \d+ of \d+ facts/);
    assert.match(text.stdout, /✗ identifier: awk /);
  });

  it('a branch summary entry is checked against the branch it left; bad input is a usage error', async () => {
    const r = await json(['check-summary', WORKSPACE_MUL, '--entry', '3e48cc64']);
    assert.equal(r.type, 'branch_summary');
    assert.ok(r.summarizedMessages > 0);
    assert.ok(r.retention.kept.some((f: any) => f.kind === 'file' && f.text === 'CHANGELOG.md'));
    const bad = await arbor(['check-summary', WORKSPACE_MUL, '--entry', 'b9cc43f4']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /not a compaction or branch summary/);
    assert.equal((await arbor(['check-summary', WORKSPACE_MUL, '--entry', 'nope'])).code, 2);
  });

  it('compact --json and navigate --summarize --json include retention {kept, missing}', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-retention-cli-'));
    const file = path.join(dir, 's.jsonl');
    await fsp.copyFile(WORKSPACE_MUL, file);
    const n = await json(['navigate', file, '--to', 'b9cc43f4', '--summarize']);
    assert.ok(n.retention.kept.length > 0 && n.retention.kept.every(isItem));
    assert.deepEqual(n.retention.missing, []);
    const c = await json(['compact', file, '--keep-recent-tokens', '100']);
    assert.ok(c.retention.kept.some((f: any) => f.kind === 'file'));
    assert.deepEqual(c.retention.missing, []);
    // The stored summary checks the same.
    const again = await json(['check-summary', file]);
    assert.deepEqual(again.retention, c.retention);
  });

  it(
    "arbor summary (text) shows every part the entry holds, through the panel's section model: the pinned part, the " +
      'turn context, the file lists',
    async () => {
      const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-summary-text-'));
      const file = path.join(dir, 's.jsonl');
      await fsp.copyFile(SAMPLE, file);
      assert.equal((await arbor(['compact', file, '--keep-recent-tokens', '1000'])).code, 0);
      const r = await arbor(['summary', file]);
      assert.equal(r.code, 0, r.stderr);
      for (const title of [
        'Goal:',
        'Constraints & Preferences:',
        'Done:',
        'In Progress:',
        'Next Steps:',
        'Critical Context:',
        'Split-turn context:',
        'Other notes:',
        'Read files:',
        'Modified files:',
      ]) {
        assert.ok(r.stdout.includes(`\n${title}\n`), `${title}\n${r.stdout}`);
      }
      assert.match(
        r.stdout,
        /Other notes:\n {2}### Pinned\n\n {2}<pinned id="b5b2a10b" kind="user" label="📌 rules">\n {2}From now on, always run/,
      );
      assert.match(r.stdout, /Split-turn context:\n {2}### Original Request\n {2}Does formatPercent/);
    },
  );
});
