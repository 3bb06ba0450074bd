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

  it('compact --json and navigate --summarize --json include retention {kept, missing, contradictions, cannotCheck}', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-retention-cli-'));
    const file = path.join(dir, 's.jsonl');
    await fsp.copyFile(WORKSPACE_MUL, file);
    const n = await json(['navigate', file, '--to', 'b9cc43f4', '--summarize']);
    assert.ok(n.retention.kept.length > 0 && n.retention.kept.every(isItem) && n.retention.missing.every(isItem));
    assert.deepEqual(Object.keys(n.retention), ['kept', 'missing', 'contradictions', 'cannotCheck']);
    assert.equal(n.retention.cannotCheck, null);
    // (Which facts the offline summary keeps is the offline summarizer's test: the facts are read independently of it.)
    assert.ok(n.retention.kept.some((f: any) => f.kind === 'file'));
    const c = await json(['compact', file, '--keep-recent-tokens', '100']);
    assert.ok(c.retention.kept.some((f: any) => f.kind === 'file'));
    assert.ok(Array.isArray(c.retention.contradictions) && c.retention.cannotCheck === null);
    // The stored summary checks the same.
    const again = await json(['check-summary', file]);
    assert.deepEqual(again.retention, c.retention);
  });

  it('says what a summary states that its span contradicts (text and --json)', async () => {
    const file = fixturePath('retention', 'results-session.jsonl');
    const r = await json(['check-summary', file, '--entry', 's0000022']);
    assert.deepEqual(
      r.retention.contradictions.map((c: any) => [c.kind, c.entryId]),
      [
        ['reverted', null],
        ['testsStatus', 's0000010'],
      ],
    );
    assert.ok(r.retention.contradictions.every((c: any) => typeof c.summary === 'string' && typeof c.evidence === 'string'));
    const text = await arbor(['check-summary', file, '--entry', 's0000022']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /the summary states 2 things the span contradicts:/);
    assert.match(
      text.stdout,
      /✗ Tests stated otherwise than their last run: ".*2 of 5 specs fail.*"; the span: the span's last run of `npx jasmine` passed/,
    );
    const files = await json(['check-summary', file, '--entry', 's0000021']);
    assert.ok(
      files.retention.missing.some((f: any) => f.kind === 'result') && files.retention.missing.some((f: any) => f.kind === 'status'),
    );
  });

  it('a span it cannot check says why instead of "keeps 0 of 0"; a Pi 0.73 branch summary is checked against its branch', async () => {
    const cannot = fixturePath('retention', 'cannot-check-session.jsonl');
    const text = await arbor(['check-summary', cannot, '--entry', 'k0000007']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /its summarized span cannot be checked\nretention: cannot check: the summarized span holds no messages/);
    assert.doesNotMatch(text.stdout, /0 of 0/);
    const r = await json(['check-summary', cannot, '--entry', 'k0000006']);
    assert.match(r.retention.cannotCheck, /only pleasantries/);
    assert.deepEqual([r.retention.kept, r.retention.missing, r.retention.contradictions], [[], [], []]);
    const tree = await json(['check-summary', fixturePath('pi-oracle', 'fixtures', '03-tree.jsonl'), '--entry', 'b0d9510b']);
    assert.ok(tree.summarizedMessages > 3, `${tree.summarizedMessages} messages`);
    assert.match(tree.spanNote, /Pi 0\.73 wrote the branch point \(088cfc63\) as fromId: checked against the branch left from a9dae875/);
    assert.equal(tree.retention.cannotCheck, null);
    assert.ok(tree.retention.kept.length + tree.retention.missing.length > 0);
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
        'Pinned:',
        'Read files:',
        'Modified files:',
      ]) {
        assert.ok(r.stdout.includes(`\n${title}\n`), `${title}\n${r.stdout}`);
      }
      // The pinned part as pins (issue 34): the pin, its label, what it is and its entry, then its text; never its tags.
      assert.match(r.stdout, /\nPinned:\n {2}📌 rules · user message · entry b5b2a10b\n {4}From now on, always run/);
      assert.doesNotMatch(r.stdout, /<pinned|<\/pinned>/);
      assert.match(r.stdout, /Split-turn context:\n {2}### Original Request\n {2}Does formatPercent/);
    },
  );
});
