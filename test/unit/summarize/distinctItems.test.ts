import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { distinctItems, keyHash, pickDistinct, sameSaying, type ItemSource } from '../../../src/engine/summarize/offline/distinctItems';
import { focusOf, pick } from '../../../src/engine/summarize/offline/instructions';
import { unique } from '../../../src/engine/summarize/offline/text';

/** The list version distinctItems replaces (a Done list without repeats), as the summary computed it before. */
function withoutRepeats(items: readonly string[], key: (s: string) => string): string[] {
  const heads = new Set<string>();
  for (const i of items) {
    const k = key(i);
    const colon = k.indexOf(': ');
    if (colon > 0) heads.add(k.slice(0, colon));
  }
  const seen = new Set<string>();
  return items.filter((i) => {
    const k = key(i);
    if (seen.has(k) || (heads.has(k) && !k.includes(': '))) return false;
    seen.add(k);
    return true;
  });
}

/** Items counting how often each is made (the point is to not hold them). */
function counted(items: readonly string[]): ItemSource & { made: number } {
  const source = { made: 0, length: items.length, at: (i: number) => (source.made++, items[i]) };
  return source;
}

// Few words, so items repeat, head one another ("Read a.md" / "Read a.md: it covers"), differ in case and end punctuation.
const word = fc.constantFrom('Read', 'read', 'a.md', 'tests', 'Fixed', 'parser', 'the', '`src/x.ts`', 'ÉTÉ', 'ete', '🙂');
const phrase = fc.array(word, { minLength: 1, maxLength: 3 }).map((w) => w.join(' '));
const item = fc
  .tuple(phrase, fc.option(phrase, { nil: undefined }), fc.constantFrom('', '.', '!', ':', ' ;'))
  .map(([head, body, end]) => `${head}${body !== undefined ? `: ${body}` : ''}${end}`);
const items = fc.array(item, { maxLength: 60 });
const focusText = fc.constantFrom(undefined, 'focus on the parser', 'keep `src/x.ts` and tests', 'ete');
// A hash with 4 values: almost every pair of keys collides, so every comparison goes through the keys themselves.
const weakHash = (key: string) => keyHash(key) % 4;

describe('Done items and objectives without repeats, made on demand (issue 20 item 5)', () => {
  for (const [name, hash] of [
    ['the real hash', undefined],
    ['a hash where keys collide', weakHash],
  ] as const) {
    it(`keeps exactly what the lists kept (unique, withoutRepeats), and picks as pick does: ${name}`, () => {
      fc.assert(
        fc.property(items, focusText, fc.integer({ min: 0, max: 12 }), fc.boolean(), (list, instructions, n, dropHeads) => {
          const focus = focusOf(instructions);
          const source = counted(list);
          const got = distinctItems(source, { key: sameSaying, dropHeads, focus, hash });
          const expected = dropHeads ? withoutRepeats(list, sameSaying) : unique(list, sameSaying);
          assert.deepEqual(
            [...got.positions].map((i) => list[i]),
            expected,
          );
          const picked = pickDistinct(got, n, { focus: focus.terms.length > 0 }).map((i) => list[i]);
          assert.deepEqual(picked, pick(expected, n, focus));
          const newestFirst = pickDistinct(got, n, { focus: focus.terms.length > 0, newestFirst: true }).map((i) => list[i]);
          assert.deepEqual(newestFirst, pick([...expected].reverse(), n, focus).reverse());
        }),
        { numRuns: 400 },
      );
    });
  }

  it('makes each item once when nothing repeats, and about twice when everything does (linear)', () => {
    const distinct = Array.from({ length: 5000 }, (_, i) => `Turn ${i}: changed src/f${i}.ts`);
    const a = counted(distinct);
    assert.equal(distinctItems(a, { key: sameSaying, dropHeads: true }).positions.length, 5000);
    assert.equal(a.made, 5000);
    const same = Array.from({ length: 5000 }, () => 'Earlier work: ran `npm test`');
    const b = counted(same);
    assert.equal(distinctItems(b, { key: sameSaying, dropHeads: true }).positions.length, 1);
    assert.ok(b.made <= 2 * 5000 + 1, `made ${b.made}`);
    // Many items under one head, and items that are only that head: each head check compares with one owner.
    const headed = Array.from({ length: 5000 }, (_, i) => (i % 2 ? 'Earlier work' : `Earlier work: step ${i}`));
    const c = counted(headed);
    assert.equal(distinctItems(c, { key: sameSaying, dropHeads: true }).positions.length, 2500);
    assert.ok(c.made <= 2 * 5000 + 2, `made ${c.made}`);
  });

  it('the hash spreads keys: 100,000 distinct keys, no two with one hash', () => {
    const hashes = new Set<number>();
    for (let i = 0; i < 100_000; i++) hashes.add(keyHash(`turn ${i}: changed src/a${i % 97}.ts`));
    assert.equal(hashes.size, 100_000);
  });
});
