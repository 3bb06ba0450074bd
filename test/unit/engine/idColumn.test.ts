import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { IdColumn, idOfPacked, packedId } from '../../../src/engine/session/idColumn';
import { idArb } from '../../support/idArbitraries';

describe('a column of entry ids (issue 20 item 5)', () => {
  it('packs exactly the ids of Pi form (8 lowercase hex digits) and gives each back as it was', () => {
    for (const id of ['00000000', 'ffffffff', '9444ba1a', '0000000a']) {
      assert.ok(packedId(id) >= 0, id);
      assert.equal(idOfPacked(packedId(id)), id);
    }
    for (const id of ['', 'DEADBEEF', 'deadbee', 'deadbeef0', 'deadbeeg', '０１２３４５６７', 'deadbeef ', '-1234567', 'root'])
      assert.equal(packedId(id), -1, id);
    fc.assert(fc.property(fc.nat({ max: 0xffffffff }), (n) => packedId(idOfPacked(n)) === n));
  });

  it('gives back every id (and null) as it was put, set over any other kind, past growth', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(idArb, { nil: null }), { maxLength: 3000 }),
        fc.array(fc.tuple(fc.nat(), fc.option(idArb, { nil: null })), { maxLength: 50 }),
        (ids, sets) => {
          const column = new IdColumn(8);
          for (const id of ids) column.push(id);
          const expected = ids.slice();
          for (const [at, id] of sets) {
            if (!expected.length) break;
            column.set(at % expected.length, id);
            expected[at % expected.length] = id;
          }
          assert.equal(column.length, expected.length);
          for (let i = 0; i < expected.length; i++) {
            assert.equal(column.get(i), expected[i]);
            for (const other of [expected[i], expected[(i + 1) % expected.length]]) {
              if (other === null) continue;
              assert.equal(column.is(i, other, packedId(other)), expected[i] === other);
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
