// An edit shown as a diff in the entry panel (issue 34 item 5): context, removed and added lines, in linear time.
import * as assert from 'node:assert/strict';
import { editDiffLines } from '../../../src/engine/text/lineDiff';

describe('edit diff lines', () => {
  it('keeps up to 3 shared lines around the change, then the old lines removed and the new ones added', () => {
    const lines = editDiffLines('a\nb\nc\nd\nold\ne\n', 'a\nb\nc\nd\nnew 1\nnew 2\ne\n');
    assert.deepEqual(
      lines.map((l) => `${l.kind[0]} ${l.text}`),
      ['s b', 's c', 's d', 'r old', 'a new 1', 'a new 2', 's e'],
    );
  });

  it('an added block after a final line break adds no empty line; CRLF reads as LF', () => {
    const lines = editDiffLines('x\r\n', 'x\r\n\r\ny\r\n');
    assert.deepEqual(lines, [
      { kind: 'same', text: 'x' },
      { kind: 'added', text: '' },
      { kind: 'added', text: 'y' },
    ]);
  });

  it('is linear on 1 MB texts', () => {
    const big = 'line\n'.repeat(200_000);
    const t0 = Date.now();
    assert.equal(editDiffLines(big, `${big}tail\n`).filter((l) => l.kind === 'added').length, 1);
    assert.ok(Date.now() - t0 < 2000);
  });
});
