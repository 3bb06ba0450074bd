// The Sessions view's layout (src/engine/tree/layout.ts) on the Pi fixtures.
import * as assert from 'assert';
import { loadSession } from '../../../src/engine/session/loadSession';
import { entryFromObject } from '../../../src/engine/session/entryKinds';
import { SessionLayout } from '../../../src/engine/tree/layout';
import { entryPreview } from '../../../src/engine/tree/entryPreview';
import { formatTokens } from '../../../src/engine/tokens/formatTokens';
import { oneLine } from '../../../src/engine/tree/oneLine';
import { oracleCases } from '../../support/fixtures';

describe('vscode tree layout', () => {
  for (const c of oracleCases()) {
    it(`${c.name}: main line = active path; every entry on exactly one line; parents consistent`, async () => {
      const index = await loadSession(c.sessionFile);
      const layout = new SessionLayout(index);
      assert.deepStrictEqual(layout.mainLine.slice(0, index.pathTo(index.leafIndex).length), index.pathTo(index.leafIndex));
      const seen = new Uint8Array(index.entryCount);
      const visit = (line: readonly number[]) => {
        for (const i of line) {
          seen[i]++;
          for (const b of layout.branchesAt(i)) {
            assert.deepStrictEqual(layout.parentOf({ kind: 'branch', start: b }), { kind: 'entry', index: i });
            const sub = layout.lineFrom(b);
            for (const j of sub) assert.deepStrictEqual(layout.parentOf({ kind: 'entry', index: j }), { kind: 'branch', start: b });
            visit(sub);
          }
        }
      };
      for (const i of layout.mainLine) assert.strictEqual(layout.parentOf({ kind: 'entry', index: i }), null);
      visit(layout.mainLine);
      for (const r of layout.extraRoots) visit(layout.lineFrom(r));
      assert.ok(
        seen.every((n) => n === 1),
        'each entry once',
      );
      // ancestry ends at the entry and starts under the session
      const leafChain = layout.ancestry(index.leafIndex);
      assert.deepStrictEqual(leafChain, [{ kind: 'entry', index: index.leafIndex }]);
    });
  }

  it('side branches follow their most recent activity', async () => {
    const c = oracleCases().find((x) => x.name === '03-tree')!;
    const index = await loadSession(c.sessionFile);
    const layout = new SessionLayout(index);
    const bp = index.indexOf('088cfc63');
    const [branch] = layout.branchesAt(bp);
    assert.strictEqual(index.record(branch).id, 'b0d9510b');
    const line = layout.lineFrom(branch).map((i) => index.record(i).id);
    assert.deepStrictEqual(line.slice(0, 3), ['b0d9510b', 'f5413bc4', '1740576b']);
    assert.strictEqual(line[line.length - 1], '55f6a1d0');
    assert.strictEqual(index.record(layout.latestUnder(branch)).id, '55f6a1d0');
    assert.strictEqual(layout.subtreeSize(branch), 8);
    // An entry on a side branch: branch point (main line) -> branch node -> the entry.
    const deep = index.indexOf('a9dae875');
    const chain = layout.ancestry(deep);
    assert.deepStrictEqual(chain, [
      { kind: 'entry', index: index.indexOf('88f696d0') },
      { kind: 'branch', start: index.indexOf('8c5b7af4') },
      { kind: 'entry', index: deep },
    ]);
  });
});

describe('vscode tree previews', () => {
  it('one line, markers stripped, by role', async () => {
    assert.strictEqual(oneLine('This is **tiny-calc**,\n  a  lib'), 'This is tiny-calc, a lib');
    assert.strictEqual(oneLine('x'.repeat(200)).length, 140);
    assert.strictEqual(formatTokens(32768), '32.8k');
    assert.strictEqual(formatTokens(200000), '200k');
    assert.strictEqual(formatTokens(950), '950');
    const c = oracleCases().find((x) => x.name === '05-misc')!;
    const index = await loadSession(c.sessionFile);
    const kinds = new Set<string>();
    for (let i = 0; i < index.entryCount; i++) kinds.add(entryPreview(index.entry(i)).kind);
    for (const k of [
      'user',
      'assistant',
      'toolCalls',
      'toolResult',
      'bash',
      'custom',
      'customMessage',
      'compaction',
      'modelChange',
      'thinkingLevel',
      'sessionInfo',
      'assistantError',
    ]) {
      assert.ok(kinds.has(k), `05-misc has a ${k} entry`);
    }
    assert.deepStrictEqual(entryPreview(entryFromObject({ type: 'brand_new_kind', id: 'x', parentId: null, timestamp: '' })), {
      kind: 'unknown',
      title: 'brand_new_kind',
      text: '',
    });
  });
});
