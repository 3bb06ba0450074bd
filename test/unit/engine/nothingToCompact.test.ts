// Issue 34 item 1: why a session cannot be compacted now comes typed from the one plan, with its figures and a way
// forward that works; the CLI names the figures and the flag; a foreign session is read-only.
import * as assert from 'node:assert/strict';
import { fixturePath } from '../../support/fixtures';
import { loadSession } from '../../../src/engine/session/loadSession';
import { planSessionCompaction } from '../../../src/engine/operations/sessionCompactionPlan';
import { estimatorByName } from '../../../src/engine/tokens/estimators';
import { keepLessCandidates, nothingToCompactReason } from '../../../src/engine/compaction/nothingToCompact';
import { runCli } from '../../../src/cli/main';
import { compactionNumbers } from '../../../src/engine/context/contextNumbers';

const tokenizer = estimatorByName('tokenizer');

async function cliOut(argv: string[]): Promise<string> {
  const out: string[] = [];
  const code = await runCli(argv, { out: (t) => out.push(t), err: () => undefined });
  assert.equal(code, 0);
  return out.join('\n');
}

describe('nothing to compact: typed reasons with their figures and a way forward', () => {
  it('within the kept budget: the figures, and a smaller keepRecentTokens with which the same plan summarizes', async () => {
    const index = await loadSession(fixturePath('pi-oracle', 'fixtures', '03-tree.jsonl'));
    const { plan, settings } = await planSessionCompaction(index, { estimator: tokenizer, compaction: { keepRecentTokens: 20_000 } });
    assert.equal(plan.kind, 'nothing');
    if (plan.kind !== 'nothing' || plan.why.kind !== 'withinKeptBudget') return assert.fail(JSON.stringify(plan));
    assert.equal(plan.why.keepRecentTokens, settings.keepRecentTokens);
    assert.ok(plan.why.spanTokens > 0 && plan.why.spanTokens < 20_000);
    const keep = plan.why.suggestedKeepRecentTokens;
    assert.ok(keep !== null && keep < plan.why.spanTokens);
    assert.match(plan.reason, /\(1,\d{3} tokens\) all fit in the kept budget \(keepRecentTokens 20,000 tokens\)/);
    const again = await planSessionCompaction(index, { estimator: tokenizer, compaction: { keepRecentTokens: keep } });
    assert.equal(again.plan.kind, 'plan', 'the suggested budget compacts');
  });

  it('the CLI (plan-compaction) names the figures and the flag with that value', async () => {
    const file = fixturePath('pi-oracle', 'fixtures', '03-tree.jsonl');
    const plan = await cliOut(['plan-compaction', file, '--keep-recent-tokens', '20000']);
    assert.match(
      plan,
      /^nothing to compact: the session's messages \([\d,]+ tokens\) all fit in the kept budget \(keepRecentTokens 20,000 tokens\)$/m,
    );
    const flag = /--keep-recent-tokens (\d+)$/m.exec(plan);
    assert.ok(flag, plan);
    assert.match(await cliOut(['plan-compaction', file, '--keep-recent-tokens', flag[1]]), /^compaction plan for leaf/);
    const json = JSON.parse(await cliOut(['plan-compaction', file, '--keep-recent-tokens', '20000', '--json'])) as Record<string, any>;
    assert.equal(json.why.kind, 'withinKeptBudget');
    assert.equal(json.why.suggestedKeepRecentTokens, Number(flag[1]));
  });

  it('already compacted at the leaf; a Claude Code or Codex session is read-only (not the kept budget)', async () => {
    const compacted = await loadSession(fixturePath('pi-oracle', 'fixtures', '04-split-turn.jsonl'));
    const a = (await planSessionCompaction(compacted, { estimator: tokenizer })).plan;
    assert.ok(a.kind === 'nothing' && a.why.kind === 'alreadyCompacted');
    for (const [name, agent] of [
      ['claude-code-session.jsonl', 'Claude Code'],
      ['codex-rollout.jsonl', 'Codex'],
    ] as const) {
      const index = await loadSession(fixturePath('agents', name));
      const { plan } = await planSessionCompaction(index, { estimator: tokenizer });
      assert.ok(plan.kind === 'nothing' && plan.why.kind === 'readOnly', name);
      assert.equal(plan.reason, `read-only: a ${agent} session, which Arbor reads but never writes`);
    }
  });

  it('a budget the cut reaches past is not said to hold everything; candidates are smaller than the budget', () => {
    const why = {
      kind: 'withinKeptBudget',
      spanTokens: 2068,
      afterCompaction: false,
      keepRecentTokens: 2000,
      suggestedKeepRecentTokens: 510,
    } as const;
    assert.doesNotMatch(nothingToCompactReason(why), /all fit/);
    assert.deepEqual(keepLessCandidates(2068, 2000), [1000, 510, 250]);
    assert.deepEqual(keepLessCandidates(1029, 2000), [510, 250, 120]);
    assert.deepEqual(keepLessCandidates(1, 2000), []);
  });
});

describe("a foreign session's compaction figures come from its own records", () => {
  it('a Codex compaction shows the size Codex recorded before it, never "0 → N tokens"', async () => {
    const index = await loadSession(fixturePath('agents', 'codex-rollout.jsonl'));
    const compactions = [...Array(index.entryCount).keys()].filter((i) => index.record(i).type === 'compaction');
    assert.ok(compactions.length > 0);
    for (const i of compactions) {
      const recorded = (index.entry(i) as { tokensBefore?: number }).tokensBefore;
      const before = compactionNumbers(index, i, tokenizer).tokensBefore;
      assert.notEqual(before, 0, 'never "0 → N"');
      assert.equal(before, recorded ? recorded : undefined, 'the figure Codex recorded (its last token_count), else none');
    }
  });
});
