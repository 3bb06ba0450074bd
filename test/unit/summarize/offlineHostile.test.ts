/**
 * The offline summarizer on hostile text: long unbroken strings, escape
 * sequences, unclosed fences and backticks, punctuation runs. Every helper is
 * a linear scan, so 1 MB inputs finish well inside the test timeout (a
 * quadratic scan of 1 MB would take minutes); the result stays within the
 * size bound and keeps its structure.
 */
import * as assert from 'node:assert/strict';
import { offlineSummaryText, SUMMARY_MAX_TOKENS } from '../../../src/engine/summarize/providers/offline';
import { buildSummaryRequest } from '../../../src/engine/summarize/prompts';
import { parseSummary } from '../../../src/engine/summarize/parseSummary';
import { clip, sentences, squash, backticked } from '../../../src/engine/summarize/offline/text';
import type { AgentMessage } from '../../../src/engine/session/types';

const MB = 1_000_000;
const HOSTILE: Record<string, string> = {
  unbroken: 'a'.repeat(MB),
  backticks: '`'.repeat(MB),
  dots: '.'.repeat(MB),
  spaces: ' '.repeat(MB) + 'x',
  mixedSpace: ' \t'.repeat(MB / 2) + '.',
  escapes: '\u001b[31m\u001b]8;;file:///etc/passwd\u0007'.repeat(MB / 30),
  fences: '```\n'.repeat(MB / 4),
  cues: "I'll do it because ".repeat(MB / 19),
  questions: 'what '.repeat(MB / 5),
  surrogates: '😀'.repeat(MB / 2),
  listMarkers: '- * + > '.repeat(MB / 8),
  pathRun: '/a'.repeat(MB / 2),
};

function session(text: string): AgentMessage[] {
  return [
    { role: 'user', content: text },
    {
      role: 'assistant',
      content: [
        { type: 'text', text },
        { type: 'toolCall', id: 'c1', name: 'bash', arguments: { command: text } },
      ],
      stopReason: 'toolUse',
    },
    { role: 'toolResult', toolCallId: 'c1', toolName: 'bash', content: [{ type: 'text', text }], isError: true },
    { role: 'bashExecution', command: text, output: text, exitCode: 2, cancelled: false, truncated: false },
    { role: 'assistant', content: [{ type: 'text', text }], stopReason: 'stop' },
    { role: 'user', content: `Please must never ${text}` },
  ];
}

describe('offline summarizer on hostile text (linear, bounded)', function () {
  for (const [name, text] of Object.entries(HOSTILE)) {
    it(`${name}: a bounded, well-formed summary`, () => {
      const out = offlineSummaryText(buildSummaryRequest({ kind: 'history', messages: session(text), maxOutputTokens: 8192 }));
      assert.ok(out.length <= SUMMARY_MAX_TOKENS * 4, `${out.length} chars`);
      const s = parseSummary(out);
      assert.ok(s.nextSteps.length > 0 || s.goal.length > 0, out.slice(0, 500));
      const update = offlineSummaryText(
        buildSummaryRequest({ kind: 'update', previousSummary: text, messages: session(text), maxOutputTokens: 8192 }),
      );
      assert.ok(update.length <= SUMMARY_MAX_TOKENS * 4);
    });
  }

  it('text helpers on the same inputs', () => {
    for (const text of Object.values(HOSTILE)) {
      assert.ok(clip(text, 100).length <= 100);
      assert.ok(squash(text).length <= text.length);
      assert.ok(sentences(text).length <= 200);
      backticked(text);
    }
  });

  it('clip never splits a surrogate pair', () => {
    const c = clip('😀'.repeat(100), 51);
    assert.ok(!/[\ud800-\udbff]$/.test(c.slice(0, -1)), 'no lone high surrogate before the ellipsis');
  });
});
