/**
 * The README's main job (scripts/demo.sh) compacts the bundled sample with
 * keepRecentTokens 1000: it must be a real compaction (issue 9.5), of a valid
 * Pi v3 session.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { loadSession } from '../../../src/engine/session/loadSession';
import { proposeCompaction } from '../../../src/engine/operations/compact';
import { messagesAt } from '../../../src/engine/context/messageSpan';
import { createOfflineSummarizer } from '../../../src/engine/summarize/providers/offline';
import { parseSummary } from '../../../src/engine/summarize/parseSummary';
import { DEFAULT_PI_SETTINGS } from '../../../src/engine/settings/piSettings';
import { repoRoot } from '../../support/fixtures';
import { assertDrops, assertKeeps, mustDrop } from '../../support/retention';

const SAMPLE = path.join(repoRoot, 'samples', 'sample-session.jsonl');

describe('the sample session of the README demo', () => {
  it('is a valid Pi v3 session without diagnostics', async () => {
    const index = await loadSession(SAMPLE);
    assert.equal(index.version, 3);
    assert.deepEqual(index.diagnostics, []);
  });

  it('compacts with keepRecentTokens 1000 into a non-empty checkpoint of a real span, with the pinned rules', async () => {
    const p = await proposeCompaction({
      file: SAMPLE,
      summarizer: createOfflineSummarizer(),
      piSettings: DEFAULT_PI_SETTINGS,
      compaction: { keepRecentTokens: 1000 },
    });
    assert.equal(p.kind, 'proposal');
    if (p.kind !== 'proposal') return;
    assert.ok(p.plan.summarizePositions.length >= 20, `${p.plan.summarizePositions.length} entries summarized`);
    const s = parseSummary(p.summary);
    for (const key of ['goal', 'constraints', 'done', 'decisions', 'nextSteps', 'criticalContext'] as const)
      assert.ok(s[key].length > 0, `${key}:\n${p.summary}`);
    assert.ok(p.summary.includes('label="📌 rules">\nFrom now on, always run `node --test test/`'), p.summary);
    const messages = [
      ...messagesAt(p.plan.projection, p.plan.summarizePositions),
      ...messagesAt(p.plan.projection, p.plan.turnPrefixPositions),
    ];
    assertKeeps(p.summary, p.facts, 'sample', { cwd: p.index.header.cwd });
    assertDrops(p.summary, mustDrop(messages), 'sample');
    assert.equal(p.usage, undefined);
  });
});
