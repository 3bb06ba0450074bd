/**
 * One branch-summary budget (issue 22): `arbor plan-branch` shows the budget `navigate --summarize` uses with
 * the same summarizer. Fails if either side computes its own again.
 */
import * as assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import { oracleCases } from '../../support/fixtures';
import { json } from '../../support/cliInProcess';
import { proposeNavigation } from '../../../src/engine/operations/navigate';
import { loadSession } from '../../../src/engine/session/loadSession';
import {
  createSummarizer,
  summarizerContextWindow,
  type CreateSummarizerOptions,
} from '../../../src/engine/summarize/providers/createSummarizer';
import { branchSummaryBudget } from '../../../src/engine/operations/branchBudget';

describe('the branch-summary budget: one rule for plan-branch and navigate', () => {
  const saved = process.env.PI_CODING_AGENT_DIR;
  before(() => (process.env.PI_CODING_AGENT_DIR = path.join(os.tmpdir(), 'arbor-budget-no-pi')));
  after(() => (saved === undefined ? delete process.env.PI_CODING_AGENT_DIR : (process.env.PI_CODING_AGENT_DIR = saved)));

  const choices: (CreateSummarizerOptions & { flags: string[] })[] = [
    { provider: 'offline', flags: [] },
    { provider: 'openai', flags: ['--provider', 'openai'] },
    { provider: 'openai', model: 'gpt-4.1', flags: ['--provider', 'openai', '--model', 'gpt-4.1'] },
    { provider: 'anthropic', model: 'claude-haiku-4-5', flags: ['--provider', 'anthropic', '--model', 'claude-haiku-4-5'] },
    { provider: 'openai', model: 'some-local-model', flags: ['--provider', 'openai', '--model', 'some-local-model'] },
  ];
  for (const c of oracleCases().slice(0, 3)) {
    for (const choice of choices) {
      it(`${c.name}, ${choice.flags.join(' ') || 'the default summarizer'}: plan-branch shows the budget navigate plans with`, async () => {
        const index = await loadSession(c.sessionFile);
        const target = index.record(0).id;
        const shown = await json(['plan-branch', c.sessionFile, '--to', target, ...choice.flags]);
        const summarizer = createSummarizer({ ...choice, apiKey: 'sk-test-not-used', env: {} });
        assert.equal(summarizer.contextWindow, summarizerContextWindow(choice));
        const proposal = await proposeNavigation({ file: c.sessionFile, index, targetId: target, summarize: false, summarizer });
        if (proposal.kind !== 'proposal') return assert.equal(index.leafId, target);
        assert.equal(shown.budget, proposal.plan.budget);
        assert.equal(shown.budget, branchSummaryBudget(summarizer.contextWindow, 16384));
      });
    }
  }

  it('the budget is the window minus the reserve, never negative; no summarizer: the default window', () => {
    assert.equal(branchSummaryBudget(200000, 16384), 183616);
    assert.equal(branchSummaryBudget(1000, 16384), 0);
    assert.equal(branchSummaryBudget(undefined, 16384), 128000 - 16384);
  });
});
