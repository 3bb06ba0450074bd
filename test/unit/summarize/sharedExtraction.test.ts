import * as assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createOfflineSummarizer } from '../../../src/engine/summarize/providers/offline';
import {
  buildSummaryRequest,
  draftSummaryRequest,
  mergeSplitTurnSummary,
  TURN_PREFIX_HEADINGS,
} from '../../../src/engine/summarize/prompts';
import { extract } from '../../../src/engine/summarize/offline/extract';
import { checkRetention, compactionSource, deriveFacts } from '../../../src/engine/summarize/retention';
import { readingOf, spanReadingWalk } from '../../../src/engine/summarize/spanReading';
import { serializeConversation } from '../../../src/engine/summarize/serialize';
import { runEntryWalk } from '../../../src/engine/session/entryWalkLoads';
import type { SummaryRequest } from '../../../src/engine/summarize/summarizer';
import { loadSession } from '../../../src/engine/session/loadSession';
import { proposeCompaction } from '../../../src/engine/operations/compact';
import type { AgentMessage } from '../../../src/engine/session/types';
import { jsonlFixtures } from '../../support/fixtures';
import { plainMessages } from './helpers';

setFlagsFromString('--expose-gc');

/** The items of a span in hand, with made-up entry ids. */
const itemsOf = (messages: readonly AgentMessage[]) => messages.map((message, i) => ({ entryId: `e${i}`, message }));

/** A request whose span was read by a run step: the serialized conversation and the extraction, not the messages. */
function readRequest(options: Omit<Parameters<typeof buildSummaryRequest>[0], 'cwd'> & { cwd?: string }): SummaryRequest {
  const draft = draftSummaryRequest(options);
  const reading = readingOf(itemsOf(options.messages), { cwd: options.cwd });
  return draft.complete(serializeConversation(options.messages, draft.conversation), { extraction: reading.extraction });
}

