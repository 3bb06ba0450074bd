/** Issue 11 item 8: `arbor tree` indents within bounds and writes as it goes (text and --json). */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main';
import { MAX_DRAWN_DEPTH } from '../../../src/cli/commands/tree';
import { generateTreeSession } from '../../../bench/generateTreeSession';

function capture(): { chunks: string[]; io: { out: (t: string) => void; err: (t: string) => void }; errors: string[] } {
  const chunks: string[] = [];
  const errors: string[] = [];
  return { chunks, errors, io: { out: (t) => chunks.push(t), err: (t) => errors.push(t) } };
}

describe('arbor tree: bounded indentation, streamed output (issue 11 item 8)', function () {
  let dir: string;
  let nested: string;
  let wide: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-tree-'));
    nested = path.join(dir, 'nested.jsonl');
    generateTreeSession({ file: nested, entries: 6000, nested: true });
    wide = path.join(dir, 'wide.jsonl');
    generateTreeSession({ file: wide, entries: 20_000, branchEvery: 10 });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('3,000 nested branch points: the indent stops growing past MAX_DRAWN_DEPTH and rows show their depth', async () => {
    const c = capture();
    assert.equal(await runCli(['tree', nested, '--estimator', 'chars'], c.io), 0);
    const lines = c.chunks.join('').split('\n').filter(Boolean);
    assert.equal(lines.length, 6001);
    const indent = (l: string) => /^[\s│├└─]*/.exec(l)![0].length;
    const widest = Math.max(...lines.map(indent));
    assert.ok(widest <= 3 * (MAX_DRAWN_DEPTH + 1), `indent of ${widest} characters`);
    assert.ok(
      lines.some((l) => /┆2999 /.test(l)),
      'the deepest rows say how deep they are',
    );
    assert.ok(Math.max(...lines.map((l) => l.length)) < 200);
  });

  it('a small deep tree: guides for the first MAX_DRAWN_DEPTH levels, then the indent stays and rows say their depth', async () => {
    assert.equal(MAX_DRAWN_DEPTH, 8, 'the expected rows below are drawn for 8 levels');
    const small = path.join(dir, 'small-deep.jsonl');
    generateTreeSession({ file: small, entries: 24, nested: true });
    const c = capture();
    assert.equal(await runCli(['tree', small, '--estimator', 'chars'], c.io), 0);
    // Each row up to its id: the guides, the depth marker, the id.
    const rows = c.chunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .slice(1)
      .map((l) => /^(.*?[es][0-9a-z]*) (?:user|assistant) /.exec(l)![1]);
    const guides = (n: number) => '   '.repeat(n);
    const expected: string[] = ['e0'];
    for (let k = 0; k < 8; k++) expected.push(`${guides(k)}├─ s${k.toString(36)}`, `${guides(k)}└─ e${(k + 1).toString(36)}`);
    for (let k = 8; k < 11; k++)
      expected.push(`${guides(8)}┆${k + 1} s${k.toString(36)}`, `${guides(8)}┆${k + 1} e${(k + 1).toString(36)}`);
    expected.push(`${guides(8)}┆11 sb`); // the last entry is the only child of eb: the same chain, the same depth
    assert.deepEqual(rows, expected);
  });

  it('text and --json are written in chunks as they are made, and --json is the whole document', async () => {
    const text = capture();
    assert.equal(await runCli(['tree', wide, '--estimator', 'chars'], text.io), 0);
    assert.ok(text.chunks.length > 10, `${text.chunks.length} writes`);
    assert.ok(Math.max(...text.chunks.map((s) => s.length)) < 80 * 1024);
    const json = capture();
    assert.equal(await runCli(['tree', wide, '--estimator', 'chars', '--json'], json.io), 0);
    assert.ok(json.chunks.length > 10, `${json.chunks.length} writes`);
    assert.ok(Math.max(...json.chunks.map((s) => s.length)) < 80 * 1024);
    const doc = JSON.parse(json.chunks.join(''));
    assert.equal(doc.entryCount, 20_000);
    assert.equal(doc.entries.length, 20_000);
    const sides = doc.entries.filter((e: { id: string }) => e.id.startsWith('s')).length;
    assert.ok(sides > 1000 && Math.abs(Object.keys(doc.branchPoints).length - sides) <= 1, `${sides} side branches`);
    assert.deepEqual(Object.keys(doc), ['leafId', 'entryCount', 'roots', 'branchPoints', 'labels', 'entries']);
    assert.deepEqual(Object.keys(doc.entries[0]), ['id', 'parentId', 'type', 'kind', 'line', 'tokens', 'preview']);
    assert.ok(doc.entries.every((e: { tokens: number }) => e.tokens > 0));
  });
});
