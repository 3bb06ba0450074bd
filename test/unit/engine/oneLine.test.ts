/** oneLine: one pass that stops at max + 1 characters, giving what the two-regex definition gives. */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { oneLine, ONE_LINE_MAX } from '../../../src/engine/tree/oneLine';

/** The definition the single pass must agree with (whole-text regex passes). */
function reference(text: string, max = ONE_LINE_MAX): string {
  const flat = text
    .replace(/\*\*(.+?)\*\*|__(.+?)__/g, '$1$2')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, Math.max(0, max - 1))}…` : flat;
}

const pieces = [
  '*',
  '**',
  '***',
  '_',
  '__',
  ' ',
  '  ',
  '\t',
  '\n',
  '\r\n',
  '\u2028',
  '\u00a0',
  '\u3000',
  '\ufeff',
  '\u0085',
  'a',
  'bc',
  'é',
  '😀',
  '\ud800',
  'x y',
  '**b**',
  '__u__',
];
const textArb = fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((a) => a.join(''));

describe('oneLine', () => {
  it('agrees with the regex definition on marker, whitespace and surrogate soup, at every width', () => {
    fc.assert(
      fc.property(textArb, fc.integer({ min: -2, max: 30 }), (text, max) => {
        assert.equal(oneLine(text, max), reference(text, max), JSON.stringify({ text, max }));
      }),
      { numRuns: 20000 },
    );
  });

  it('agrees with the definition on arbitrary Unicode text at the default width', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        assert.equal(oneLine(text), reference(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('gives text it keeps as is (single spaces, no markers) as the definition does: long runs, Unicode, BOM, escapes, any width', () => {
    // Mostly pieces the fast path keeps, with a hostile one now and then (it must hand those to the full pass).
    const kept = ['word', ' ', 'é', '😀', '\ud800', '\udc00', 'x'.repeat(300), '\u001b[31m', '\\n', '\\u0000', '"', 'a*b', '*', '_'];
    const odd = ['\ufeff', '\t', '  ', '\n', '**', '__', '\u00a0', '\u2028'];
    const arb = fc.array(fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...kept) }, { weight: 1, arbitrary: fc.constantFrom(...odd) }), {
      maxLength: 30,
    });
    fc.assert(
      fc.property(arb, fc.integer({ min: -2, max: 400 }), (parts, max) => {
        const text = parts.join('');
        assert.equal(oneLine(text, max), reference(text, max), JSON.stringify({ text, max }));
      }),
      { numRuns: 20000 },
    );
    assert.equal(oneLine('x'.repeat(141)), `${'x'.repeat(139)}…`);
    assert.equal(oneLine('x'.repeat(140)), 'x'.repeat(140));
    assert.equal(oneLine('a b'), 'a b');
    assert.equal(oneLine('a b ', 3), 'a b');
  });

  it('keeps the cases rows rely on', () => {
    assert.equal(oneLine('This is **tiny-calc**,\n  a  lib'), 'This is tiny-calc, a lib');
    assert.equal(oneLine('x'.repeat(200)).length, ONE_LINE_MAX);
    assert.equal(oneLine('x'.repeat(200)).at(-1), '…');
    assert.equal(oneLine('  \n\t '), '');
    assert.equal(oneLine('**a\nb**'), '**a b**');
    assert.equal(oneLine('__a__ and **b __c__ d**'), 'a and b __c__ d');
  });

  it('reads only the start of a huge text, and stays linear on hostile marker patterns', () => {
    const huge = `${'word '.repeat(100)}${'x'.repeat(50 * 1024 * 1024)}`;
    assert.equal(oneLine(huge, 20), reference(huge.slice(0, 200), 20));
    // Every opener's closing search ends at the next marker: patterns that would rescan stay one pass.
    for (const unit of ['**\n', '__ ', '** \u2028', '*_', '**x', '\n__']) {
      const text = unit.repeat(400_000);
      assert.equal(oneLine(text, 10_000_000), reference(text, 10_000_000));
    }
    const openerThenBlob = `**${' '.repeat(2_000_000)}${'y'.repeat(2_000_000)}`;
    assert.equal(oneLine(openerThenBlob, 50), reference(openerThenBlob, 50));
  });
});
