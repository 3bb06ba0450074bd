/**
 * Issue 33 item 1, the engine's side: a summarizer over a host's chat model
 * (VS Code's Language Model API through src/vscode/platform/languageModels.ts)
 * streams the answer, honours the AbortSignal at once, bounds the answer and
 * the input by the model's own count, invents no usage, and turns the host's
 * failures into messages that name the model and say what to do.
 */
import * as assert from 'node:assert/strict';
import { ChatModelError, createChatModelSummarizer, type ChatModelPort } from '../../../src/engine/summarize/providers/chatModel';
import { buildSummaryRequest } from '../../../src/engine/summarize/prompts';
import { SummarizationError } from '../../../src/engine/summarize/summarizer';
import type { AgentMessage } from '../../../src/engine/session/types';

const request = buildSummaryRequest({
  kind: 'history',
  messages: [{ role: 'user', content: 'Add a mul function.' } as AgentMessage],
  maxOutputTokens: 8192,
});

function port(
  parts: (signal: AbortSignal) => AsyncIterable<string>,
  extra: Partial<ChatModelPort> = {},
): ChatModelPort & { sent: string[] } {
  const sent: string[] = [];
  return {
    host: 'vscode',
    hostLabel: 'VS Code language model',
    vendor: 'test-vendor',
    id: 'summary-model',
    name: 'Test Summary Model',
    maxInputTokens: 100_000,
    countTokens: async (text) => Math.ceil(text.length / 4),
    send: (prompt, signal) => {
      sent.push(`${prompt.system}\n---\n${prompt.user}`);
      return parts(signal);
    },
    sent,
    ...extra,
  };
}

async function* chunks(...texts: string[]): AsyncIterable<string> {
  for (const t of texts) yield t;
}

describe('chat-model summarizer (VS Code language models, issue 33)', () => {
  it('sends the summary prompt, joins the streamed parts, names the model and reports no usage', async () => {
    const p = port(() => chunks('## Goal\n', '- Add mul\n'));
    const s = createChatModelSummarizer(p);
    assert.equal(s.provider, 'vscode');
    assert.equal(s.model, 'test-vendor/summary-model');
    assert.equal(s.contextWindow, 100_000 + s.maxOutputTokens);
    const r = await s.summarize(request);
    assert.equal(r.text, '## Goal\n- Add mul');
    assert.equal(r.usage, undefined);
    assert.match(p.sent[0], /Add a mul function/);
    assert.ok(p.sent[0].startsWith(request.systemPrompt));
  });

  it('an abort stops the stream at once and throws AbortError; nothing is returned', async () => {
    const ac = new AbortController();
    let seenAbort = false;
    const p = port(async function* (signal) {
      yield '## Goal\n';
      ac.abort();
      seenAbort = signal.aborted;
      yield 'more';
    });
    await assert.rejects(createChatModelSummarizer(p).summarize(request, ac.signal), { name: 'AbortError' });
    assert.ok(seenAbort, 'the port saw the abort through its signal');
  });

  it('an answer over the cap, an empty answer and an input over the limit fail and say nothing was written', async () => {
    const big = createChatModelSummarizer(
      port(() => chunks('x'.repeat(600), 'y'.repeat(600))),
      { maxAnswerChars: 1000 },
    );
    await assert.rejects(big.summarize(request), /larger than 1,000 characters.*nothing was written/);
    await assert.rejects(
      createChatModelSummarizer(port(() => chunks('  ', '\n'))).summarize(request),
      /empty summary; nothing was written/,
    );
    const small = createChatModelSummarizer(port(() => chunks('never sent'), { maxInputTokens: 10 }));
    await assert.rejects(small.summarize(request), /over its 10-token input limit; nothing was written/);
  });

  it("the host's failures name the model and the way forward", async () => {
    const failing = (failure: ConstructorParameters<typeof ChatModelError>[0], message: string) =>
      createChatModelSummarizer(
        port(async function* () {
          yield* [];
          throw new ChatModelError(failure, message);
        }),
      ).summarize(request);
    await assert.rejects(failing('no-permission', 'consent was not given'), (err: unknown) => {
      assert.ok(err instanceof SummarizationError);
      assert.match(err.message, /^VS Code language model test-vendor\/summary-model \(Test Summary Model\): consent was not given; /);
      assert.match(err.message, /allow it when VS Code asks/);
      assert.match(err.message, /Nothing was written\.$/);
      return true;
    });
    await assert.rejects(failing('not-found', 'gone'), /no longer offered; run "Arbor: Choose Summarizer Model"/);
    await assert.rejects(failing('quota', 'quota exceeded'), /quota is used up/);
    await assert.rejects(failing('blocked', 'rate limited'), /blocked/);
  });

  it('the deadline stops a model that never finishes', async () => {
    const p = port(async function* (signal) {
      yield 'start';
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    });
    await assert.rejects(createChatModelSummarizer(p, { deadlineMs: 50 }).summarize(request), { name: 'DeadlineError' });
  });
});
