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
    const b = await summarizer.summarize(buildSummaryRequest({ kind: 'history', messages: structuredClone(messages), maxOutputTokens: 8192 }));
    assert.equal(a.text, b.text);
    assert.deepEqual(a.usage, b.usage);
  });

  it('fills every section from a real session stopped mid-turn (01-plain)', async () => {
    // The session up to the assistant's first tool calls of turn 3 (results not in yet).
    const cut = indexOfUser(messages, 3) + 1;
    assert.equal(messages[cut].role, 'assistant');
    const request = buildSummaryRequest({ kind: 'history', messages: messages.slice(0, cut + 1), maxOutputTokens: 8192 });
    const { text } = await summarizer.summarize(request);
    const s = parseSummary(text);
    for (const key of ['goal', 'constraints', 'done', 'inProgress', 'blocked', 'decisions', 'nextSteps', 'criticalContext'] as const) {
      assert.ok(s[key].length > 0, `${key} is filled:\n${text}`);
    }
    assert.deepEqual(s.goal, [
      'Take a look at this project and tell me what it does.',
      'Add a multiply function `mul` to src/math.js, export it from src/index.js and add a test for it.',
      "Show me what's in data/records.csv - I need the first rows and the total row count.",
    ]);
    assert.ok(s.constraints.some((c) => c.includes('I need the first rows and the total row count')));
    // Done: completed calls whose results were not errors.
    for (const d of ['Read `README.md`', 'Edited `src/math.js`', 'Edited `src/index.js`']) assert.ok(s.done.includes(d), d);
    assert.ok(s.done.some((d) => d.startsWith('Ran `node --test test/') && d.includes('# pass 3')));
    // In progress: the two bash calls without results, and the open request.
    assert.ok(s.inProgress.includes('`bash` on `head -n 160 data/records.csv` (started, no result yet)'));
    assert.ok(s.inProgress.some((i) => i.startsWith('Working on "Show me what\'s in data/records.csv')));
    // Blocked: the failed edit (retried successfully later, and said so).
    assert.ok(s.blocked.some((b) => b.startsWith('`edit` on `test/math.test.js` failed (resolved later: a retry succeeded): Could not find the exact text')));
    assert.ok(s.decisions.some((d) => d.title === "I'll read the math module and its tests"));
    assert.match(s.nextSteps[0], /^Finish the latest request: "Show me what's in data\/records\.csv/);
    // Critical context: exact paths, names, commands and the error message.
    const cc = s.criticalContext.join('\n');
    for (const exact of ['`src/math.js`', '`src/index.js`', '`test/math.test.js`', '`README.md`', '`mul`', '`wc -l data/records.csv`', 'Could not find the exact text in test/math.test.js.']) {
      assert.ok(cc.includes(exact), exact);
    }
    assert.equal(s.turnContext, null);
  });

  it('summarizes the whole session: all requests, finished work, nothing in progress', async () => {
    const { text } = await summarizer.summarize(buildSummaryRequest({ kind: 'history', messages, maxOutputTokens: 8192 }));
    const s = parseSummary(text);
    assert.equal(s.goal.length, 6);
    assert.ok(s.done.includes('Wrote `CHANGELOG.md`'));
    assert.ok(s.done.some((d) => d.startsWith('Answered "Compare guides 3 and 4 for me."')));
    assert.deepEqual(s.inProgress, []);
    assert.match(s.nextSteps[0], /Compare guides 3 and 4 for me\./);
    assert.ok(s.criticalContext.some((c) => c.startsWith('Modified files:') && c.includes('`CHANGELOG.md`')));
  });

  it('update: carries the previous summary over and refreshes Next Steps', async () => {
    const half = indexOfUser(messages, 4);
    const first = await summarizer.summarize(buildSummaryRequest({ kind: 'history', messages: messages.slice(0, half), maxOutputTokens: 8192 }));
    const update = await summarizer.summarize(
      buildSummaryRequest({ kind: 'update', previousSummary: first.text, messages: messages.slice(half), maxOutputTokens: 8192 }),
    );
    const before = parseSummary(first.text);
    const after = parseSummary(update.text);
    // Items of the first summary are still there.
    for (const d of before.done) assert.ok(after.done.includes(d), d);
    for (const g of before.goal) assert.ok(after.goal.includes(g), g);
    for (const d of before.decisions) assert.ok(after.decisions.some((x) => x.title === d.title), d.title);
    // New work was added, Next Steps are about the latest request now.
    assert.ok(after.done.includes('Read `docs/guide-3.md`'));
    assert.match(before.nextSteps[0], /data\/records\.csv/);
    assert.match(after.nextSteps[0], /Compare guides 3 and 4/);
    assert.equal(after.nextSteps.filter((n) => n.includes('data/records.csv')).length, 0);
    // Resolved problems are not carried as blocking.
    assert.deepEqual(after.blocked, []);
    // File lists in critical context are merged, not duplicated.
    assert.equal(after.criticalContext.filter((c) => c.startsWith('Modified files:')).length, 1);
    assert.ok(after.criticalContext.find((c) => c.startsWith('Modified files:'))!.includes('`src/math.js`'));
    assert.ok(after.criticalContext.find((c) => c.startsWith('Files read:'))!.includes('`docs/guide-4.md`'));
  });

  it('update: merges with a model-written previous summary (moves in-progress work to Done once a turn finished)', async () => {
    const previous = summaryFixture('well-formed.md');
    const tail = messages.slice(indexOfUser(messages, 6));
    const { text } = await summarizer.summarize(buildSummaryRequest({ kind: 'update', previousSummary: previous, messages: tail, maxOutputTokens: 8192 }));
    const s = parseSummary(text);
    assert.ok(s.goal.includes('Add a `mul` function to the tiny-calc library and document it'));
    assert.ok(s.goal.includes('Compare guides 3 and 4 for me.'));
    assert.ok(s.constraints.includes('Keep the library dependency-free'));
    assert.ok(s.done.includes('Writing the CHANGELOG entry'), 'moved from In Progress');
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
    assert.ok(text.includes(`\n${TURN_PREFIX_HEADINGS.progress}\n- [x] Read \`src/math.js\`\n- [x] Read \`test/math.test.js\``));
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
    const s = parseSummary((await summarizer.summarize(buildSummaryRequest({ kind: 'branch', messages: span, maxOutputTokens: 8192 }))).text);
    assert.ok(s.goal.includes('Add a `mul` function to the tiny-calc library and document it'));
    assert.ok(s.goal.includes('Take a look at this project and tell me what it does.'));
  });

  it('reports blocked work from error stop reasons and failing user commands', async () => {
    const span: AgentMessage[] = [
      { role: 'user', content: 'Deploy it' },
      { role: 'bashExecution', command: 'npm run deploy', output: 'building...\nError: missing DEPLOY_TOKEN', exitCode: 1, cancelled: false, truncated: false },
      { role: 'assistant', content: [], stopReason: 'error', errorMessage: '529 overloaded_error: Overloaded' },
    ];
    const s = parseSummary(offlineSummaryText(buildSummaryRequest({ kind: 'history', messages: span, maxOutputTokens: 8192 })));
    assert.ok(s.blocked.includes('`npm run deploy` (run by the user) exited with code 1: Error: missing DEPLOY_TOKEN'));
    assert.ok(s.blocked.includes('Model request failed: 529 overloaded_error: Overloaded'));
    assert.ok(s.inProgress.some((i) => i.includes('(the last model request failed)')));
    assert.ok(s.criticalContext.includes('Error seen: Error: missing DEPLOY_TOKEN'));
    assert.ok(s.nextSteps.some((n) => n.startsWith('Resolve: `npm run deploy`')));
  });

  it('usage: chars/4 of the prompt in, chars/4 of the text out, no cost', async () => {
    const request = buildSummaryRequest({ kind: 'history', messages, maxOutputTokens: 8192 });
    const { text, usage } = await summarizer.summarize(request);
    assert.equal(usage.input, Math.ceil((request.systemPrompt.length + request.prompt.length) / 4));
    assert.equal(usage.output, Math.ceil(text.length / 4));
    assert.equal(usage.cacheRead, 0);
    assert.equal(usage.cacheWrite, 0);
    assert.equal(usage.totalTokens, usage.input + usage.output);
    assert.deepEqual(usage.cost, { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 });
    assert.equal(summarizer.provider, 'offline');
  });

  it('stays within a small output budget', async () => {
    const { text } = await summarizer.summarize(buildSummaryRequest({ kind: 'history', messages, maxOutputTokens: 500 }));
    assert.ok(text.length <= 2000, `${text.length} chars`);
    const s = parseSummary(text);
    assert.ok(s.goal.includes('Compare guides 3 and 4 for me.'), 'the latest request survives the cut');
    assert.ok(s.blocked.every((b) => b.includes('(resolved later')), 'shortening keeps the resolved mark');
  });

  it('rejects with AbortError when aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const err = await rejection(summarizer.summarize(buildSummaryRequest({ kind: 'history', messages, maxOutputTokens: 100 }), controller.signal));
    assert.equal(err.name, 'AbortError');
  });

  it('handles an empty span', async () => {
    const s = parseSummary(offlineSummaryText(buildSummaryRequest({ kind: 'history', messages: [], maxOutputTokens: 100 })));
    assert.deepEqual(s.goal, []);
    assert.deepEqual(s.nextSteps, ['Wait for the next instruction from the user']);
  });
});
