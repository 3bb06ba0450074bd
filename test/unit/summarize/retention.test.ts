/**
 * Issue 9.2 / 9.6 / 19: what a compaction summary must keep, over Pi's real
 * sessions, the workspace's demo sessions and generated ones, for the offline
 * summarizer (its own summaries pass its own retention check) and for the
 * LLM prompts through the real OpenAI and Anthropic SDKs (the fake model
 * keeps only what the request asks it to keep).
 */
import * as fs from 'node:fs';
import * as assert from 'node:assert/strict';
import { proposeCompaction } from '../../../src/engine/operations/compact';
import { messagesAt } from '../../../src/engine/context/messageSpan';
import { formatPinnedBlock } from '../../../src/engine/compaction/pins';
import { createOfflineSummarizer } from '../../../src/engine/summarize/providers/offline';
import { buildSummaryRequest } from '../../../src/engine/summarize/prompts';
import { DEFAULT_PI_SETTINGS } from '../../../src/engine/settings/piSettings';
import type { Summarizer, SummaryRequest } from '../../../src/engine/summarize/summarizer';
import { fixturePath, oracleCases } from '../../support/fixtures';
import { assertDrops, assertKeeps, mustDrop } from '../../support/retention';
import { startFakeProvider, type FakeProviderServer } from '../../support/fakeProvider';
import { keptAnswer } from '../../support/fakeProvider/server';
import { fakeSummarizer, type Api } from './helpers';

const SHOP = fixturePath('retention', 'shop-session.jsonl');
const WORKSPACE_SESSIONS = fixturePath('workspace', '.pi', 'sessions');

/** Every session the check runs on: Pi's, the demo workspace's, the generated ones. */
export function retentionCases(): { name: string; file: string }[] {
  return [
    ...oracleCases().map((c) => ({ name: c.name, file: c.sessionFile })),
    ...fs
      .readdirSync(WORKSPACE_SESSIONS)
      .filter((f) => f.endsWith('.jsonl'))
      .sort()
      .map((f) => ({ name: `workspace ${f.slice(0, 24)}`, file: `${WORKSPACE_SESSIONS}/${f}` })),
    ...['shop', 'retry', 'focus'].map((n) => ({ name: `${n} (generated)`, file: fixturePath('retention', `${n}-session.jsonl`) })),
  ];
}

async function propose(file: string, summarizer: Summarizer, keepRecentTokens: number) {
  return proposeCompaction({ file, summarizer, estimator: 'chars', piSettings: DEFAULT_PI_SETTINGS, compaction: { keepRecentTokens } });
}

/** Records the raw answers of a summarizer (before Arbor adds file lists or re-appends pins). */
function recording(inner: Summarizer): Summarizer & { answers: string[]; requests: SummaryRequest[] } {
  const answers: string[] = [];
  const requests: SummaryRequest[] = [];
  return {
    provider: inner.provider,
    model: inner.model,
    contextWindow: inner.contextWindow,
    maxOutputTokens: inner.maxOutputTokens,
    readsExtraction: inner.readsExtraction,
    answers,
    requests,
    async summarize(request, signal) {
      requests.push(request);
      const r = await inner.summarize(request, signal);
      answers.push(r.text);
      return r;
    },
  };
}

describe('retention: what a compaction summary keeps (offline summarizer)', () => {
  const offline = createOfflineSummarizer();
  for (const c of retentionCases()) {
    for (const keep of [60, 1000, 4000]) {
      it(`${c.name}, keepRecentTokens ${keep}: passes its own retention check`, async () => {
        const p = await propose(c.file, offline, keep);
        if (p.kind !== 'proposal') return assert.equal(p.kind, 'nothing');
        const pr = p.plan.projection;
        const messages = [...messagesAt(pr, p.plan.summarizePositions), ...messagesAt(pr, p.plan.turnPrefixPositions)];
        for (const f of p.plan.modifiedFiles) assert.ok(p.summary.includes(f));
        assert.deepEqual(p.retention.missing, [], `${c.name} @${keep}: missing facts\n${p.summary}`);
        assert.equal(p.retention.kept.length, p.facts.facts.length);
        assertDrops(p.summary, mustDrop(messages, p.plan.previousSummary ? [p.plan.previousSummary] : []), `${c.name} @${keep}`);
        assert.equal(p.usage, undefined, 'no usage for an offline summary');
      });
    }
  }

  it('the generated session has every kind of thing to keep and to drop', async () => {
    const p = await propose(SHOP, offline, 60);
    assert.equal(p.kind, 'proposal');
    if (p.kind !== 'proposal') return;
    const of = (kind: string) => p.facts.facts.filter((f) => f.kind === kind).map((f) => f.text);
    assert.deepEqual(of('file').sort(), ['docs/checkout.md', 'src/cart.ts', 'src/checkout.ts']);
    assert.ok(
      of('error').some((e) => e.includes('UNRESOLVED-ERR') || e.startsWith('FAIL')),
      of('error').join('\n'),
    );
    assert.ok(of('constraint').some((c) => c.includes('never add new npm dependencies')));
    assert.deepEqual(of('pin'), ['Prefer small pure functions. Always run `npm test` after an edit.']);
    const drop = mustDrop(messagesAt(p.plan.projection, p.plan.summarizePositions));
    assert.ok(drop.resolvedErrors.some((e) => e.includes('RESOLVED-ERR-cart-edit')));
    assert.ok(drop.incidentalNames.includes('Quagmirefield'));
    // The pinned message is carried verbatim.
    assert.ok(
      p.summary.includes(
        '### Pinned\n<pinned id="r000000e" kind="user" label="📌 rules">\nPrefer small pure functions. Always run `npm test` after an edit.\n</pinned>',
      ),
      p.summary,
    );
    // A choice with its reason is a decision; narration is not.
    assert.ok(
      p.summary.includes(
        '**I decided to use a plain object for the checkout state instead of a class**: the cart module already passes plain objects around',
      ),
      p.summary,
    );
    assert.ok(!p.summary.includes('Let me look around'));
    assert.ok(!p.summary.includes('quuxRegistryHelper'), 'a name mentioned in passing is not kept');
  });
});

