/** The built `arbor` binary (dist/cli.js, from `npm run build`) on real Pi sessions. */
import * as assert from 'node:assert/strict';
import { promises as fsp, existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fixturePath, oracleCases } from '../../support/fixtures';
import { arbor, cli } from '../../support/builtCli';

async function json(args: string[]): Promise<any> {
  const r = await arbor([...args, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

async function tempCopy(src: string): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-cli-'));
  const file = path.join(dir, path.basename(src));
  await fsp.copyFile(src, file);
  return file;
}

describe('arbor CLI (built binary)', function () {
  before(() => assert.ok(existsSync(cli), `${cli} is missing: run npm run build first`));

  for (const c of oracleCases()) {
    it(`tree, context, plan-compaction and plan-branch agree with Pi 1.6 on ${c.name}`, async () => {
      const g = JSON.parse(await fsp.readFile(c.goldenFile, 'utf8'));
      const tree = await json(['tree', c.sessionFile]);
      assert.equal(tree.leafId, g.leafId);
      assert.equal(tree.entryCount, g.entryCount);
      assert.deepEqual(tree.roots, g.tree.roots);
      assert.deepEqual(tree.branchPoints, g.tree.branchPoints);
      assert.deepEqual(tree.labels, g.tree.labels);

      const ctx = await json(['context', c.sessionFile, '--estimator', 'chars']);
      const gc = g.contexts[g.leafId];
      assert.deepEqual(
        ctx.messages.map((m: any) => m.entryId),
        gc.messageEntryIds,
      );
      assert.deepEqual(
        ctx.messages.map((m: any) => m.role),
        gc.messageRoles,
      );
      assert.deepEqual(ctx.model, gc.model);
      assert.equal(ctx.thinkingLevel, gc.thinkingLevel);
      const { tokens, usageTokens, trailingTokens } = gc.estimateContextTokens;
      assert.deepEqual(ctx.contextTokens, { tokens, usageTokens, trailingTokens });

      for (const keep of [1000, 4000, 20000]) {
        const plan = await json([
          'plan-compaction',
          c.sessionFile,
          '--estimator',
          'chars',
          '--keep-recent-tokens',
          String(keep),
          '--reserve-tokens',
          '16384',
          '--context-window',
          '32768',
        ]);
        const gp = g.compaction[g.leafId][String(keep)];
        if (gp.result === null) {
          assert.equal(plan.nothingToCompact, true);
          assert.equal(typeof plan.reason, 'string');
          continue;
        }
        assert.equal(plan.firstKeptEntryId, gp.firstKeptEntryId);
        assert.equal(plan.isSplitTurn, gp.isSplitTurn);
        assert.equal(plan.tokensBefore, gp.tokensBefore);
        assert.deepEqual(plan.summarizeEntryIds, gp.messagesToSummarize.entryIds);
        assert.deepEqual(plan.turnPrefixEntryIds, gp.turnPrefixMessages.entryIds);
        assert.deepEqual(plan.readFiles, gp.readFiles);
        assert.deepEqual(plan.modifiedFiles, gp.modifiedFiles);
        assert.equal(plan.shouldCompact, g.contexts[g.leafId].shouldCompactProjected['32768']);
        assert.ok(plan.previousSummary === null || typeof plan.previousSummary === 'string');
      }

      for (const pair of g.branchPairs.slice(0, 4)) {
        const b = await json([
          'plan-branch',
          c.sessionFile,
          '--estimator',
          'chars',
          '--from',
          pair.fromId,
          '--to',
          pair.toId,
          '--budget',
          '2000',
        ]);
        assert.equal(b.commonAncestorId, pair.commonAncestorId);
        assert.deepEqual(b.entryIds, pair.entryIds);
        assert.deepEqual(b.preparedEntryIds, pair.prepared['2000'].messageEntryIds);
        assert.deepEqual(b.readFiles, pair.prepared['2000'].readFiles);
        assert.deepEqual(b.modifiedFiles, pair.prepared['2000'].modifiedFiles);
        assert.equal(b.newLeafId, pair.derivedNavigateTreeNewLeafId);
        assert.ok('editorText' in b);
      }
    });
  }

  it('exit code 2 with file and line for bad input; 2 for usage errors', async () => {
    const bad = await arbor(['tree', fixturePath('sessions', 'empty.jsonl')]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /empty\.jsonl:1: empty file/);
    const missing = await arbor(['tree', '/definitely/not/here.jsonl']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /not\/here\.jsonl/);
    const flag = await arbor(['plan-compaction', oracleCases()[0].sessionFile, '--keep-recent-tokens', 'lots']);
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /--keep-recent-tokens/);
    assert.equal((await arbor(['frobnicate'])).code, 2);
    const noEntry = await arbor(['plan-branch', oracleCases()[0].sessionFile, '--to', 'nope']);
    assert.equal(noEntry.code, 2);
  });

  it('warns about skipped lines by file and line and still works', async () => {
    const file = fixturePath('sessions', 'invalid-lines-truncated-tail.jsonl');
    const r = await arbor(['tree', file, '--json']);
    assert.equal(r.code, 0);
    assert.match(r.stderr, /invalid-lines-truncated-tail\.jsonl:3: /);
    assert.match(r.stderr, /invalid-lines-truncated-tail\.jsonl:7: the last line is incomplete/);
    assert.equal(JSON.parse(r.stdout).leafId, 'u2');
  });

  it('settings errors name the file and the key (exit 2)', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-settings-'));
    await fsp.writeFile(path.join(dir, 'settings.json'), JSON.stringify({ compaction: { keepRecentTokens: -5 } }));
    const r = await arbor(['plan-compaction', oracleCases()[0].sessionFile], { PI_CODING_AGENT_DIR: dir });
    assert.equal(r.code, 2);
    assert.ok(r.stderr.includes(path.join(dir, 'settings.json')));
    assert.match(r.stderr, /compaction\.keepRecentTokens/);
  });

  it('compact, navigate and summary with the offline summarizer write what Pi expects', async () => {
    const file = await tempCopy(fixturePath('pi-oracle', 'fixtures', '03-tree.jsonl'));
    const before = await fsp.readFile(file);
    const c = await json(['compact', file, '--keep-recent-tokens', '1000', '--instructions', 'Keep paths.']);
    assert.equal(c.entry.type, 'compaction');
    assert.equal(c.entry.parentId, '2cbb1a68');
    assert.equal(c.entry.firstKeptEntryId, '088cfc63');
    assert.match(c.entry.summary, /<read-files>\nREADME\.md\n<\/read-files>/);
    assert.deepEqual(c.entry.details, { readFiles: ['README.md'], modifiedFiles: [] });
    assert.equal(typeof c.entry.tokensBefore, 'number');
    assert.ok(!('usage' in c.entry), 'an offline summary records no usage (issue 9.4: no model call, nothing for Pi to add to its costs)');
    const afterCompact = await fsp.readFile(file);
    assert.deepEqual(afterCompact.subarray(0, before.length), before);

    const n = await json(['navigate', file, '--to', '8c5b7af4', '--summarize', '--label', 'csv']);
    assert.equal(n.newLeafId, '88f696d0');
    assert.match(n.editorText, /records\.csv/);
    assert.equal(n.summaryEntry.type, 'branch_summary');
    assert.equal(n.summaryEntry.parentId, '88f696d0');
    assert.equal(n.summaryEntry.fromId, c.entry.id);
    assert.equal(n.entries[1].type, 'label');
    assert.equal(n.entries[1].targetId, n.summaryEntry.id);

    const s = await json(['summary', file]);
    assert.equal(s.entryId, n.summaryEntry.id);
    assert.ok(s.parsed.goal.length > 0, 'the parsed branch summary has a goal');
    const sc = await json(['summary', file, '--entry', c.entry.id]);
    assert.deepEqual(sc.parsed.readFiles, ['README.md']);

    const plain = await json(['navigate', file, '--to', '2cbb1a68']);
    assert.equal(plain.entries[0].type, 'custom');
    assert.equal(plain.entries[0].parentId, '2cbb1a68');
    const tree = await json(['tree', file]);
    assert.equal(tree.leafId, plain.entries[0].id);
  });
});