describe('one reading of a compaction span for the offline summary and its facts (issue 20 item 5, issue 22 item 3)', () => {
  let messages: AgentMessage[];
  before(async () => {
    messages = await plainMessages();
  });

  it('a request carrying the span as read (conversation + extraction) summarizes as one carrying the messages', async () => {
    const summarizer = createOfflineSummarizer();
    const fromMessages = await summarizer.summarize(buildSummaryRequest({ kind: 'history', messages, maxOutputTokens: 8192, cwd: '/w' }));
    const read = readRequest({ kind: 'history', messages, maxOutputTokens: 8192, cwd: '/w' });
    assert.equal(read.messages, undefined, 'the messages are not carried');
    assert.equal((await summarizer.summarize(read)).text, fromMessages.text);
    assert.equal(read.prompt, buildSummaryRequest({ kind: 'history', messages, maxOutputTokens: 8192, cwd: '/w' }).prompt);
    // The facts of a reading are those of the messages in hand (a reading with the answers serves the facts too).
    const reading = readingOf(itemsOf(messages), { cwd: '/w' });
    assert.deepEqual(deriveFacts({ messages: reading, cwd: '/w' }), deriveFacts({ messages: itemsOf(messages), cwd: '/w' }));
    assert.ok(fromMessages.text.length > 0);
  });

  it('an extraction keeps one object for every result whose output it does not keep, and the same reading as before', () => {
    const long = 'x'.repeat(300);
    const call = (id: string, path: string): AgentMessage =>
      ({
        role: 'assistant',
        content: [{ type: 'toolCall', id, name: 'read', arguments: { path } }],
        stopReason: 'toolUse',
      }) as unknown as AgentMessage;
    const result = (id: string, text: string, isError = false): AgentMessage =>
      ({ role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text }], isError }) as unknown as AgentMessage;
    const x = extract([
      { role: 'user', content: 'Read the files.' } as AgentMessage,
      call('c1', 'src/a.ts'),
      result('c1', long),
      call('c2', 'src/a.ts'),
      result('c2', long),
      call('c3', 'src/b.ts'),
      result('c3', long, true),
      call('c4', 'src/b.ts'),
      result('c4', 'short'),
      { role: 'user', content: 'Thanks.' } as AgentMessage,
    ]);
    const [first, second] = x.turns;
    const [a, b, c, d] = first.calls;
    assert.equal(a.result, b.result);
    assert.deepEqual(a.result, { isError: false, text: '' });
    assert.deepEqual(c.result, { isError: true, text: '' });
    assert.deepEqual(d.result, { isError: false, text: 'short' });
    assert.deepEqual(
      first.calls.map((k) => [k.name, k.tool, k.path, k.target]),
      [
        ['read', 'read', 'src/a.ts', 'src/a.ts'],
        ['read', 'read', 'src/a.ts', 'src/a.ts'],
        ['read', 'read', 'src/b.ts', 'src/b.ts'],
        ['read', 'read', 'src/b.ts', 'src/b.ts'],
      ],
    );
    assert.deepEqual([second.calls, second.userRuns, first.userRuns], [[], [], []]);
    assert.equal(x.problems.length, 1);
  });

  it('without answers: the same reading, an answered turn marked by an empty answer', () => {
    const full = extract(messages);
    const lean = extract(messages, { answers: false });
    assert.ok(full.turns.some((t) => t.answer));
    assert.deepEqual(lean, { ...full, turns: full.turns.map((t) => ({ ...t, answer: t.answer === null ? null : '' })) });
  });

  it("a user's command output is kept only when short (a longer one is never quoted)", async () => {
    const run = (command: string, output: string): AgentMessage =>
      ({ role: 'bashExecution', command, output, exitCode: 0, cancelled: false, truncated: false }) as unknown as AgentMessage;
    const span = [
      { role: 'user', content: 'Check the build.' } as AgentMessage,
      run('npm test', 'ok\n'),
      run('npm run build', 'y'.repeat(700)),
    ];
    const x = extract(span);
    assert.deepEqual(
      x.turns[0].userRuns.map((r) => r.output),
      ['ok\n', ''],
    );
    const { text } = await createOfflineSummarizer().summarize(
      buildSummaryRequest({ kind: 'history', messages: span, maxOutputTokens: 8192 }),
    );
    assert.ok(text.includes('the user ran `npm test` → ok') && text.includes('`npm run build`') && !text.includes('yyy'), text);
  });

  it("what it keeps of a failed call's output does not keep the output (a line cut from 30 outputs of 4 MB)", () => {
    const gc = runInNewContext('gc') as () => void;
    const failing = (k: number): AgentMessage[] =>
      [
        { role: 'assistant', content: [{ type: 'toolCall', id: `c${k}`, name: 'bash', arguments: { command: `make t${k}` } }] },
        {
          role: 'toolResult',
          toolCallId: `c${k}`,
          toolName: 'bash',
          // A fresh string, as JSON.parse makes a result's text.
          content: [{ type: 'text', text: JSON.parse(JSON.stringify(`error: cannot-build-target-t${k}\n${'x'.repeat(4 << 20)}`)) }],
          isError: true,
        },
      ] as unknown as AgentMessage[];
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept = [];
    for (let k = 0; k < 30; k++) kept.push(extract(failing(k)));
    gc();
    const grownMB = (process.memoryUsage().heapUsed - before) / 1048576;
    assert.equal(kept[29].problems[0].error, 'error: cannot-build-target-t29');
    assert.ok(grownMB < 10, `30 extractions hold ${grownMB.toFixed(1)} MB`);
  });

  it('a span continuing a split turn: the summary takes the earlier request, the shared reading is left as it was', async () => {
    const firstAnswer = messages.findIndex((m) => m.role === 'assistant');
    const rest = messages.slice(firstAnswer); // starts with work, not with a request
    const openRequest = 'Port the parser to TypeScript and keep the old tests passing.';
    const turnContext = `${TURN_PREFIX_HEADINGS.request}\n${openRequest}\n\n${TURN_PREFIX_HEADINGS.progress}\n- (none)`;
    const previousSummary = mergeSplitTurnSummary('## Goal\n- Port the parser', turnContext);
    const options = { kind: 'update', messages: rest, previousSummary, maxOutputTokens: 8192 } as const;
    const read = readRequest(options);
    const before = structuredClone(read.extraction!);
    assert.equal(before.turns[0].request, null);
    const shared = await createOfflineSummarizer().summarize(read);
    const alone = await createOfflineSummarizer().summarize(buildSummaryRequest(options));
    assert.equal(shared.text, alone.text);
    assert.ok(shared.text.includes('Port the parser to TypeScript'), shared.text);
    assert.deepEqual(read.extraction, before);
    assert.deepEqual(deriveFacts({ messages: readingOf(itemsOf(rest)) }), deriveFacts({ messages: itemsOf(rest) }));
  });

  it('a compaction gives the facts and retention of a fresh reading, on every session fixture', async function () {
    this.timeout(120_000);
    let compared = 0;
    for (const file of jsonlFixtures()) {
      const index = await loadSession(file).catch(() => undefined);
      if (!index) continue; // not a session (a fixture of plain message lines)
      for (const keepRecentTokens of [1, 200, 5000]) {
        const p = await proposeCompaction({
          file,
          index,
          summarizer: createOfflineSummarizer(),
          compaction: { keepRecentTokens },
          estimator: 'chars',
        });
        if (p.kind !== 'proposal') continue;
        // A fresh reading of the spans, without the answers (what the facts read).
        const fresh = (positions: number[]) =>
          runEntryWalk(index, spanReadingWalk(p.plan.projection, positions, { cwd: index.header.cwd, answers: false }));
        const spans = { history: await fresh(p.plan.summarizePositions), prefix: await fresh(p.plan.turnPrefixPositions) };
        const facts = deriveFacts(compactionSource(p.plan, spans));
        assert.deepEqual(p.facts, facts, `${file}, keep ${keepRecentTokens}`);
        assert.deepEqual(p.retention, checkRetention(p.summary, facts, { cwd: index.header.cwd }));
        compared++;
      }
    }
    assert.ok(compared > 20, `compared ${compared} compactions`);
  });
});
