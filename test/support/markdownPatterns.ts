/** Adversarial markdown for the panel's speed test and bench/markdown.ts (issue 13 item 2). */

/** Inline patterns: delimiter runs, unclosed and nested brackets, backticks, autolink starts. */
export const INLINE_PATTERNS = ['*a ', '_a ', '**a ', '[', '[a](', '`', '``a', '*a_b**c__d ', '![[', '<a ', '~~a', '&#x', '\\'];

/** Block patterns: one short block per line (each makes several markdown-it tokens). */
export const BLOCK_PATTERNS = [
  '- ',
  '> ',
  '| a ',
  'a\n\n',
  'a\n',
  '- a\n',
  '# a\n',
  '1. a\n',
  '> a\n',
  '| a |\n|---|\n',
  'a\n=\n',
  '- [ ] a\n',
  '* * *\n',
  '    a\n\n',
  '```\na\n```\n',
];

/** `pattern` repeated to exactly `size` characters. */
export function repeatTo(pattern: string, size: number): string {
  return pattern.repeat(Math.ceil(size / pattern.length)).slice(0, size);
}

/** `pattern` repeated in paragraphs of `paragraph` characters (blank lines between), `size` characters in all. */
export function inParagraphs(pattern: string, paragraph: number, size: number): string {
  return repeatTo(`${repeatTo(pattern, paragraph - 2)}\n\n`, size);
}

/** Median of `runs` timings of f, in ms. */
export function medianTime(f: () => void, runs = 3): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    f();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}
