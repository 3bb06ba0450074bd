/** detachedText: a preview kept for later does not keep the text it was cut from alive. */
import * as assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { detachedText } from '../../../src/engine/text/detachedText';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A fresh 4 MB string (as JSON.parse makes a message's text) and a preview cut from it. */
function previewOfBigText(k: number): string {
  const big = JSON.parse(JSON.stringify(`${k} ${'x'.repeat(4 * 1024 * 1024)}`)) as string;
  return `${big.slice(0, 60)}…`;
}

function heapAfterKeeping(keep: (s: string) => string): number {
  const kept: string[] = [];
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let k = 0; k < 30; k++) kept.push(keep(previewOfBigText(k)));
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  assert.equal(kept.length, 30);
  return grown / 1048576;
}

describe('detachedText', () => {
  it('is the same text', () => {
    for (const t of ['', 'short', 'x'.repeat(13), '😀 pairs and \ud800 lone surrogates, escapes \u001b[2J', 'y'.repeat(500)])
      assert.equal(detachedText(t), t);
  });

  it('lets the text a preview was cut from be collected (kept as is, 30 previews of 4 MB texts pin 120 MB)', () => {
    const pinned = heapAfterKeeping((s) => s);
    const detached = heapAfterKeeping(detachedText);
    assert.ok(pinned > 100, `the check itself: slices kept as is pin their parents (${pinned.toFixed(0)} MB)`);
    assert.ok(detached < 5, `30 detached previews hold ${detached.toFixed(1)} MB`);
  });
});
