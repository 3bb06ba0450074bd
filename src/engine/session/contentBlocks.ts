import { isRecord } from './jsonObject';
import type { AgentMessage, ImageBlock, TextBlock, ThinkingBlock, ToolCallBlock } from './types';

/**
 * Type guards for the blocks of a message's content, for `filter`/`find`
 * (which narrow only through a guard). Content comes from session files, so
 * an element that is not an object is skipped rather than trusted; a block's
 * own fields are read defensively by its users.
 */
export function isTextBlock(b: unknown): b is TextBlock {
  return isRecord(b) && b.type === 'text';
}

export function isThinkingBlock(b: unknown): b is ThinkingBlock {
  return isRecord(b) && b.type === 'thinking';
}

export function isToolCallBlock(b: unknown): b is ToolCallBlock {
  return isRecord(b) && b.type === 'toolCall';
}

export function isImageBlock(b: unknown): b is ImageBlock {
  return isRecord(b) && b.type === 'image';
}

/**
 * The text blocks of a message's content joined by `separator` (a string is its own text; anything else, or a block
 * whose text is not a string, adds nothing).
 */
export function textOfContent(content: unknown, separator = '\n'): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isTextBlock)
    .filter((b) => typeof b.text === 'string')
    .map((b) => b.text)
    .join(separator);
}

/**
 * A message's role as written. In the `default` of a switch over the known
 * roles the message's type is `never`, yet a file may hold a role Arbor does
 * not know (only "a string" is checked when a line is read): this names it.
 */
export function messageRole(m: AgentMessage): string {
  return m.role;
}
