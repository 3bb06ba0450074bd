import type { AgentMessage, UserContentBlock } from '../session/types';
import { isTextBlock, isThinkingBlock, isToolCallBlock } from '../session/contentBlocks';

export const TOOL_RESULT_MAX_CHARS = 2000;

export interface SerializeOptions {
  /** Write `[Assistant thinking]:` lines (default true; Pi 1.6 leaves them out). */
  includeThinking?: boolean;
  /** Cut tool results longer than this many characters (default 2000). */
  toolResultMaxChars?: number;
  /** Bound the text to about this many characters, keeping the newest messages (default: no bound). */
  maxChars?: number;
}

/** Wrappers Arbor uses when a summary stands in the conversation as a user-role message. */
export const SUMMARY_TAGS = {
  compaction: ['Earlier conversation, condensed into a checkpoint:\n<checkpoint>\n', '\n</checkpoint>'],
  branch: ['Summary of a side branch the user abandoned before returning here:\n<branch-summary>\n', '\n</branch-summary>'],
} as const;

function blocksText(content: string | UserContentBlock[] | undefined, separator: string): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isTextBlock)
    .map((b) => b.text)
    .join(separator);
}

/** Where to cut `text` to at most `max` UTF-16 units without splitting a surrogate pair. */
function cutEnd(text: string, max: number): number {
  let end = Math.max(0, max);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return end;
}

/** Cuts `text` to `max` UTF-16 units without splitting a surrogate pair, and says how much was cut. */
export function truncateToolResult(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = cutEnd(text, max);
  return `${text.slice(0, end)}\n[tool output cut here: ${text.length - end} more characters not shown]`;
}

function bashText(m: Extract<AgentMessage, { role: 'bashExecution' }>): string {
  const lines = [`The user ran a shell command: $ ${m.command}`];
  lines.push(m.output ? `Its output:\n${m.output}` : 'It printed nothing.');
  if (m.cancelled) lines.push('The command was cancelled.');
  else if (typeof m.exitCode === 'number' && m.exitCode !== 0) lines.push(`It failed with exit code ${m.exitCode}.`);
  if (m.truncated && m.fullOutputPath) lines.push(`(Output shortened; the full output is in ${m.fullOutputPath}.)`);
  return lines.join('\n');
}

/** The labelled parts of one message (spec 5); empty for a message the summarizer does not read. */
function messageParts(m: AgentMessage, includeThinking: boolean, max: number): string[] {
  const parts: string[] = [];
  const user = (text: string) => {
    if (text) parts.push(`[User]: ${text}`);
  };
  switch (m.role) {
    case 'user':
      user(blocksText(m.content, ''));
      break;
    case 'custom':
      user(blocksText(m.content, ''));
      break;
    case 'bashExecution':
      if (!m.excludeFromContext) user(bashText(m));
      break;
    case 'branchSummary':
      user(SUMMARY_TAGS.branch[0] + m.summary + SUMMARY_TAGS.branch[1]);
      break;
    case 'compactionSummary':
      user(SUMMARY_TAGS.compaction[0] + m.summary + SUMMARY_TAGS.compaction[1]);
      break;
    case 'assistant': {
      const blocks = Array.isArray(m.content) ? m.content : [];
      if (includeThinking) {
        const thinking = blocks
          .filter(isThinkingBlock)
          .map((b) => b.thinking)
          .filter(Boolean);
        if (thinking.length) parts.push(`[Assistant thinking]: ${thinking.join('\n')}`);
      }
      if (blocks.some((b) => b.type === 'text')) {
        parts.push(
          `[Assistant]: ${blocks
            .filter(isTextBlock)
            .map((b) => b.text)
            .join('\n')}`,
        );
      }
      const calls = blocks.filter(isToolCallBlock).map((call) => {
        const args = Object.entries(call.arguments ?? {})
          .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
          .join(', ');
        return `${call.name}(${args})`;
      });
      if (calls.length) parts.push(`[Assistant tool calls]: ${calls.join('; ')}`);
      break;
    }
    case 'toolResult': {
      const text = blocksText(m.content, '\n');
      if (text) parts.push(`[Tool result]: ${truncateToolResult(text, max)}`);
      break;
    }
    case 'system':
      break;
  }
  return parts;
}

