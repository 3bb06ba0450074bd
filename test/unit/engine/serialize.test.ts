import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createHash } from 'node:crypto';
import { oracleCases } from '../../support/fixtures';
import { loadSession } from '../../../src/engine/session/loadSession';
import { planBranch } from '../../../src/engine/branch/planBranch';
import { serializeConversation, truncateToolResult } from '../../../src/engine/summarize/serialize';
import { charsEstimator } from '../../../src/engine/tokens/estimators';
import type { AgentMessage } from '../../../src/engine/session/types';

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

describe('serialization for the summarizer (spec 5)', () => {
  it('writes labelled plain text, thinking included by default, tool results cut at 2000 characters', () => {
    const long = 'x'.repeat(2500);
    const messages: AgentMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'what they said' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'reasoning' },
          { type: 'text', text: 'response text' },
          { type: 'toolCall', id: '1', name: 'read', arguments: { path: 'foo.ts' } },
          { type: 'toolCall', id: '2', name: 'edit', arguments: { path: 'bar.ts', n: 1 } },
        ],
      },
      { role: 'toolResult', toolCallId: '1', toolName: 'read', content: [{ type: 'text', text: long }] },
      { role: 'system', content: 'never shown' },
    ];
    const text = serializeConversation(messages);
    assert.equal(
      text,
      `[User]: what they said\n\n[Assistant thinking]: reasoning\n\n[Assistant]: response text\n\n[Assistant tool ` +
        `calls]: read(path="foo.ts"); edit(path="bar.ts", n=1)\n\n[Tool result]: ${truncateToolResult(long, 2000)}`,
    );
    assert.ok(truncateToolResult(long, 2000).startsWith('x'.repeat(2000)));
    assert.match(truncateToolResult(long, 2000), /500 more characters/);
    assert.ok(!serializeConversation(messages, { includeThinking: false }).includes('thinking'));
    // never splits a surrogate pair
    assert.ok(!/[\ud800-\udbff]$/.test(truncateToolResult('a' + '😀'.repeat(1500), 2000).split('\n')[0]));
  });

  it('matches Pi 1.6 byte for byte (thinking off, as Pi 1.6) on branch conversations without summaries, bash runs or long results', async () => {
    let compared = 0;
    for (const c of oracleCases()) {
      const g = JSON.parse(fs.readFileSync(c.goldenFile, 'utf8'));
      const index = await loadSession(c.sessionFile);
      for (const pair of g.branchPairs) {
        for (const [budget, gp] of Object.entries<any>(pair.prepared)) {
          const plan = planBranch(index, { fromId: pair.fromId, targetId: pair.toId, budget: Number(budget), estimator: charsEstimator });
          const msgs = plan.prepared.map((m) => m.message);
          const plain = msgs.every((m) => ['user', 'assistant'].includes(m.role));
          if (!plain || !gp.serializedConversation) continue;
          const text = serializeConversation(msgs, { includeThinking: false });
          assert.equal(sha(text), gp.serializedConversation.sha256, `${c.name} ${pair.fromId}->${pair.toId} budget ${budget}`);
          compared++;
        }
      }
    }
    assert.ok(compared >= 10, `compared ${compared}`);
  });
});
