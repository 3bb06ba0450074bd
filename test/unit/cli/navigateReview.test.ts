/**
 * Issue 34 item 2: a jump with a branch summary can be looked at before it is written (`navigate --summarize
 * --dry-run`: the summary, its figures and its retention check; nothing written), and undone (`navigate --undo`:
 * one append that moves the leaf back; nothing removed).
 */
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fixturePath } from '../../support/fixtures';
import { json, run } from '../../support/cliInProcess';
import { loadSession } from '../../../src/engine/session/loadSession';
import { runEntryWalk } from '../../../src/engine/session/entryWalkLoads';
import { writtenJumpNumbersWalk } from '../../../src/engine/branch/jumpNumbers';
import { estimatorByName } from '../../../src/engine/tokens/estimators';

const TREE = fixturePath('pi-oracle', 'fixtures', '03-tree.jsonl');
/** 03-tree's leaf, and a user message on another branch (the jump lands on its parent). */
const OLD_LEAF = '2cbb1a68';
const TARGET = '8c5b7af4';
const LANDING = '88f696d0';

async function copy(): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-navigate-review-'));
  const file = path.join(dir, 'session.jsonl');
  await fsp.copyFile(TREE, file);
  return file;
}

describe('arbor navigate --dry-run and --undo (issue 34 item 2)', () => {
  const saved = process.env.PI_CODING_AGENT_DIR;
  before(() => (process.env.PI_CODING_AGENT_DIR = path.join(os.tmpdir(), 'arbor-no-pi-dir')));
  after(() => {
    if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
    else process.env.PI_CODING_AGENT_DIR = saved;
  });

  it('--summarize --dry-run prints the proposal, its figures and its check, and writes nothing', async () => {
    const file = await copy();
    const before = await fsp.readFile(file);
    const args = ['navigate', file, '--to', TARGET, '--summarize', '--dry-run', '--label', 'csv', '--instructions', 'Keep the CSV path.'];
    const p = await json([...args, '--estimator', 'chars']);
    assert.deepEqual(await fsp.readFile(file), before, 'a dry run leaves the file byte for byte');
    assert.equal(p.dryRun, true);
    assert.equal(p.moved, false);
    assert.equal(p.oldLeafId, OLD_LEAF);
    assert.equal(p.newLeafId, LANDING);
    assert.equal(p.label, 'csv');
    assert.match(p.editorText, /records\.csv/);
    assert.match(p.summary.text, /^Note: before returning to this point, the user followed a different line of work[^]*\n## Goal\n/);
    assert.ok(p.summary.tokensBefore > 0 && p.summary.tokensAfter > 0 && p.summary.summaryTokens > 0, JSON.stringify(p.summary));
    assert.ok(Array.isArray(p.retention.kept) && Array.isArray(p.retention.missing), 'the retention check is in the JSON');
    assert.ok(p.retention.kept.length + p.retention.missing.length > 0, 'the branch left behind has facts to check');

    const text = await run([...args, '--estimator', 'chars']);
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, /^dry run: nothing written/);
    assert.match(text.out, new RegExp(`would move from ${OLD_LEAF} to ${LANDING}`));
    assert.match(text.out, new RegExp(`context: ${p.summary.tokensBefore.toLocaleString('en-US')} tokens at the leaf left`));
    assert.match(text.out, /retention: the summary keeps \d+ of \d+ facts/);
    assert.deepEqual(await fsp.readFile(file), before);
  });

  it("the dry run's figures are the written summary's, and --undo moves the leaf back by one append", async () => {
    const file = await copy();
    const dry = await json(['navigate', file, '--to', TARGET, '--summarize', '--dry-run', '--estimator', 'chars']);
    const n = await json(['navigate', file, '--to', TARGET, '--summarize', '--estimator', 'chars']);
    assert.equal(n.summaryEntry.summary, dry.summary.text, 'the offline summary is the one the dry run showed');
    const index = await loadSession(file);
    const written = await runEntryWalk(index, writtenJumpNumbersWalk(index, index.indexOf(n.summaryEntry.id), estimatorByName('chars')));
    assert.deepEqual(written, { tokensBefore: dry.summary.tokensBefore, tokensAfter: dry.summary.tokensAfter });

    const jumped = await fsp.readFile(file);
    const u = await json(['navigate', file, '--undo']);
    assert.equal(u.moved, true);
    assert.equal(u.leafId, OLD_LEAF);
    assert.equal(u.entries.length, 1);
    assert.equal(u.entries[0].type, 'custom');
    assert.equal(u.entries[0].customType, 'arbor/leaf-move');
    assert.equal(u.entries[0].parentId, OLD_LEAF);
    const after = await fsp.readFile(file);
    assert.deepEqual(after.subarray(0, jumped.length), jumped, 'nothing before the undo is changed or removed');
    const tree = await json(['tree', file]);
    assert.equal(tree.leafId, u.entries[0].id);
    const ctx = await json(['context', file]);
    assert.equal(ctx.messages.at(-1).entryId, OLD_LEAF, 'the context is the one at the old leaf again');

    // The undo is itself a move: undoing it goes forward to where the jump landed.
    const redo = await json(['navigate', file, '--undo']);
    assert.equal(redo.leafId, n.summaryEntry.id);
  });

  it('--undo at a leaf no jump made writes nothing and says why', async () => {
    const file = await copy();
    const before = await fsp.readFile(file);
    const r = await run(['navigate', file, '--undo']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, new RegExp(`nothing written: the leaf ${OLD_LEAF} is not where a jump left it`));
    assert.deepEqual(await fsp.readFile(file), before);
    const bad = await run(['navigate', file, '--undo', '--to', TARGET]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--undo goes without --to/);
  });
});