/** Characters reserved for the leftOutNote (and a cut message's marker) within a bound. */
export const LEFT_OUT_NOTE_ROOM = 400;

/** The note standing in for the oldest messages a bounded serialization leaves out. */
export function leftOutNote(omitted: number, total: number): string {
  return (
    `[The ${omitted} oldest of these ${total} messages are left out here: they do not fit the summarizer's context ` +
    `window. What follows are the most recent ones.]`
  );
}

/**
 * Spec 5: turns messages into labelled plain text (not a chat transcript), so
 * the summarizing model cannot mistake it for a conversation to continue.
 * User-role kinds (bash runs, custom messages, summaries) read as [User].
 * System prompts are never part of it.
 *
 * With `maxChars`, the text never exceeds that many characters (a huge
 * session never becomes one string): the newest messages that fit are kept,
 * walked from the end (a ConversationCollector), and a leftOutNote says how
 * many older ones are not shown; a newest message larger than the budget
 * alone is cut. Linear.
 */
export function serializeConversation(messages: readonly AgentMessage[], options: SerializeOptions = {}): string {
  const includeThinking = options.includeThinking ?? true;
  const max = options.toolResultMaxChars ?? TOOL_RESULT_MAX_CHARS;
  if (options.maxChars === undefined) return messages.flatMap((m) => messageParts(m, includeThinking, max)).join('\n\n');
  const collector = collectConversation({ ...options, maxChars: options.maxChars });
  for (let i = messages.length - 1; i >= 0 && collector.add(messages[i]); i--);
  return collector.finish(messages.length);
}

/**
 * The bounded serialization as a fold fed newest first (a run step that reads
 * a span a batch at a time feeds it as it goes, and stops when `add` says the
 * budget is reached): `finish` takes how many messages the span holds.
 */
export interface ConversationCollector {
  /** Takes the next older message; false once the budget is reached (the message was not taken, and no more are). */
  add(message: AgentMessage): boolean;
  finish(total: number): string;
}

export function collectConversation(options: SerializeOptions & { maxChars: number }): ConversationCollector {
  const includeThinking = options.includeThinking ?? true;
  const max = options.toolResultMaxChars ?? TOOL_RESULT_MAX_CHARS;
  const budget = options.maxChars;
  const kept: string[][] = [];
  const sizes: number[] = [];
  let used = 0;
  let all = true;
  let newestMessage: AgentMessage | undefined;
  return {
    add(m) {
      if (!all) return false;
      newestMessage ??= m;
      const parts = messageParts(m, includeThinking, max);
      // Each part counts its "\n\n" separator; the first part of the text has none.
      const size = parts.reduce((n, p) => n + p.length + 2, 0);
      if (used + size > budget + 2) {
        all = false;
        return false;
      }
      kept.push(parts);
      sizes.push(size);
      used += size;
      return true;
    },
    finish(total) {
      if (all) return kept.reverse().flat().join('\n\n');
      // Room for the note: the oldest kept messages give way to it.
      while (kept.length && used + LEFT_OUT_NOTE_ROOM > budget) {
        used -= sizes.pop()!;
        kept.pop();
      }
      const note = leftOutNote(total - kept.length, total);
      const body = kept.reverse().flat();
      if (body.length) return [note, ...body].join('\n\n');
      // Not even the newest message fits: its beginning, cut to the budget.
      const newest = messageParts(newestMessage!, includeThinking, max).join('\n\n');
      const end = cutEnd(newest, budget - LEFT_OUT_NOTE_ROOM);
      return `${leftOutNote(total - 1, total)}\n\n${newest.slice(0, end)}\n[message cut here: ${newest.length - end} more characters not shown]`;
    },
  };
}