for (const api of ['openai', 'anthropic'] as Api[]) {
  describe(`retention: the LLM prompts through the ${api} SDK (fake model keeps what it is asked to keep)`, () => {
    let server: FakeProviderServer;
    beforeEach(async () => {
      server = await startFakeProvider();
      server.setFallback({ type: 'echoKept' });
    });
    afterEach(async () => server.stop());

    for (const c of retentionCases()) {
      it(`${c.name}: pins, changed files, constraints and the last request reach the model's answer`, async () => {
        const s = recording(fakeSummarizer(api, server, { stream: true }));
        const p = await propose(c.file, s, 60);
        if (p.kind !== 'proposal') return assert.equal(p.kind, 'nothing');
        // The model's own answers (history + turn prefix): what the prompt asked for, before Arbor adds anything.
        const answer = s.answers.join('\n');
        const checkpointAnswer = s.requests[0].kind === 'turnPrefix' ? '' : s.answers[0];
        for (const f of p.plan.modifiedFiles)
          assert.ok(checkpointAnswer.includes(f) || !s.requests[0].files, `changed file ${f} in the model's answer\n${answer}`);
        assertKeeps(answer + '\n' + p.summary, p.facts, `${c.name} (${api})`, {
          cwd: p.index.header.cwd,
          kinds: ['constraint', 'request', 'file', 'pin'],
        });
        const pinned = formatPinnedBlock(p.plan.pinned);
        if (pinned) assert.ok(checkpointAnswer.includes(pinned), `the pinned block reached the model's answer\n${answer}`);
        assert.ok(p.summary.includes(pinned));
        assert.ok(p.usage && p.usage.input > 0, 'a model call records usage');
      });
    }

    it('Arbor re-appends the pinned block when the model drops it', async () => {
      server.script({ type: 'text', text: '## Goal\n- Something\n\n## Critical Context\n- (none)' });
      const p = await propose(SHOP, fakeSummarizer(api, server, { stream: false }), 60);
      assert.equal(p.kind, 'proposal');
      if (p.kind !== 'proposal') return;
      const pinned = formatPinnedBlock(p.plan.pinned);
      assert.ok(pinned.includes('Prefer small pure functions.'));
      assert.ok(p.summary.includes(`## Critical Context\n- (none)\n\n${pinned}`), p.summary);
    });
  });
}

describe('retention: the fake model only keeps what the request carries', () => {
  it('a request without the pinned or files blocks gives an answer without them', () => {
    const messages = [{ role: 'user' as const, content: 'Keep it short.' }];
    const withBlocks = buildSummaryRequest({
      kind: 'history',
      messages,
      maxOutputTokens: 100,
      pinned: '### Pinned\n<pinned id="a">\nX-PIN\n</pinned>',
      files: { readFiles: [], modifiedFiles: ['m.ts'] },
    });
    const without = buildSummaryRequest({ kind: 'history', messages, maxOutputTokens: 100 });
    const body = (r: SummaryRequest) => ({
      messages: [
        { role: 'system', content: r.systemPrompt },
        { role: 'user', content: r.prompt },
      ],
    });
    assert.ok(keptAnswer('openai', body(withBlocks)).includes('X-PIN'));
    assert.ok(keptAnswer('openai', body(withBlocks)).includes('m.ts'));
    assert.ok(!keptAnswer('openai', body(without)).includes('X-PIN'));
    assert.ok(!keptAnswer('openai', body(without)).includes('m.ts'));
  });
});
