import * as assert from 'node:assert/strict';
import { createOfflineSummarizer, offlineSummaryText } from '../../../src/engine/summarize/providers/offline';
import { buildSummaryRequest, mergeSplitTurnSummary, TURN_PREFIX_HEADINGS } from '../../../src/engine/summarize/prompts';
import { parseSummary } from '../../../src/engine/summarize/parseSummary';
import type { AgentMessage } from '../../../src/engine/session/types';
import { plainMessages, rejection, summaryFixture } from './helpers';

const summarizer = createOfflineSummarizer();

function indexOfUser(messages: AgentMessage[], n: number): number {
  let seen = 0;
  for (let i = 0; i < messages.length; i++) if (messages[i].role === 'user' && ++seen === n) return i;
  throw new Error(`no user message #${n}`);
}

describe('offline summarizer', () => {
  let messages: AgentMessage[];
  before(async () => {
    messages = await plainMessages();
  });

  it('is deterministic: the same input gives byte-identical text and usage', async () => {
    const a = await summarizer.summarize(buildSummaryRequest({ kind: 'history', messages, maxOutputTokens: 8192 }));
    const b = await summarizer.summarize(
      buildSummaryRequest({ kind: 'history', messages: structuredClone(messages), maxOutputTokens: 8192 }),
    );
    assert.equal(a.text, b.text);
    assert.deepEqual(a.usage, b.usage);
  });

  it('writes a checkpoint of a real session stopped mid-turn (01-plain): the open objective, outcomes in order, open work', async () => {
    // The session up to the assistant's first tool calls of turn 3 (results not in yet).
    const cut = indexOfUser(messages, 3) + 1;
    assert.equal(messages[cut].role, 'assistant');
    const request = buildSummaryRequest({ kind: 'history', messages: messages.slice(0, cut + 1), maxOutputTokens: 8192 });
    const { text } = await summarizer.summarize(request);
    const s = parseSummary(text);
    // Goal: the open objective; the finished requests are one line (they are in Done).
    assert.deepEqual(s.goal, [
      "Show me what's in data/records.csv - I need the first rows and the total row count.",
      'Finished earlier: 2 items, listed under Done',
    ]);
    // A request is not a constraint ("I need the first rows" is part of the request).
    assert.deepEqual(s.constraints, []);
    // Done: one outcome per finished request, with every fact of the answer and the runs' results; no bare reads.
    assert.equal(s.done.length, 2, text);
    const mul = s.done[1];
    assert.ok(mul.startsWith('Add a multiply function `mul`'), mul);
    for (const fact of [
      're-exported from `src/index.js`',
      'covered by a new test',
      'All 3 tests pass',
      'changed `src/math.js`, `src/index.js`, `test/math.test.js`',
      '# tests 3',
    ]) {
      assert.ok(mul.includes(fact), `${fact} in ${mul}`);
    }
    assert.ok(s.done[0].includes('`src/format.js` has `formatNumber` and `formatPercent`'), s.done[0]);
    assert.ok(!s.done.some((d) => d.startsWith('Read ') || d.endsWith(': Done.')));
    // In progress: the open request and the two bash calls without results.
    assert.ok(s.inProgress[0].startsWith("Working on: Show me what's in data/records.csv"));
    assert.ok(s.inProgress.includes('`bash` on `head -n 160 data/records.csv` (started, no result yet)'));
    // The failed edit was retried successfully: it is not blocking, nor an error that matters.
    assert.deepEqual(s.blocked, []);
    assert.ok(!text.includes('Could not find the exact text'));
    // Narration is not a decision.
    assert.deepEqual(s.decisions, []);
    assert.match(s.nextSteps[0], /^Finish the open request: Show me what's in data\/records\.csv/);
    const cc = s.criticalContext.join('\n');
    for (const exact of ['`src/math.js`', '`src/index.js`', '`test/math.test.js`', '`wc -l data/records.csv`'])
      assert.ok(cc.includes(exact), exact);
    assert.ok(!/Names mentioned|Files read|id,name,city/.test(text), 'no incidental names');
    assert.equal(s.turnContext, null);
  });

  it('summarizes the whole session: a few objectives, finished work as outcomes, nothing in progress', async () => {
    const { text } = await summarizer.summarize(buildSummaryRequest({ kind: 'history', messages, maxOutputTokens: 8192 }));
    const s = parseSummary(text);
    assert.ok(s.goal.length <= 5, `${s.goal.length} goal lines`);
    // Nothing is open: the goal says so, naming the last request.
    assert.equal(s.goal[0], 'Last request, answered: Compare guides 3 and 4 for me.');
    // A written file the span had not read is created, with its small content kept.
    assert.ok(
      s.done.some((d) => d.startsWith('Create a CHANGELOG.md') && d.includes('0.2.0') && d.includes('created `CHANGELOG.md`')),
      text,
    );
    assert.ok(
      s.done.every((d, i) => i === 0 || !d.startsWith('Take a look')),
      'in the order of the session',
    );
    // An answer with two facts keeps both.
    const csv = s.done.find((d) => d.startsWith("Show me what's in data/records.csv"))!;
    assert.ok(csv.includes('240 data rows') && csv.includes('a join date between 2019 and 2024'), csv);
    assert.deepEqual(s.inProgress, []);
    assert.match(s.nextSteps[0], /^Wait for the user's next instruction .*Compare guides 3 and 4 for me\./);
    assert.ok(s.criticalContext.some((c) => c.startsWith('Created files:') && c.includes('`CHANGELOG.md`')));
    assert.ok(s.criticalContext.some((c) => c.startsWith('Modified files:') && !c.includes('`CHANGELOG.md`')));
  });

  it('update: carries the previous summary over and refreshes Next Steps', async () => {
    const half = indexOfUser(messages, 4);
    const first = await summarizer.summarize(
      buildSummaryRequest({ kind: 'history', messages: messages.slice(0, half), maxOutputTokens: 8192 }),
    );
    const update = await summarizer.summarize(
      buildSummaryRequest({ kind: 'update', previousSummary: first.text, messages: messages.slice(half), maxOutputTokens: 8192 }),
    );
    const before = parseSummary(first.text);
    const after = parseSummary(update.text);
    for (const d of before.done) assert.ok(after.done.includes(d), d);
    // The goal is the new span's, not the earlier checkpoint's answered request.
    assert.match(after.goal[0], /Compare guides 3 and 4/);
    assert.ok(!after.goal.some((g) => g.includes('data/records.csv')), update.text);
    assert.ok(after.done.some((d) => d.startsWith('Compare guides 3 and 4')));
    // No line about a moment of the earlier checkpoint is carried.
    assert.ok(!/continues in the|Working on:/.test(after.done.join('\n')), update.text);
    assert.match(before.nextSteps[0], /data\/records\.csv/);
    assert.match(after.nextSteps[0], /Compare guides 3 and 4/);
    assert.equal(after.nextSteps.filter((n) => n.includes('data/records.csv')).length, 0);
    assert.deepEqual(after.blocked, []);
    assert.equal(after.criticalContext.filter((c) => c.startsWith('Modified files:')).length, 1);
    assert.ok(after.criticalContext.find((c) => c.startsWith('Modified files:'))!.includes('`src/math.js`'));
  });

  it('update: merges with a model-written previous summary (its objective holds; its open item is not claimed done)', async () => {
    const previous = summaryFixture('well-formed.md');
    const tail = messages.slice(indexOfUser(messages, 6));
    const { text } = await summarizer.summarize(
      buildSummaryRequest({ kind: 'update', previousSummary: previous, messages: tail, maxOutputTokens: 8192 }),
    );
    const s = parseSummary(text);
    // The earlier checkpoint's objective (one, not a list of requests) still holds; the span's last request was answered.
    assert.ok(
      s.goal.includes('Earlier objective (from the previous summary): Add a `mul` function to the tiny-calc library and document it'),
      text,
    );
    assert.ok(
      s.done.some((d) => d.startsWith('Compare guides 3 and 4 for me')),
      text,
    );
    assert.ok(s.constraints.includes('Keep the library dependency-free'));
    // Its open item is not claimed done: the span holds no outcome for it.
    assert.ok(s.done.includes('[ ] Writing the CHANGELOG entry — no outcome recorded since the previous summary'), text);
    assert.deepEqual(s.inProgress, []);
    assert.ok(s.blocked.some((b) => b.includes('E403')));
    assert.ok(s.decisions.some((d) => d.title === 'No new dependencies'));
    assert.ok(s.criticalContext.includes('Test command: `node --test test/`'));
    assert.deepEqual(s.readFiles, [], 'file lists are appended by the caller, not carried inside the text');
  });

  it('turnPrefix: the turn-context form (request, early progress, what the kept part needs)', async () => {
    const start = indexOfUser(messages, 2);
    const prefix = messages.slice(start, start + 4); // user, assistant (2 reads), 2 results
    const { text } = await summarizer.summarize(buildSummaryRequest({ kind: 'turnPrefix', messages: prefix, maxOutputTokens: 8192 }));
    const lines = text.split('\n');
    assert.equal(lines[0], TURN_PREFIX_HEADINGS.request);
    assert.equal(lines[1], 'Add a multiply function `mul` to src/math.js, export it from src/index.js and add a test for it.');
    assert.ok(text.includes(`\n${TURN_PREFIX_HEADINGS.progress}\n- [x] Read \`src/math.js\`, \`test/math.test.js\``));
    assert.ok(text.includes(`\n${TURN_PREFIX_HEADINGS.needed}\n`));
    assert.ok(!text.includes('## Goal'));
    const merged = parseSummary(mergeSplitTurnSummary('## Goal\n- Earlier', text));
    assert.equal(merged.turnContext, text);
    assert.deepEqual(merged.goal, ['Earlier']);
  });

  it('branch: the same structure without Critical Context', async () => {
    const { text } = await summarizer.summarize(buildSummaryRequest({ kind: 'branch', messages, maxOutputTokens: 8192 }));
    assert.ok(!text.includes('Critical Context'));
    const s = parseSummary(text);
    assert.ok(s.goal.length > 0 && s.done.length > 0 && s.nextSteps.length > 0);
    assert.deepEqual(s.criticalContext, []);
  });

  it('takes summaries inside the span into account (e.g. a branch summary being re-summarized)', async () => {
    const inner = summaryFixture('well-formed.md');
    const span: AgentMessage[] = [{ role: 'branchSummary', summary: inner, fromId: 'abcd1234' }, ...messages.slice(0, 3)];
    const s = parseSummary(
      (await summarizer.summarize(buildSummaryRequest({ kind: 'branch', messages: span, maxOutputTokens: 8192 }))).text,
    );
    // A branch summary inside the branch is work left behind earlier: its own part, not merged into this branch's Done.
    const earlier = s.unknownSections.find((u) => u.heading === 'Earlier Branches');
    assert.ok(earlier?.body.includes('Add a `mul` function to the tiny-calc library and document it'), JSON.stringify(s));
    assert.ok(!s.done.some((d) => d.includes('Implemented `mul(a, b)`')), JSON.stringify(s.done));
    assert.ok(s.goal[0].startsWith('Take a look at this project'), JSON.stringify(s.goal));
  });

  it('reports blocked work from error stop reasons and failing user commands', async () => {
    const span: AgentMessage[] = [
      { role: 'user', content: 'Deploy it' },
      {
        role: 'bashExecution',
        command: 'npm run deploy',
        output: 'building...\nError: missing DEPLOY_TOKEN',
        exitCode: 1,
        cancelled: false,
        truncated: false,
      },
      { role: 'assistant', content: [], stopReason: 'error', errorMessage: '529 overloaded_error: Overloaded' },
    ];
    const s = parseSummary(offlineSummaryText(buildSummaryRequest({ kind: 'history', messages: span, maxOutputTokens: 8192 })));
    assert.ok(s.blocked.includes('`npm run deploy` (run by the user) exited with code 1: Error: missing DEPLOY_TOKEN'));
    assert.ok(s.blocked.includes('The model request failed: 529 overloaded_error: Overloaded'));
    assert.ok(
      s.inProgress.some((i) => i.includes('the model request failed (529 overloaded_error: Overloaded)')),
      JSON.stringify(s),
    );
    assert.ok(s.criticalContext.includes('Unresolved error: Error: missing DEPLOY_TOKEN'));
    assert.ok(s.nextSteps.some((n) => n.startsWith('Fix: `npm run deploy`')));
    assert.ok(s.nextSteps.some((n) => n.startsWith('Retry the request whose model call failed: Deploy it')));
  });

  it("records no usage: no model was called (Pi 1.6 adds a summary entry's usage to its costs only when present)", async () => {
    const result = await summarizer.summarize(buildSummaryRequest({ kind: 'history', messages, maxOutputTokens: 8192 }));
    assert.equal(result.usage, undefined);
    assert.ok(!('usage' in result));
    assert.equal(summarizer.provider, 'offline');
  });

  it('stays within a small output budget', async () => {
    const { text } = await summarizer.summarize(buildSummaryRequest({ kind: 'history', messages, maxOutputTokens: 500 }));
    assert.ok(text.length <= 2000, `${text.length} chars`);
    const s = parseSummary(text);
    assert.ok(s.goal[0].includes('Compare guides 3 and 4 for me.'), 'the latest request survives the cut');
    assert.deepEqual(s.blocked, [], 'a resolved error stays out however short the summary');
  });

  it('rejects with AbortError when aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const err = await rejection(
      summarizer.summarize(buildSummaryRequest({ kind: 'history', messages, maxOutputTokens: 100 }), controller.signal),
    );
    assert.equal(err.name, 'AbortError');
  });

  it('handles an empty span', async () => {
    const s = parseSummary(offlineSummaryText(buildSummaryRequest({ kind: 'history', messages: [], maxOutputTokens: 100 })));
    assert.deepEqual(s.goal, []);
    assert.deepEqual(s.done, []);
    assert.deepEqual(s.nextSteps, ["Wait for the user's next instruction"]);
  });
});
