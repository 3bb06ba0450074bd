import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseSummary } from '../../../src/engine/summarize/parseSummary';
import { bestTime, fill, scalesLinearly } from '../../support/hostileText';

/**
 * Issue 13 item 2: the summary parser is linear on hostile input. Sizes are
 * asserted as scaling (8x the input within 30x the time, with a floor far
 * below what a quadratic takes); absolute times are in bench/hostileText.ts.
 */

const KB = 1024;

const time = (f: () => void) => bestTime(f, 2);

/** Adversarial units: repeated headings, separators, unclosed blocks and fences, long runs. */
const units = [
  '---\n## Goal\n',
  '## Next Steps\n- a\n',
  '<read-files>\na.ts\n',
  '<read-files>a ',
  '<modified-files>x</read-files>\n',
  '```\n## Goal\n',
  '## Turn Context\n',
  '- - -\n',
  '**Goal**\n',
  'Key decisions: x\n',
  '## Key Decisions\n- **a**: b\n',
  '(((',
  '::::',
  '    ',
  '*a ',
];

describe('parseSummary is linear on hostile input (issue 13 item 2)', () => {
  it('1 MB mixes of repeated headings, separators and unclosed blocks: 8x the input costs under 30x the time', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...units), { minLength: 1, maxLength: 4 }), (picked) => {
        const unit = picked.join('');
        const small = fill(unit, 128 * KB);
        const big = fill(unit, 1024 * KB);
        // A quadratic parse of 1 MB of these takes minutes (240 KB of `---\n## Goal\n` took 24 s).
        scalesLinearly(() => {
          const t1 = time(() => parseSummary(small));
          const t8 = time(() => parseSummary(big));
          return t8 < 30 * Math.max(t1, 30) ? undefined : `${JSON.stringify(unit)}: 128 KB ${t1.toFixed(0)} ms, 1 MB ${t8.toFixed(0)} ms`;
        });
      }),
      { numRuns: 12, seed: 13 },
    );
  });

  it('one 1 MB line: long runs of spaces, parentheses, colons in headings, bold lines, placeholders and decisions', () => {
    const cases = [
      (n: number) => `# a${' '.repeat(n)}b`,
      (n: number) => `## ${'('.repeat(n)}`,
      (n: number) => `## a${':'.repeat(n)}x`,
      (n: number) => `**Goal**${' '.repeat(n)}x`,
      (n: number) => `## Goal\n- none${' '.repeat(n)}x`,
      (n: number) => `## Key Decisions\n- a${' '.repeat(n)}x`,
      (n: number) => `## Goal\n- a${' '.repeat(n)}b\n`,
    ];
    for (const make of cases) {
      scalesLinearly(() => {
        const t1 = time(() => parseSummary(make(128 * KB)));
        const t8 = time(() => parseSummary(make(1024 * KB)));
        return t8 < 30 * Math.max(t1, 30) ? undefined : `${JSON.stringify(make(8))}: 128 KB ${t1.toFixed(0)} ms, 1 MB ${t8.toFixed(0)} ms`;
      });
    }
  });

  it('reads the hostile inputs the way it reads small ones', () => {
    const sepGoal = parseSummary(fill('---\n## Goal\n- g\n', 256 * KB));
    assert.deepEqual(sepGoal.goal, ['g']);
    assert.equal(sepGoal.turnContext, null);
    const unclosed = parseSummary(`## Goal\n- g\n\n${Array.from({ length: 20_000 }, (_, i) => `<read-files>\nsrc/f${i}.ts`).join('\n')}`);
    assert.equal(unclosed.readFiles.length, 20_000);
    assert.deepEqual(unclosed.goal, ['g']);
    const many = parseSummary(`## Goal\n${Array.from({ length: 50_000 }, (_, i) => `- item ${i % 1000}`).join('\n')}`);
    assert.equal(many.goal.length, 1000, 'duplicates are dropped');
    const decisions = parseSummary(`## Key Decisions\n${'- **A**: b\n'.repeat(50_000)}- T — r\n`);
    assert.deepEqual(decisions.decisions, [
      { title: 'A', rationale: 'b' },
      { title: 'T', rationale: 'r' },
    ]);
    const dash = parseSummary(`## Key Decisions\n- a${' '.repeat(1000)}- x`);
    assert.deepEqual(dash.decisions, [{ title: 'a', rationale: 'x' }]);
    const heading = parseSummary(`## Next Steps (later) ${'#'.repeat(3)}   \n1. go`);
    assert.deepEqual(heading.nextSteps, ['go']);
  });

  it('fast-check: 1 MB of adversarial mixes parses in at most 3x the time of its eight 128 KB slices (+ slack)', function () {
    let worst = { unit: '', ms: 0 };
    const median = (f: () => void) => [0, 1, 2].map(() => bestTime(f, 1)).sort((a, b) => a - b)[1];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...units), { minLength: 1, maxLength: 4 }), (picked) => {
        const unit = picked.join('');
        const big = fill(unit, 1024 * KB);
        const slices = Array.from({ length: 8 }, (_, i) => big.slice(i * 128 * KB, (i + 1) * 128 * KB));
        // The linear baseline allocates as much as the 1 MB parse (its results are kept), so the garbage
        // collector costs both the same; a quadratic parse of 1 MB costs 8x its slices.
        scalesLinearly(() => {
          const t8x1 = median(() => slices.map((s) => parseSummary(s)));
          const t8 = median(() => parseSummary(big));
          if (t8 > worst.ms) worst = { unit, ms: t8 };
          return t8 <= 3 * t8x1 + 100 ? undefined : `${JSON.stringify(unit)}: 8 x 128 KB ${t8x1.toFixed(0)} ms, 1 MB ${t8.toFixed(0)} ms`;
        });
      }),
      { numRuns: 16, seed: 1316 },
    );
    console.log(`      slowest: ${JSON.stringify(worst.unit)}, 1 MB in ${worst.ms.toFixed(0)} ms`);
  });
});
