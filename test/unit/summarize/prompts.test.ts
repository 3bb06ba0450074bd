import * as assert from 'node:assert/strict';
import {
  BRANCH_SUMMARY_PREAMBLE,
  buildSummaryRequest,
  mergeSplitTurnSummary,
  SUMMARY_SYSTEM_PROMPT,
  TURN_CONTEXT_HEADING,
  TURN_PREFIX_HEADINGS,
  withBranchPreamble,
} from '../../../src/engine/summarize/prompts';
import { serializeConversation } from '../../../src/engine/summarize/serialize';
import { parseSummary } from '../../../src/engine/summarize/parseSummary';
import type { AgentMessage } from '../../../src/engine/session/types';

const MESSAGES: AgentMessage[] = [
  { role: 'user', content: 'Fix the failing test in test/a.test.ts' },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'The assertion compares strings.' },
      { type: 'text', text: "I'll read the test." },
      { type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'test/a.test.ts' } },
    ],
    stopReason: 'toolUse',
  },
  { role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: [{ type: 'text', text: 'expect(x).toBe("1")' }], isError: false },
];

const SECTIONS = [
  '## Goal',
  '## Constraints & Preferences',
  '## Progress',
  '### Done',
  '### In Progress',
  '### Blocked',
  '## Key Decisions',
  '## Next Steps',
];

