import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { ChildTable } from '../../../src/engine/session/childTable';
import { TokenCounts } from '../../../src/engine/session/tokenCounts';

/** Children as an array per entry, the obvious way (file order). */
function naiveChildren(parents: readonly number[]): number[][] {
  const lists: number[][] = parents.map(() => []);
  parents.forEach((p, i) => p >= 0 && lists[p].push(i));
  return lists;
}

describe('compact index structures', () => {
  it('ChildTable lists the children of every entry in file order, before and after appends', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 60 }), fc.nat(60), (seeds, split) => {
        // Entry i's parent is an earlier entry or none (-1), as in a session file.
        const parents = seeds.map((s, i) => (i === 0 || s % 5 === 0 ? -1 : s % i));
        const at = Math.min(split, parents.length);
        const table = new ChildTable(Int32Array.from(parents.slice(0, at)));
        for (let i = at; i < parents.length; i++) if (parents[i] >= 0) table.add(parents[i], i);
        const expected = naiveChildren(parents);
        for (let i = 0; i < parents.length; i++) {
          assert.deepEqual([...table.list(i)], expected[i]);
          assert.equal(table.count(i), expected[i].length);
          expected[i].forEach((c, k) => assert.equal(table.at(i, k), c));
        }
      }),
    );
  });

  it('TokenCounts answers like a Map, sparse or dense', () => {
    const counts = new TokenCounts();
    const map = new Map<number, number>();
    const keys = [5, 0, 100_000, 7, 7, 4095, ...Array.from({ length: 5000 }, (_, k) => k * 3)];
    keys.forEach((i, k) => {
      counts.set(i, k % 11);
      map.set(i, k % 11);
      if (k === 3 || k === keys.length - 1) {
        assert.equal(counts.size, map.size);
        for (const [i2, v] of map) assert.equal(counts.get(i2), v);
        assert.equal(counts.get(1), undefined);
        assert.equal(counts.has(100_001), false);
        assert.deepEqual(
          [...counts].sort((a, b) => a[0] - b[0]),
          [...map].sort((a, b) => a[0] - b[0]),
        );
      }
    });
    counts.set(200_000, 0);
    assert.equal(counts.get(200_000), 0, 'a zero count is a count');
  });
});
