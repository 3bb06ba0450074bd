/**
 * `arbor tree` describes each entry as the load parses it (RowFacts is the
 * load's visitor; a plain message line is read without JSON.parse). Every row
 * it shows must be the row described from the index's own parse of that
 * line (rowFromIndex: JSON.parse and the entry checks), whatever the file
 * holds and whether it was read whole or streamed; lines the load could not
 * describe (too long to parse, keys the scan and JSON.parse read differently)
 * are described from the index.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sessionArb, renderSession } from '../../support/arbSession';
import { mutate, mutationArb } from '../../support/sessionMutations';
import { treeCommand } from '../../../src/cli/commands/tree';
import { RowFacts, rowFromIndex, type Row, type RowStyle } from '../../../src/cli/commands/treeRowFacts';
import { loadSession } from '../../../src/engine/session/loadSession';
import { writeDamagedTreeSession } from '../../support/damagedTreeSession';

const fixtures = path.join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'sessions');
const STYLES: RowStyle[] = [
  { estimator: 'tokenizer', json: false },
  { estimator: 'chars', json: false },
  { estimator: 'tokenizer', json: true },
];

/**
 * Every entry's row described from the index (a load without a visitor; each entry parsed by the index's own
 * reading), read whole ('full') or streamed ('fast': lines whose bodies are not checked at load are indexed, so
 * the two may hold different entries).
 */
async function rowsFromIndex(file: string, style: RowStyle, validation: 'full' | 'fast'): Promise<Row[]> {
  const index = await loadSession(file, { validation });
  const all = Array.from({ length: index.entryCount }, (_, i) => i);
  return index.withLoaded(all, () => all.map((i) => rowFromIndex(index, i, style)));
}

/** The rows the load's visitor made, read whole ('full') or streamed ('fast'); undefined where it made none. */
async function rowsAsLoaded(file: string, style: RowStyle, validation: 'full' | 'fast'): Promise<(Row | undefined)[]> {
  const rows = new RowFacts(style);
  const index = await loadSession(file, { validation, onEntry: rows.visit });
  return Array.from({ length: index.entryCount }, (_, i) => (rows.hasRow(i) ? rows.row(index, i) : undefined));
}

/**
 * Asserts that every row the load made is the index's row, and that a load reading the file whole made every row
 * (it parses every line); returns how many rows a streamed load left to the index (lines its key scan indexed
 * that do not parse as that entry: damaged, or keys written twice).
 */
async function assertRowsAgree(file: string, label: string): Promise<number> {
  let streamedMissing = 0;
  for (const style of STYLES) {
    for (const validation of ['full', 'fast'] as const) {
      const expected = await rowsFromIndex(file, style, validation);
      const made = await rowsAsLoaded(file, style, validation);
      assert.equal(made.length, expected.length, `${label}: entries`);
      let missing = 0;
      made.forEach((row, i) => {
        if (row) assert.deepEqual(row, expected[i], `${label} ${validation} ${JSON.stringify(style)}: entry ${i}`);
        else missing++;
      });
      if (validation === 'full') assert.equal(missing, 0, `${label}: read whole, every row is made as loaded`);
      else streamedMissing = missing;
    }
  }
  return streamedMissing;
}

async function treeJson(file: string, flags: string[] = []): Promise<{ entries: { kind: string; tokens: number; preview: string }[] }> {
  const out: string[] = [];
  const code = await treeCommand([file, '--json', ...flags], { out: (t) => out.push(t), err: () => undefined });
  assert.equal(code, 0);
  return JSON.parse(out.join('')) as { entries: { kind: string; tokens: number; preview: string }[] };
}

