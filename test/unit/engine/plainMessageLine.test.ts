/**
 * The fast reader of plain message lines (plainMessageLine.ts, used by
 * `arbor tree`'s load, which reads every line) gives, for every line it takes, the entry
 * checkEntryText gives (same fields in the same order, same values, -0
 * included), and leaves every other line to it: on hand-made edge cases
 * (test/fixtures/plain-message-lines), the fixture sessions, generated
 * sessions and their damaged copies. And the id table that replaced the
 * index's Map answers as a Map does, colliding ids included.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { sessionArb, renderSession } from '../../support/arbSession';
import { mutate, mutationArb } from '../../support/sessionMutations';
import { checkEntryText } from '../../../src/engine/session/parseLine';
import { parsePlainMessageLine } from '../../../src/engine/session/plainMessageLine';
import { IdTable } from '../../../src/engine/session/idTable';
import { idArb } from '../../support/idArbitraries';

const fixtures = path.join(__dirname, '..', '..', '..', '..', 'test', 'fixtures');

/** Checks one line; returns whether the fast reader took it. */
function assertSameEntry(line: string, version: number, label: string): boolean {
  const fast = parsePlainMessageLine(line, version);
  if (!fast) return false;
  const checked = checkEntryText(line, version);
  assert.ok(checked.ok, `${label}: the fast reader took a line checkEntryText refuses (${checked.ok ? '' : checked.message})`);
  assert.deepStrictEqual(fast, checked.entry, label);
  assert.equal(JSON.stringify(fast), JSON.stringify(checked.entry), `${label}: key order`);
  return true;
}

function linesOf(text: string): string[] {
  return text.split('\n').map((l) => l.replace(/^[ \t\r]+|[ \t\r]+$/g, ''));
}

describe('plain message lines read without JSON.parse', () => {
  it('takes the plain cases, refuses the others, and reads each it takes as checkEntryText does', () => {
    const lines = linesOf(readFileSync(path.join(fixtures, 'plain-message-lines', 'lines.jsonl'), 'utf8')).filter(Boolean);
    const taken = lines.map((l, k) => assertSameEntry(l, 3, `line ${k + 1}: ${l.slice(0, 160)}`));
    // The first 23 lines are plain (see the fixture's README): each is taken, the fast path is not left untested.
    assert.deepEqual(
      taken
        .slice(0, 23)
        .map((t, k) => (t ? -1 : k + 1))
        .filter((k) => k > 0),
      [],
      'plain lines not taken',
    );
    // Lines 24 on: what it takes must agree (checked above); those that checkEntryText refuses it must refuse.
    for (const [k, l] of lines.entries()) if (!checkEntryText(l, 3).ok) assert.equal(taken[k], false, `line ${k + 1}`);
    assert.ok(taken.filter(Boolean).length >= 23);
  });

  it('never reads a version 1 line, and a hookMessage is not plain in any version', () => {
    const line = '{"type":"message","id":"u1","parentId":null,"timestamp":"t","message":{"role":"user","content":"x"}}';
    assert.equal(parsePlainMessageLine(line, 1), undefined);
    assert.ok(parsePlainMessageLine(line, 2));
    assert.equal(parsePlainMessageLine(line.replace('"user"', '"hookMessage"'), 2), undefined);
  });

  it('agrees with checkEntryText on every line of the fixture sessions', () => {
    for (const dir of ['sessions', path.join('sessions', 'hostile'), path.join('pi-oracle', 'fixtures')]) {
      for (const name of readdirSync(path.join(fixtures, dir)).filter((n) => n.endsWith('.jsonl'))) {
        for (const [k, l] of linesOf(readFileSync(path.join(fixtures, dir, name), 'utf8')).entries()) {
          if (l) assertSameEntry(l, 3, `${dir}/${name}:${k + 1}`);
        }
      }
    }
  });

  it('agrees with checkEntryText on generated sessions and their damaged copies', () => {
    fc.assert(
      fc.property(sessionArb, fc.array(mutationArb, { maxLength: 4 }), (steps, mutations) => {
        const text = mutate(renderSession(steps), mutations).toString('utf8');
        for (const [k, l] of linesOf(text).entries()) if (l) for (const v of [2, 3]) assertSameEntry(l, v, `line ${k + 1} v${v}`);
      }),
      { numRuns: 200 },
    );
  });
});

describe('IdTable', () => {
  it('answers as a Map does: set overwrites, size counts distinct ids, get and has', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.oneof(fc.string({ maxLength: 6 }), idArb), fc.integer({ min: -5, max: 1e6 })), { maxLength: 300 }),
        (ops) => {
          const table = new IdTable();
          const map = new Map<string, number>();
          for (const [id, v] of ops) {
            table.set(id, v);
            map.set(id, v);
            assert.equal(table.size, map.size);
          }
          for (const [id] of ops) {
            assert.equal(table.get(id), map.get(id));
            assert.equal(table.get(`${id}?`), map.get(`${id}?`));
            assert.equal(table.has(`${id}?`), map.has(`${id}?`));
          }
        },
      ),
    );
  });

  it('stays right (and moves to a Map) when many ids share one hash', () => {
    // Every id in one of two hashes: probes run long, the table moves its ids to a Map and answers on.
    const table = new IdTable({ hash: (id) => id.length & 1 });
    const n = 5_000;
    // Half of them of Pi's form (kept packed until the move).
    const id = (i: number) => (i % 2 ? `id${i}` : i.toString(16).padStart(8, '0'));
    for (let i = 0; i < n; i++) table.set(id(i), i);
    for (let i = 0; i < n; i++) assert.equal(table.get(id(i)), i);
    assert.equal(table.size, n);
    assert.equal(table.get('id-1'), undefined);
    assert.equal(table.get('ffffffff'), undefined);
  });
});
