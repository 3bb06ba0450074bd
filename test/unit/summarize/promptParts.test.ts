import * as assert from 'node:assert/strict';
import { buildSummaryRequest, SUMMARY_SYSTEM_PROMPT } from '../../../src/engine/summarize/prompts';
import { boundFileLists, boundPart, MIN_PART_CHARS, partCutNote } from '../../../src/engine/summarize/promptParts';
import type { AgentMessage } from '../../../src/engine/session/types';

const messages: AgentMessage[] = [
  { role: 'user', content: 'fix the parser' },
  { role: 'assistant', content: [{ type: 'text', text: 'Fixed.' }], stopReason: 'stop' },
];

function fenced(prompt: string, tag: string): string {
  const start = prompt.indexOf(`<${tag}>\n`);
  const end = prompt.indexOf(`\n</${tag}>`, start);
  assert.ok(start >= 0 && end > start, tag);
  return prompt.slice(start + tag.length + 3, end);
}

describe('the prompt parts besides the conversation are bounded to the window (issue 20)', () => {
  it('parts that fit are unchanged', () => {
    const r = buildSummaryRequest({
      kind: 'update',
      messages,
      previousSummary: '## Goal\n- parse',
      pinned: '### Pinned\n- keep: x',
      files: { readFiles: ['a.ts'], modifiedFiles: ['b.ts'] },
      customInstructions: 'keep the API',
      maxOutputTokens: 1000,
      contextWindow: 16_000,
    });
    assert.equal(fenced(r.prompt, 'previous-summary'), '## Goal\n- parse');
    assert.equal(fenced(r.prompt, 'pinned-entries'), '### Pinned\n- keep: x');
    assert.equal(fenced(r.prompt, 'files-touched'), 'changed:\n- b.ts\nread:\n- a.ts');
    assert.ok(r.prompt.endsWith('\nkeep the API'));
  });

  it('a huge previous summary, pinned block, file list and focus each take their share, with a note; the request fits the window', () => {
    const window = 16_000;
    const output = 2_000;
    const files = Array.from({ length: 100_000 }, (_, i) => `src/module-${i}/file.ts`);
    const r = buildSummaryRequest({
      kind: 'update',
      messages,
      previousSummary: `## Goal\n- ${'😀'.repeat(3_000_000)}`,
      pinned: `### Pinned\n- ${'p'.repeat(5_000_000)}`,
      files: { readFiles: files, modifiedFiles: files },
      customInstructions: 'f'.repeat(1_000_000),
      maxOutputTokens: output,
      contextWindow: window,
    });
    const room = (window - output) * 3;
    assert.ok(r.prompt.length + SUMMARY_SYSTEM_PROMPT.length <= room, `${r.prompt.length} > ${room}`);
    const prev = fenced(r.prompt, 'previous-summary');
    assert.ok(prev.startsWith('## Goal\n- 😀'));
    assert.match(prev, /\n\[previous summary cut here: \d+ more characters left out, they do not fit the summarizer's context window\]$/);
    assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])/.test(prev), 'no half surrogate pair');
    assert.match(fenced(r.prompt, 'pinned-entries'), /\[pinned entries cut here: \d+ more characters left out/);
    const list = fenced(r.prompt, 'files-touched');
    assert.ok(list.startsWith('changed:\n- src/module-0/file.ts\n'));
    const left = Number(/\[file lists cut here: (\d+) more files left out/.exec(list)![1]);
    assert.equal(left + list.split('\n').filter((l) => l.startsWith('- ')).length, 200_000);
    assert.match(r.prompt, /\[focus instructions cut here: \d+ more characters left out/);
    // The structured fields stay whole (the offline summarizer works on them; pins are copied verbatim).
    assert.equal(r.pinned!.length, '### Pinned\n- '.length + 5_000_000);
    assert.equal(r.files!.modifiedFiles.length, 100_000);
  });

  it('bounds keep whole lines and a floor for tiny windows', () => {
    assert.equal(boundPart('pinned', 'abc', 3), 'abc');
    const cut = boundPart('pinned', 'x'.repeat(5000), MIN_PART_CHARS);
    assert.ok(cut.length <= MIN_PART_CHARS, String(cut.length));
    assert.ok(cut.endsWith(partCutNote('pinned', 5000 - (MIN_PART_CHARS - 160), 'characters')));
    assert.equal(boundFileLists({ readFiles: [], modifiedFiles: [] }, 100), 'changed:\nread:');
    const tiny = buildSummaryRequest({ kind: 'history', messages, pinned: 'q'.repeat(10_000), maxOutputTokens: 10, contextWindow: 100 });
    assert.ok(fenced(tiny.prompt, 'pinned-entries').length <= MIN_PART_CHARS);
  });
});
