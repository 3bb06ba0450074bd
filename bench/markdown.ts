/**
 * Panel markdown speed (issue 13 item 2): parse + tree for 1 MB of adversarial
 * markdown, as a ratio to 128 KB of the same pattern (linear ≈ 8x; the bounds
 * in src/webview/markdown.ts make most of them flat) and to a plain-text
 * baseline of the same size; then the same for parseSummary. Medians of 3
 * runs, with the heap used after the 1 MB parse. Run:
 * `npm run compile && node out/bench/markdown.js`.
 */
import { countNodes, parseMarkdown } from '../src/webview/markdown';
import { parseSummary } from '../src/engine/summarize/parseSummary';
import { BLOCK_PATTERNS, INLINE_PATTERNS, inParagraphs, medianTime, repeatTo } from '../test/support/markdownPatterns';

const KB = 1024;
const MB = 1024 * KB;
const out = (s: string) => process.stdout.write(`${s}\n`);

function row(name: string, make: (n: number) => string, parse: (s: string) => unknown, baseline: number): number {
  const small = make(MB / 8);
  const big = make(MB);
  const ts = medianTime(() => parse(small));
  const tb = medianTime(() => parse(big));
  const heap = process.memoryUsage().heapUsed / MB;
  out(
    `  ${name.padEnd(34)} 1 MB ${tb.toFixed(0).padStart(5)} ms   1MB/128KB ` +
      `${(tb / Math.max(ts, 0.1)).toFixed(1).padStart(5)}x   vs plain ${(tb / baseline).toFixed(1).padStart(6)}x   heap ${heap.toFixed(0)} MB`,
  );
  return tb;
}

const markdown = (s: string) => countNodes(parseMarkdown(s));
const plain = medianTime(() => markdown(repeatTo('plain words here ', MB)));
out(`panel markdown (baseline: 1 MB of plain words, ${plain.toFixed(1)} ms)`);
let worst = 0;
for (const p of [...INLINE_PATTERNS, ...BLOCK_PATTERNS])
  worst = Math.max(
    worst,
    row(JSON.stringify(p), (n) => repeatTo(p, n), markdown, plain),
  );
for (const p of INLINE_PATTERNS) {
  worst = Math.max(
    worst,
    row(`${JSON.stringify(p)} in 16 KB paragraphs`, (n) => inParagraphs(p, 16 * KB, n), markdown, plain),
  );
  worst = Math.max(
    worst,
    row(`${JSON.stringify(p)} in 1 KB paragraphs`, (n) => inParagraphs(p, KB, n), markdown, plain),
  );
}
out(`  slowest 1 MB: ${worst.toFixed(0)} ms`);

const ordinary = repeatTo(
  '## Goal\n- Ship the parser\n\n## Progress\n### Done\n- [x] Wrote it\n### In Progress\n- [ ] Test it\n\n## Key ' +
    'Decisions\n- **Linear**: no quadratic regex\n\n## Next Steps\n1. Bench\n\n',
  MB,
);
const summaryBase = medianTime(() => parseSummary(ordinary));
out(`\nparseSummary (baseline: 1 MB of an ordinary summary, ${summaryBase.toFixed(0)} ms)`);
worst = 0;
for (const unit of [
  '---\n## Goal\n',
  '## Next Steps\n- a\n',
  '<read-files>\na.ts\n',
  '```\n## Goal\n',
  '## Turn Context\n',
  '- - -\n',
  '**Goal**\n',
  'Key decisions: x\n',
  '## Key Decisions\n- **a**: b\n',
  '## Goal\n## Constraints\n',
  '*a ',
]) {
  worst = Math.max(
    worst,
    row(JSON.stringify(unit), (n) => repeatTo(unit, n), parseSummary, summaryBase),
  );
}
out(`  slowest 1 MB: ${worst.toFixed(0)} ms`);