describe('summary prompts', () => {
  it('history: conversation in a delimited block, every section asked for, incl. Critical Context', () => {
    const r = buildSummaryRequest({ kind: 'history', messages: MESSAGES, maxOutputTokens: 4096 });
    assert.equal(r.kind, 'history');
    assert.equal(r.systemPrompt, SUMMARY_SYSTEM_PROMPT);
    assert.equal(r.maxOutputTokens, 4096);
    assert.equal(r.messages, MESSAGES);
    assert.ok(r.prompt.startsWith(`<conversation>\n${serializeConversation(MESSAGES)}\n</conversation>`));
    for (const s of [...SECTIONS, '## Critical Context']) assert.ok(r.prompt.includes(`\n${s}\n`), s);
    assert.ok(r.prompt.includes('- [x] '));
    assert.ok(r.prompt.includes('- [ ] '));
    assert.ok(r.prompt.includes('- **'));
    assert.ok(r.prompt.includes('1. '));
    assert.ok(!r.prompt.includes('<previous-summary>'));
    assert.equal(r.previousSummary, undefined);
  });

  it('the system prompt asks for the summary only, not a continuation', () => {
    assert.match(SUMMARY_SYSTEM_PROMPT, /nothing else/);
    assert.match(SUMMARY_SYSTEM_PROMPT, /do not continue the dialogue/i);
    assert.match(SUMMARY_SYSTEM_PROMPT, /<conversation>/);
  });

  it('gives every request a fresh id', () => {
    const ids = new Set(
      Array.from({ length: 5 }, () => buildSummaryRequest({ kind: 'history', messages: MESSAGES, maxOutputTokens: 10 }).requestId),
    );
    assert.equal(ids.size, 5);
    for (const id of ids) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('update: the previous summary in its own block, asked to be updated', () => {
    const previous = '## Goal\n- Earlier goal';
    const r = buildSummaryRequest({ kind: 'update', messages: MESSAGES, previousSummary: previous, maxOutputTokens: 100 });
    assert.equal(r.kind, 'update');
    assert.equal(r.previousSummary, previous);
    assert.ok(r.prompt.includes(`<previous-summary>\n${previous}\n</previous-summary>`));
    assert.ok(r.prompt.indexOf('</conversation>') < r.prompt.indexOf('<previous-summary>'));
    assert.match(r.prompt, /still true/);
    assert.match(r.prompt, /move work that has now been finished to Done/);
    assert.match(r.prompt, /rewrite Next Steps/);
  });

  it('update without a previous summary falls back to a history summary', () => {
    const r = buildSummaryRequest({ kind: 'update', messages: MESSAGES, previousSummary: '  ', maxOutputTokens: 100 });
    assert.equal(r.kind, 'history');
    assert.ok(!r.prompt.includes('<previous-summary>'));
  });

  it('turnPrefix: a short turn-context note, not the full structure', () => {
    const r = buildSummaryRequest({ kind: 'turnPrefix', messages: MESSAGES, maxOutputTokens: 100 });
    for (const h of Object.values(TURN_PREFIX_HEADINGS)) assert.ok(r.prompt.includes(h), h);
    assert.ok(!r.prompt.includes('## Critical Context'));
    assert.ok(!r.prompt.includes('### Done'));
    assert.match(r.prompt, /kept word for word/);
  });

  it('branch: same structure without Critical Context', () => {
    const r = buildSummaryRequest({ kind: 'branch', messages: MESSAGES, maxOutputTokens: 100 });
    for (const s of SECTIONS) assert.ok(r.prompt.includes(`\n${s}\n`), s);
    assert.ok(!r.prompt.includes('Critical Context'));
    assert.match(r.prompt, /another branch/);
  });

  it('custom instructions are added as an extra focus', () => {
    for (const kind of ['history', 'update', 'turnPrefix', 'branch'] as const) {
      const r = buildSummaryRequest({
        kind,
        messages: MESSAGES,
        previousSummary: 'prev',
        customInstructions: 'Focus on the database schema.',
        maxOutputTokens: 100,
      });
      assert.equal(r.customInstructions, 'Focus on the database schema.');
      assert.match(r.prompt, /Additional focus requested by the user[^\n]*\nFocus on the database schema\.$/);
      assert.ok(r.prompt.includes('<instructions>'));
    }
  });

  it('branch with replaceInstructions: the custom instructions replace the default ones', () => {
    const r = buildSummaryRequest({
      kind: 'branch',
      messages: MESSAGES,
      customInstructions: 'List only the files touched.',
      replaceInstructions: true,
      maxOutputTokens: 100,
    });
    assert.ok(r.prompt.includes('<instructions>\nList only the files touched.\n</instructions>'));
    assert.ok(!r.prompt.includes('## Goal'));
    assert.ok(!r.prompt.includes('Additional focus'));
    assert.ok(r.prompt.includes('<conversation>'));
    // Only for branch summaries.
    const h = buildSummaryRequest({
      kind: 'history',
      messages: MESSAGES,
      customInstructions: 'X',
      replaceInstructions: true,
      maxOutputTokens: 100,
    });
    assert.ok(h.prompt.includes('## Goal'));
  });

  it('includeThinking: false leaves the thinking out of the conversation', () => {
    const withThinking = buildSummaryRequest({ kind: 'history', messages: MESSAGES, maxOutputTokens: 100 });
    const without = buildSummaryRequest({ kind: 'history', messages: MESSAGES, maxOutputTokens: 100, includeThinking: false });
    assert.ok(withThinking.prompt.includes('[Assistant thinking]: The assertion compares strings.'));
    assert.ok(!without.prompt.includes('[Assistant thinking]'));
  });

  it('mergeSplitTurnSummary: history, a --- line, the turn-context heading and text; the parser splits it back', () => {
    const merged = mergeSplitTurnSummary('## Goal\n- A\n', '\n### Original Request\nDo B\n');
    assert.equal(merged, `## Goal\n- A\n\n---\n\n${TURN_CONTEXT_HEADING}\n\n### Original Request\nDo B`);
    const parsed = parseSummary(merged);
    assert.deepEqual(parsed.goal, ['A']);
    assert.equal(parsed.turnContext, '### Original Request\nDo B');
    // Without a history part there is no separator, and the parser still finds the turn context.
    const onlyTurn = mergeSplitTurnSummary('', 'Just the turn.');
    assert.equal(onlyTurn, `${TURN_CONTEXT_HEADING}\n\nJust the turn.`);
    assert.equal(parseSummary(onlyTurn).turnContext, 'Just the turn.');
  });

  it('branch preamble: a short note of its own, prefixed to branch summaries', () => {
    assert.match(BRANCH_SUMMARY_PREAMBLE, /branch/);
    assert.ok(BRANCH_SUMMARY_PREAMBLE.length < 300);
    const text = withBranchPreamble('## Goal\n- X\n');
    assert.ok(text.startsWith(`${BRANCH_SUMMARY_PREAMBLE}\n\n## Goal`));
    assert.equal(parseSummary(text).preamble, BRANCH_SUMMARY_PREAMBLE);
  });
});
