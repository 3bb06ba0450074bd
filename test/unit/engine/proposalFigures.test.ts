// Issue 34 item 4: one figure per quantity. On every fixture session, the figures a compaction proposal shows (tokens
// before and after, entries replaced) are the written entry's (the summary panel's) and the tree row's.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fixturePath, repoRoot } from '../../support/fixtures';
import { applyCompaction, proposeCompaction } from '../../../src/engine/operations/compact';
import { planSessionCompaction } from '../../../src/engine/operations/sessionCompactionPlan';
import { createOfflineSummarizer } from '../../../src/engine/summarize/providers/offline';
import { loadSession } from '../../../src/engine/session/loadSession';
import { compactionNumbers } from '../../../src/engine/context/contextNumbers';
import { compactedEntries } from '../../../src/engine/compaction/compactedSpan';
import { contextBoundary } from '../../../src/engine/tree/contextBoundary';
import { SessionLayout } from '../../../src/engine/tree/layout';
import { estimatorByName } from '../../../src/engine/tokens/estimators';

/** Every Pi session the tests hold as a fixture file (the sample, Pi's oracle sessions, the sample workspace's). */
function fixtureSessions(): string[] {
  const dirs = [
    fixturePath('pi-oracle', 'fixtures'),
    fixturePath('pi-oracle', 'fixtures-pi16'),
    fixturePath('workspace', '.pi', 'sessions'),
    path.join(repoRoot, 'samples'),
  ];
  return dirs.flatMap((d) =>
    fs
      .readdirSync(d)
      .filter((f) => f.endsWith('.jsonl'))
      .sort()
      .map((f) => path.join(d, f)),
  );
}

describe('one figure per quantity: a proposal, the entry written from it and its tree row agree (every fixture session)', () => {
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-figures-'))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const source of fixtureSessions()) {
    for (const name of ['chars', 'tokenizer'] as const) {
      it(`${path.basename(source)}, ${name}`, async () => {
        const file = path.join(dir, `${name}-${path.basename(source)}`);
        fs.copyFileSync(source, file);
        const estimator = estimatorByName(name);
        // Where the session's settings leave nothing to summarize, the budget the plan suggests (what Compact offers).
        const { plan } = await planSessionCompaction(await loadSession(file), { estimator });
        if (plan.kind === 'nothing' && plan.why.kind === 'alreadyCompacted') return; // nothing to propose: nothing to compare
        const keep =
          plan.kind === 'nothing' && plan.why.kind === 'withinKeptBudget' ? (plan.why.suggestedKeepRecentTokens ?? undefined) : undefined;
        assert.ok(plan.kind === 'plan' || keep !== undefined, `${plan.kind === 'nothing' ? plan.reason : ''}: no way forward`);
        const proposal = await proposeCompaction({
          file,
          summarizer: createOfflineSummarizer(),
          estimator: name,
          compaction: keep === undefined ? undefined : { keepRecentTokens: keep },
        });
        assert.equal(proposal.kind, 'proposal', proposal.kind !== 'proposal' ? proposal.reason : '');
        if (proposal.kind !== 'proposal') return;
        const replaced = proposal.plan.summarizePositions.length + proposal.plan.turnPrefixPositions.length;
        const entry = await applyCompaction(proposal);

        const index = await loadSession(file);
        const i = index.indexOf(entry.id);
        const written = compactionNumbers(index, i, estimator);
        assert.equal(entry.tokensBefore, proposal.tokensBefore, 'tokens before: proposal vs written entry');
        assert.equal(written.tokensBefore, proposal.tokensBefore, 'tokens before: proposal vs tree row and panel');
        assert.equal(written.tokensAfter, proposal.tokensAfter, 'tokens after: proposal vs tree row and panel (system prompt in both)');
        assert.equal(compactedEntries(index, i).length, replaced, 'entries replaced: proposal vs the written entry in the panel');
        assert.equal(contextBoundary(new SessionLayout(index))?.replacedCount, replaced, 'entries replaced: proposal vs tree row');
      });
    }
  }
});
