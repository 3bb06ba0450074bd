import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateSession } from '../../../bench/generateSession';
import { compactSession } from '../../../src/engine/operations/compact';
import {
  buildSummaryRequest,
  conversationCharBudget,
  MAX_CONVERSATION_CHARS,
  MIN_CONVERSATION_CHARS,
  SUMMARY_SYSTEM_PROMPT,
} from '../../../src/engine/summarize/prompts';
import { messagesAt } from '../../../src/engine/context/messageSpan';
import { leftOutNote, serializeConversation } from '../../../src/engine/summarize/serialize';
import { createOfflineSummarizer } from '../../../src/engine/summarize/providers/offline';
import type { Summarizer, SummaryRequest } from '../../../src/engine/summarize/summarizer';
import type { AgentMessage } from '../../../src/engine/session/types';

/** `n` user/assistant pairs of about `size` characters each, numbered so their order shows. */
function span(n: number, size: number): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (let i = 0; i < n; i++) {
    out.push({ role: 'user', content: `request ${i} ${'u'.repeat(size)}` });
    out.push({ role: 'assistant', content: [{ type: 'text', text: `answer ${i} ${'a'.repeat(size)}` }], stopReason: 'stop' });
  }
  return out;
}

function conversationOf(prompt: string): string {
  const end = prompt.indexOf('\n</conversation>');
  assert.ok(prompt.startsWith('<conversation>\n') && end > 0);
  return prompt.slice('<conversation>\n'.length, end);
}

describe('the serialized conversation is bounded (issue 20: a 1 GB session compacts)', () => {
  it('within the bound the text is the unbounded one; past it, the newest messages that fit and a note', () => {
    const messages = span(100, 1000);
    const whole = serializeConversation(messages);
    assert.ok(serializeConversation(messages, { maxChars: whole.length }) === whole);
    assert.ok(serializeConversation(messages, { maxChars: whole.length - 1 }).startsWith(leftOutNote(1, messages.length)));
    const max = 20_000;
    assert.ok(whole.length > 5 * max);
    const text = serializeConversation(messages, { maxChars: max });
    assert.ok(text.length <= max, `${text.length} > ${max}`);
    assert.ok(text.startsWith('[The '), text.slice(0, 80));
    const omitted = Number(/^\[The (\d+) oldest/.exec(text)![1]);
    assert.ok(text.startsWith(leftOutNote(omitted, messages.length)));
    // What follows the note is exactly the serialization of the newest messages, whole.
    assert.ok(text === `${leftOutNote(omitted, messages.length)}\n\n${serializeConversation(messages.slice(omitted))}`);
    assert.ok(text.endsWith(`answer 99 ${'a'.repeat(1000)}`));
    assert.ok(!text.includes('request 0 '));
    // Deterministic.
    assert.ok(serializeConversation(messages, { maxChars: max }) === text);
  });

  it('a newest message larger than the bound alone is cut (surrogate pairs kept whole)', () => {
    const messages: AgentMessage[] = [...span(2, 10), { role: 'user', content: '😀'.repeat(50_000) }];
    const text = serializeConversation(messages, { maxChars: 5000 });
    assert.ok(text.length <= 5000, String(text.length));
    assert.ok(text.startsWith(leftOutNote(4, 5)));
    assert.match(text, /\[message cut here: \d+ more characters not shown\]$/);
    assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])/.test(text));
  });

  it('the budget follows the context window, less the output and the rest of the prompt, within fixed limits', () => {
    assert.equal(conversationCharBudget(10_000, 2_000, 1_000), 8_000 * 3 - 1_000);
    assert.equal(conversationCharBudget(1_000, 2_000, 0), MIN_CONVERSATION_CHARS);
    for (const hostile of [undefined, NaN, Infinity, -1, 0, 1e300])
      assert.equal(conversationCharBudget(hostile, 1000, 0), MAX_CONVERSATION_CHARS, String(hostile));
    const messages = span(300, 500);
    const r = buildSummaryRequest({
      kind: 'update',
      messages,
      previousSummary: '## Goal\n- the earlier goal',
      maxOutputTokens: 1_000,
      contextWindow: 9_000,
    });
    assert.ok(r.prompt.length + SUMMARY_SYSTEM_PROMPT.length <= (9_000 - 1_000) * 3, String(r.prompt.length));
    assert.ok(conversationOf(r.prompt).startsWith('[The '));
    assert.ok(r.prompt.includes('<previous-summary>\n## Goal\n- the earlier goal'));
    assert.equal(r.messages, messages, 'a summarizer working on structure still gets every message');
  });

  it('a compaction whose span is far larger than the window sends a bounded request and writes a summary', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-bound-'));
    const file = path.join(dir, 'long.jsonl');
    await generateSession({ file, targetBytes: 1024 * 1024, compactionEvery: 0 });
    const offline = createOfflineSummarizer();
    const requests: SummaryRequest[] = [];
    const small: Summarizer = {
      ...offline,
      contextWindow: 16_000,
      maxOutputTokens: 2_000,
      async summarize(req, signal) {
        requests.push(req);
        return offline.summarize(req, signal);
      },
    };
    const env = { PI_CODING_AGENT_DIR: path.join(dir, 'no-pi') };
    const r = await compactSession({ file, summarizer: small, compaction: { keepRecentTokens: 2000 }, estimator: 'chars', env });
    assert.equal(r.kind, 'compacted');
    if (r.kind !== 'compacted') return;
    assert.ok(requests.length >= 1);
    const history = requests[0];
    const span = messagesAt(r.proposal.plan.projection, r.proposal.plan.summarizePositions);
    assert.ok(serializeConversation(span).length > 10 * 16_000 * 3, 'the span is far larger than the window');
    assert.ok(history.prompt.length + history.systemPrompt.length <= (16_000 - 2_000) * 3, String(history.prompt.length));
    assert.ok(conversationOf(history.prompt).startsWith('[The '));
    assert.match(r.entry.summary, /^## Goal\n/);
    await fsp.rm(dir, { recursive: true, force: true });
  });
});
