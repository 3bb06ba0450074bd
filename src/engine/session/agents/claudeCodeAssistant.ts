import { isRecord } from '../jsonObject';
import type { AssistantContentBlock, AssistantMessage, SessionEntry, StopReason, Usage } from '../types';
import { msTime, num, str, text } from './foreignEntries';

/**
 * Claude Code's assistant records as Pi's assistant messages: content blocks (text, thinking, tool use),
 * usage, stop reason, API errors; the records of one streamed API message are merged into one.
 */

/** A type name for a message (no control characters, bounded). */
export function oneWord(s: string): string {
  const clean = s.replace(/[\u0000-\u001f\u007f]/g, '?');
  return clean.length > 60 ? `${clean.slice(0, 60)}…` : clean;
}

const STOP_REASONS: Record<string, StopReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'toolUse',
  max_tokens: 'length',
  refusal: 'error',
};

function assistantBlocks(content: unknown, toolNames: Map<string, string>): AssistantContentBlock[] {
  if (typeof content === 'string') return [text(content)];
  if (!Array.isArray(content)) return [];
  const out: AssistantContentBlock[] = [];
  for (const b of content) {
    if (!isRecord(b)) continue;
    if (b.type === 'text' && typeof b.text === 'string') out.push(text(b.text));
    else if (b.type === 'thinking' && typeof b.thinking === 'string') out.push({ type: 'thinking', thinking: b.thinking });
    else if (b.type === 'redacted_thinking') out.push({ type: 'thinking', thinking: '[redacted thinking]', redacted: true });
    else if ((b.type === 'tool_use' || b.type === 'server_tool_use') && typeof b.id === 'string' && typeof b.name === 'string') {
      toolNames.set(b.id, b.name);
      out.push({ type: 'toolCall', id: b.id, name: b.name, arguments: isRecord(b.input) ? b.input : { input: b.input } });
    } else if (typeof b.type === 'string') out.push(text(`[${oneWord(b.type)}]`));
  }
  return out;
}

function usageOf(u: unknown): Usage | undefined {
  if (!isRecord(u)) return undefined;
  const input = num(u.input_tokens) ?? 0;
  const output = num(u.output_tokens) ?? 0;
  const cacheRead = num(u.cache_read_input_tokens) ?? 0;
  const cacheWrite = num(u.cache_creation_input_tokens) ?? 0;
  return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite };
}

export function assistantMessage(m: Record<string, unknown>, r: Record<string, unknown>, toolNames: Map<string, string>): AssistantMessage {
  const out: AssistantMessage = {
    role: 'assistant',
    content: assistantBlocks(m.content, toolNames),
    api: 'anthropic-messages',
    provider: 'anthropic',
    timestamp: msTime(r.timestamp),
  };
  const model = str(m.model);
  if (model) out.model = model;
  const usage = usageOf(m.usage);
  if (usage) out.usage = usage;
  const stop = str(m.stop_reason);
  if (stop && STOP_REASONS[stop]) out.stopReason = STOP_REASONS[stop];
  if (r.isApiErrorMessage === true) {
    out.stopReason = 'error';
    out.errorMessage = out.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
  }
  return out;
}

/** A later streamed record of the same API message: its blocks are appended; usage and stop reason are the latest. */
export function mergeAssistant(
  target: SessionEntry & { type: 'message'; message: AssistantMessage },
  m: Record<string, unknown>,
  r: Record<string, unknown>,
  toolNames: Map<string, string>,
): void {
  const next = assistantMessage(m, r, toolNames);
  target.message.content.push(...next.content);
  if (next.usage) target.message.usage = next.usage;
  if (next.stopReason) target.message.stopReason = next.stopReason;
  if (next.errorMessage) target.message.errorMessage = next.errorMessage;
}
