/** Message previews: the one-pass assistant preview and the single-block content fast path give what the array-and-join definition gives. */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { contentText, messagePreview } from '../../../src/engine/tree/entryPreview';
import { oneLine } from '../../../src/engine/tree/oneLine';
import { isTextBlock, isThinkingBlock, isToolCallBlock } from '../../../src/engine/session/contentBlocks';
import type { AgentMessage } from '../../../src/engine/session/types';

/** The definition (filter, map and join over the blocks), for the assistant case. */
function referenceAssistantText(blocks: unknown[], stopReason: unknown, errorMessage: unknown): string {
  const text = blocks
    .filter(isTextBlock)
    .map((b) => b.text)
    .join(' ');
  const calls = blocks.filter(isToolCallBlock).map((b) => {
    const a = (b.arguments && typeof b.arguments === 'object' ? b.arguments : {}) as Record<string, unknown>;
    const key = ['path', 'command', 'pattern', 'url', 'query'].find((k) => typeof a[k] === 'string');
    return key ? `${String(b.name)}(${oneLine(String(a[key]), 60)})` : `${String(b.name)}()`;
  });
  if (stopReason === 'error' || stopReason === 'aborted') return oneLine(`${stopReason}: ${(errorMessage as string | undefined) ?? text}`);
  if (calls.length && !text.trim()) return oneLine(calls.join(', '));
  if (calls.length) return oneLine(`${text} → ${calls.join(', ')}`);
  if (!text.trim()) {
    const thinking = blocks.find(isThinkingBlock);
    return thinking?.thinking ? oneLine(`(thinking) ${thinking.thinking}`) : '(empty)';
  }
  return oneLine(text);
}

const textValue = fc.oneof(
  fc.constantFrom('', ' ', '\u2028', 'hi', ' **b** ', '\u00a0x'),
  fc.string({ maxLength: 8 }),
  fc.constant(null),
  fc.constant(undefined),
  fc.integer(),
  fc.constant({}),
);
const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text: textValue }),
  fc.record({ type: fc.constant('thinking'), thinking: textValue }),
  fc.record({
    type: fc.constant('toolCall'),
    name: textValue,
    arguments: fc.oneof(fc.constant(null), fc.record({ path: textValue }), fc.record({ command: fc.string() })),
  }),
  fc.record({ type: fc.constant('image') }),
  fc.constantFrom(null, 'text', 3),
);

describe('message previews', () => {
  it('an assistant preview agrees with the filter-map-join definition on hostile blocks', () => {
    fc.assert(
      fc.property(
        fc.array(block, { maxLength: 6 }),
        fc.constantFrom(undefined, 'stop', 'error', 'aborted'),
        fc.oneof(fc.constant(undefined), fc.string()),
        (blocks, stopReason, errorMessage) => {
          const m = { role: 'assistant', content: blocks, stopReason, errorMessage } as unknown as AgentMessage;
          assert.equal(messagePreview(m).text, referenceAssistantText(blocks, stopReason, errorMessage));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('content text of one block is that block, as the join of one part', () => {
    fc.assert(
      fc.property(fc.array(block, { maxLength: 3 }), (blocks) => {
        const parts: string[] = [];
        for (const b of blocks) {
          if (isTextBlock(b) && typeof b.text === 'string') parts.push(b.text);
          else if (b && typeof b === 'object' && (b as { type?: unknown }).type === 'image') parts.push('[image]');
        }
        assert.equal(contentText(blocks), parts.join(' '));
      }),
      { numRuns: 3000 },
    );
  });
});
