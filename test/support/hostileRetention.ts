import type { Fact } from '../../src/engine/summarize/retention';

/**
 * Hostile inputs for the retention check (also used by the bench): one
 * unbroken string (no space, no line break) and many facts that share long
 * prefixes with it, so a naive matcher would rescan.
 */

/** `size` characters without a break: runs of one letter with rare other letters. */
export function hostileSummary(size: number): string {
  const chunk = `${'a'.repeat(997)}b/c`;
  return chunk.repeat(Math.ceil(size / chunk.length)).slice(0, size);
}

/** `n` facts: long runs of `a` (present only as a non-word-bounded substring), paths, texts that are not there. */
export function manyFacts(n: number): Fact[] {
  const out: Fact[] = [];
  for (let i = 0; i < n; i++) {
    const k = i % 4;
    const text =
      k === 0
        ? `${'a'.repeat(20 + (i % 40))}${i}`
        : k === 1
          ? `a${'a'.repeat(i % 50)}b/c`
          : k === 2
            ? `src/file${i}.ts`
            : `never do thing ${i}`;
    out.push({ kind: k === 2 ? 'file' : k === 3 ? 'constraint' : 'identifier', text, entryId: `e${i}` });
  }
  return out;
}
