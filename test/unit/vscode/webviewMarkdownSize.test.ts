// The panel's markdown (markdown-it token stream → node tree) on 1 MB of adversarial input: it finishes
// (the hand-written parser took 10 s for 94 KB of `*a `, hours for 1 MB), and the tree is linear in the input.
// Speed itself is measured as a ratio in bench/markdown.ts (no timed assertions here).
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import fc from 'fast-check';
import { countNodes, inlineText, parseMarkdown } from '../../../src/webview/markdown';
import { repoRoot } from '../../support/fixtures';

const { units } = JSON.parse(fs.readFileSync(path.join(repoRoot, 'test', 'fixtures', 'markdown', 'adversarial-units.json'), 'utf8')) as {
  units: string[];
};
const MB = 1024 * 1024;

/** `pattern` repeated to `size` characters. */
export function repeatTo(pattern: string, size: number): string {
  return pattern.repeat(Math.ceil(size / pattern.length)).slice(0, size);
}

describe('webview markdown on large adversarial input', function () {
  it('parses 1 MB of each classic pathological pattern into a tree linear in the input', () => {
    for (const pattern of ['*a ', '_a ', '**a ', '[', '[a](', '`', '``a', '- ', '> ', '| a ', '*a_b**c__d ', '![[', '<a ']) {
      const src = repeatTo(pattern, MB);
      const nodes = parseMarkdown(src);
      const count = countNodes(nodes);
      assert.ok(count <= 2 * src.length + 16, `${JSON.stringify(pattern)}: ${count} nodes for ${src.length} characters`);
      // Every character of the input that is not markup is still shown: the text is never empty for non-empty input.
      assert.ok(inlineText(nodes).length > 0 || /^[-> |`\n]*$/.test(pattern), JSON.stringify(pattern));
    }
  });

  it('fast-check: 1 MB mixes of adversarial pieces give a tree linear in the input', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...units), { minLength: 1, maxLength: 24 }), (pieces) => {
        const src = repeatTo(pieces.join(''), MB);
        const count = countNodes(parseMarkdown(src));
        return count <= 2 * src.length + 16;
      }),
      { numRuns: 4, seed: 1313 },
    );
  });

  it('the node count grows linearly: 8x the input gives at most 8x (+ slack) the nodes', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...units), { minLength: 1, maxLength: 12 }), (pieces) => {
        const pattern = pieces.join('');
        const small = countNodes(parseMarkdown(repeatTo(pattern, 32 * 1024)));
        const big = countNodes(parseMarkdown(repeatTo(pattern, 256 * 1024)));
        return big <= 8 * small + 64;
      }),
      { numRuns: 6, seed: 1314 },
    );
  });
});
