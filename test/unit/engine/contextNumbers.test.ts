// One truth for numbers (issue 8 item 8) at the engine: the review panel's "after" of a proposed compaction is
// the "after" the tree and panel show once it is written; "before" is what the entry records.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fixturePath } from '../../support/fixtures';
import { applyCompaction, proposeCompaction } from '../../../src/engine/operations/compact';
import { createOfflineSummarizer } from '../../../src/engine/summarize/providers/offline';
import { loadSession } from '../../../src/engine/session/loadSession';
import { compactionNumbers, contextTokensAt, percentOfWindow, proposedTokensAfter } from '../../../src/engine/context/contextNumbers';
import { estimateProjectedContextTokens } from '../../../src/engine/context/contextTokens';
import { buildContext } from '../../../src/engine/context/buildContext';
import { estimatorByName } from '../../../src/engine/tokens/estimators';

describe('context numbers (one home)', () => {
  for (const fixture of ['01-plain', '02-compaction', '03-tree', '05-misc']) {
    for (const name of ['chars', 'tokenizer'] as const) {
      it(`${fixture}, ${name}: a proposal's after equals the written compaction's after; context tokens at the new leaf equal it too`, async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-numbers-'));
        const file = path.join(dir, `${fixture}.jsonl`);
        fs.copyFileSync(fixturePath('pi-oracle', 'fixtures', `${fixture}.jsonl`), file);
        const estimator = estimatorByName(name);
        const proposal = await proposeCompaction({
          file,
          summarizer: createOfflineSummarizer(),
          estimator: name,
          compaction: { keepRecentTokens: 1000 },
        });
        assert.equal(proposal.kind, 'proposal');
        if (proposal.kind !== 'proposal') return;
        const proposed = proposedTokensAfter(
          {
            projection: proposal.plan.projection,
            summary: proposal.summary,
            tokensBefore: proposal.tokensBefore,
            firstKeptEntryId: proposal.firstKeptEntryId,
          },
          estimator,
        );
        const entry = await applyCompaction(proposal);
        const index = await loadSession(file);
        const i = index.indexOf(entry.id);
        const numbers = compactionNumbers(index, i, estimator);
        assert.equal(numbers.tokensBefore, entry.tokensBefore);
        assert.equal(numbers.tokensAfter, proposed, 'review panel vs tree/panel after writing');
        assert.equal(contextTokensAt(index, i, estimator).tokens, numbers.tokensAfter, 'status bar at the new leaf');
        assert.equal(
          contextTokensAt(index, index.leafIndex, estimator).tokens,
          estimateProjectedContextTokens(buildContext(index).projection, estimator).tokens,
        );
      });
    }
  }

  it('rejects a non-compaction entry, and percent is whole and safe with a zero window', async () => {
    const index = await loadSession(fixturePath('pi-oracle', 'fixtures', '01-plain.jsonl'));
    assert.throws(() => compactionNumbers(index, 1, estimatorByName('chars')), /not a compaction/);
    assert.equal(percentOfWindow(87103, 1047576), 8);
    assert.equal(percentOfWindow(5, 0), 0);
  });
});

describe('context tokens: where the last usage stands on the path', () => {
  it('a usage recorded after the latest context edit is current, even when a later line reuses its entry id for that edit', async () => {
    // The file's leaf is the context edit (the later line with the id, which wins); the older line with the same id, an
    // answer whose parent is that edit, is a leaf of its own: its path is root, edit, answer. Its usage came after the edit.
    const index = await loadSession(fixturePath('sessions', 'duplicate-id-usage.jsonl'));
    const answer = 1;
    assert.deepEqual(
      index.pathTo(answer).map((i) => index.record(i).type),
      ['message', 'context_edit', 'message'],
    );
    const t = contextTokensAt(index, answer, estimatorByName('chars'));
    assert.equal(t.usageTokens, 50010);
    assert.equal(t.tokens, 50010);
  });
});
