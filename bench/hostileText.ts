/**
 * `node out/bench/hostileText.js`: token counting and summary parsing on
 * hostile text (issue 13 items 1 and 2), as ratios against a baseline
 * measured in the same process:
 *  - tokens: Arbor's count of 10 MB unbroken lines (base64, `=====`, minified
 *    JS, spaces) against counting 10 MB of ordinary prose; the reference
 *    tokenizer (tiktoken) called directly on 50 KB of the same text;
 *  - summaries: parseSummary on 1 MB of adversarial markdown against
 *    parsing 1 MB of an ordinary summary.
 * Best of 3 runs each (the machine is shared and noisy).
 */
import { countTokens } from '../src/engine/tokens/estimators';
import { parseSummary } from '../src/engine/summarize/parseSummary';
import { base64Blob as base64, bestTime as best, fill } from '../test/support/hostileText';
import { referenceCount } from '../test/support/referenceTokenizer';

const MB = 1024 * 1024;

const hostileLines: Record<string, (n: number) => string> = {
  'base64 blob': base64,
  '===== line': (n) => '='.repeat(n),
  'minified JS': (n) => fill('function(a,b){return a+b};var x=[1,2,3].map(function(y){return y*2});', n),
  'run of spaces': (n) => ' '.repeat(n),
  'one long word': (n) => 'a'.repeat(n),
};

function tokens(): void {
  countTokens('load the tokenizer');
  const prose = fill('The quick brown fox jumps over the lazy dog, again and again; then it rests.\n', 10 * MB);
  const baseline = best(() => countTokens(prose));
  process.stdout.write(`token counting (baseline: 10 MB of ordinary prose, ${baseline.toFixed(0)} ms)\n`);
  for (const [name, make] of Object.entries(hostileLines)) {
    const big = make(10 * MB);
    const ms = best(() => countTokens(big));
    const small = make(50 * 1024);
    const direct = best(() => referenceCount(small), 1);
    const ours = best(() => countTokens(small));
    process.stdout.write(
      `  ${name.padEnd(14)} 10 MB: ${ms.toFixed(0).padStart(6)} ms = ${(ms / baseline).toFixed(2)}x baseline` +
        `   | 50 KB: tiktoken alone ${direct.toFixed(0)} ms, Arbor ${ours.toFixed(1)} ms\n`,
    );
  }
}

const adversarialSummaries: Record<string, string> = {
  'separator + ## Goal': '---\n## Goal\n',
  'repeated headings': '## Next Steps\n- a\n',
  'unclosed <read-files>': '<read-files>\na.ts\n',
  '<read-files> no breaks': '<read-files>a ',
  'fences + headings': '```\n## Goal\n',
  'turn headings': '## Turn Context\n',
  rules: '- - -\n',
};

function summaries(): void {
  const ordinary = fill(
    '## Goal\n- Ship the parser\n\n## Progress\n### Done\n- [x] Wrote it\n### In Progress\n- [ ] Test it\n\n## Key ' +
      'Decisions\n- **Linear**: no quadratic regex\n\n## Next Steps\n1. Bench\n\n',
    MB,
  );
  const baseline = best(() => parseSummary(ordinary));
  process.stdout.write(`\nsummary parsing (baseline: 1 MB of an ordinary summary, ${baseline.toFixed(0)} ms)\n`);
  const lineCases: Record<string, string> = {
    '# a + 1 MB spaces + b': `# a${' '.repeat(MB)}b`,
    '## + 1 MB of (': `## ${'('.repeat(MB)}`,
    'decision + spaces': `## Key Decisions\n- a${' '.repeat(MB)}x`,
  };
  const cases = { ...Object.fromEntries(Object.entries(adversarialSummaries).map(([k, unit]) => [k, fill(unit, MB)])), ...lineCases };
  for (const [name, text] of Object.entries(cases)) {
    const ms = best(() => parseSummary(text));
    const half = best(() => parseSummary(text.slice(0, text.length / 8)));
    process.stdout.write(
      `  ${name.padEnd(24)} 1 MB: ${ms.toFixed(0).padStart(5)} ms = ${(ms / baseline).toFixed(2)}x baseline; 128 KB: ` +
        `${half.toFixed(0)} ms (8x input: ${(ms / Math.max(half, 0.1)).toFixed(1)}x time)\n`,
    );
  }
}

tokens();
summaries();