describe('arbor tree rows made as the load parses', function () {
  let dir: string;
  before(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-tree-rows-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('are the rows described from the index, on damaged generated sessions, read whole and streamed', async () => {
    const file = path.join(dir, 'fuzz.jsonl');
    await fc.assert(
      fc.asyncProperty(sessionArb, fc.array(mutationArb, { maxLength: 5 }), async (steps, mutations) => {
        writeFileSync(file, mutate(renderSession(steps), mutations));
        const streamedMissing = await assertRowsAgree(file, 'generated');
        if (!mutations.length) assert.equal(streamedMissing, 0, 'an undamaged session: every row made as loaded, streamed too');
      }),
      { numRuns: 40 },
    );
  });

  it('are the rows described from the index on every session fixture (v1, BOM and CRLF, truncated, cycles, hostile text)', async () => {
    // empty.jsonl: no header, refused by every load (nothing to describe).
    const files = readdirSync(fixtures, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.jsonl') && f !== 'empty.jsonl');
    assert.ok(files.length > 10, `${files.length} fixtures`);
    // Streamed, the lines the key scan indexes that do not parse as that entry are left to the index (per style).
    const leftToIndex: Record<string, number> = {
      'v2-with-invalid-lines.jsonl': 1,
      [path.join('hostile', 'deep-nesting.jsonl')]: 2,
      [path.join('hostile', 'wrong-types.jsonl')]: 5,
    };
    for (const name of files) assert.equal(await assertRowsAgree(path.join(fixtures, name), name), leftToIndex[name] ?? 0, name);
  });

  it('a 6 MB session (streamed) with blank and indented lines and keys written twice: the tree shows the index rows for all', async () => {
    const file = path.join(dir, 'large.jsonl');
    writeDamagedTreeSession(file);
    const made = await rowsAsLoaded(file, STYLES[0], 'fast');
    assert.equal(made.filter((r) => !r).length, 2, 'the two lines with a key written twice are left to the index');
    for (const flags of [[], ['--estimator', 'chars']]) {
      const style: RowStyle = { estimator: flags.length ? 'chars' : 'tokenizer', json: true };
      const expected = await rowsFromIndex(file, style, 'fast'); // the tree's load streams a file over 4 MB
      const shown = (await treeJson(file, flags)).entries.map((e) => ({ kind: e.kind, text: e.preview, tokens: e.tokens }));
      assert.equal(shown.length, 25_000);
      assert.deepEqual(shown, expected, flags.join(' ') || 'tokenizer');
    }
  });

  it('long lines: one longer than a read block (6 MB) is described as loaded, one too long to parse (17 MB) from the index', async () => {
    const file = path.join(dir, 'long.jsonl');
    const msg = (id: string, parentId: string | null, text: string) =>
      JSON.stringify({
        type: 'message',
        id,
        parentId,
        timestamp: '2026-01-01T00:00:00.000Z',
        message: { role: 'user', content: [{ type: 'text', text }], timestamp: 1 },
      });
    const lines = [
      JSON.stringify({ type: 'session', version: 3, id: 'long', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w' }),
      msg('a', null, 'first'),
      msg('b', 'a', `six MB ${'x'.repeat(6 * 1024 * 1024)}`),
      msg('c', 'b', 'between'),
      msg('d', 'c', `seventeen MB ${'y'.repeat(17 * 1024 * 1024)}`),
      msg('e', 'd', 'last'),
    ];
    writeFileSync(file, `${lines.join('\n')}\n`);
    const made = await rowsAsLoaded(file, STYLES[0], 'fast');
    assert.deepEqual(
      made.map((r) => Boolean(r)),
      [true, true, true, false, true],
    );
    assert.match(made[1]!.text, /^six MB x+…$/);
    const entries = (await treeJson(file)).entries;
    assert.match(entries[3].preview, /17 MB entry, too large to show/);
    assert.equal(entries[4].preview, 'last');
  });

  it('a last line too long to parse (20 MB) with no line break after it is never described from its content: left for a later read', async () => {
    const file = path.join(dir, 'cut.jsonl');
    const lines = [
      JSON.stringify({ type: 'session', version: 3, id: 'cut', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w' }),
      JSON.stringify({
        type: 'message',
        id: 'a',
        parentId: null,
        timestamp: '2026-01-01T00:00:00.000Z',
        message: { role: 'user', content: 'first', timestamp: 1 },
      }),
      JSON.stringify({
        type: 'message',
        id: 'b',
        parentId: 'a',
        timestamp: '2026-01-01T00:00:00.000Z',
        message: { role: 'user', content: `twenty MB ${'z'.repeat(20 * 1024 * 1024)}`, timestamp: 1 },
      }),
    ];
    writeFileSync(file, lines.join('\n'));
    assert.equal(await assertRowsAgree(file, 'cut'), 0);
    const err: string[] = [];
    const out: string[] = [];
    assert.equal(await treeCommand([file], { out: (t) => out.push(t), err: (t) => err.push(t) }), 0);
    assert.doesNotMatch(out.join(''), /twenty MB/);
    assert.match(out.join(''), /: 1 entries/);
    assert.match(err.join('\n'), /:3: the last line is incomplete .*20 MB.*skipped/);
  });
});
