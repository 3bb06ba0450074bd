import * as assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createOfflineSummarizer } from '../../../src/engine/summarize/providers/offline';
import { buildSummaryRequest, mergeSplitTurnSummary, TURN_PREFIX_HEADINGS } from '../../../src/engine/summarize/prompts';
import { extract, extractionOf } from '../../../src/engine/summarize/offline/extract';
import { checkRetention, compactionSource, deriveFacts } from '../../../src/engine/summarize/retention';
import { arraySpan, type MessageSpan } from '../../../src/engine/context/messageSpan';
import { loadSession } from '../../../src/engine/session/loadSession';
import { proposeCompaction } from '../../../src/engine/operations/compact';
import type { AgentMessage } from '../../../src/engine/session/types';
import { jsonlFixtures } from '../../support/fixtures';
import { plainMessages } from './helpers';

setFlagsFromString('--expose-gc');

/** A span that counts how often it is walked oldest first (what an extraction does). */
function countingSpan(messages: readonly AgentMessage[]): { span: MessageSpan; walks: () => number } {
  const inner = arraySpan(messages.map((message, i) => ({ entryId: `e${i}`, message })));
  let walks = 0;
  const span: MessageSpan = {
    get length() {
      return inner.length;
    },
    [Symbol.iterator]() {
      walks++;
      return inner[Symbol.iterator]();
    },
    backward: () => inner.backward(),
    entryIdAt: (i) => inner.entryIdAt(i),
  };
  return { span, walks: () => walks };
}

describe('one reading of a compaction span for the offline summary and its facts (issue 20 item 5)', () => {
  let messages: AgentMessage[];
  before(async () => {
    messages = await plainMessages();
  });

  it('walks the span once for both, and gives the facts of a fresh reading', async () => {
    const { span, walks } = countingSpan(messages);
    const summarizer = createOfflineSummarizer();
    const { text } = await summarizer.summarize(buildSummaryRequest({ kind: 'history', messages: span, maxOutputTokens: 8192, cwd: '/w' }));
    assert.equal(walks(), 1);
    const facts = deriveFacts({ messages: span, cwd: '/w' });
    assert.equal(walks(), 1, 'the facts read the summarizer’s extraction');
    const fresh = deriveFacts({ messages: countingSpan(messages).span, cwd: '/w' });
    assert.deepEqual(facts, fresh);
    // An empty and an absent cwd read the same; another cwd is another reading.
    deriveFacts({ messages: span, cwd: '/elsewhere' });
    assert.equal(walks(), 2);
    assert.ok(text.length > 0);
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
    const x = extractionOf([
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
      run('npm run build', 'y'.repeat(500)),
    ];
    const x = extract(span);
    assert.deepEqual(
      x.turns[0].userRuns.map((r) => r.output),
      ['ok\n', ''],
    );
    const { text } = await createOfflineSummarizer().summarize(
      buildSummaryRequest({ kind: 'history', messages: span, maxOutputTokens: 8192 }),
    );
    assert.ok(text.includes('`npm test` (by the user) → ok') && text.includes('`npm run build` (by the user)'), text);
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

  it('an array is read each time (its caller may change it)', () => {
    assert.notEqual(extractionOf(messages), extractionOf(messages));
  });

  it('a span continuing a split turn: the summary takes the earlier request, the shared reading is left as it was', async () => {
    const firstAnswer = messages.findIndex((m) => m.role === 'assistant');
    const rest = messages.slice(firstAnswer); // starts with work, not with a request
    const openRequest = 'Port the parser to TypeScript and keep the old tests passing.';
    const turnContext = `${TURN_PREFIX_HEADINGS.request}\n${openRequest}\n\n${TURN_PREFIX_HEADINGS.progress}\n- (none)`;
    const previousSummary = mergeSplitTurnSummary('## Goal\n- Port the parser', turnContext);
    const request = (m: readonly AgentMessage[] | MessageSpan) =>
      buildSummaryRequest({ kind: 'update', messages: m, previousSummary, maxOutputTokens: 8192 });
    const { span } = countingSpan(rest);
    const before = structuredClone(extractionOf(span));
    assert.equal(before.turns[0].request, null);
    const shared = await createOfflineSummarizer().summarize(request(span));
    const alone = await createOfflineSummarizer().summarize(request([...rest]));
    assert.equal(shared.text, alone.text);
    assert.ok(shared.text.includes('Port the parser to TypeScript'), shared.text);
    assert.deepEqual(extractionOf(span), before);
    assert.deepEqual(deriveFacts({ messages: span }), deriveFacts({ messages: countingSpan(rest).span }));
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
        const facts = deriveFacts(compactionSource(p.plan));
        assert.deepEqual(p.facts, facts, `${file}, keep ${keepRecentTokens}`);
        assert.deepEqual(p.retention, checkRetention(p.summary, facts, { cwd: index.header.cwd }));
        compared++;
      }
    }
    assert.ok(compared > 20, `compared ${compared} compactions`);
  });
});
