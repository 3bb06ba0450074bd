import type { Projection } from './projection';
import type { SystemMessage, UserContentBlock } from '../session/types';
import { isRecord } from '../session/jsonObject';

function contentText(content: SystemMessage['content'] | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b): b is Extract<UserContentBlock, { type: 'text' }> => !!b && b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}

/** Every system message replayed in order: text content appended, `sections` patched by name (null removes one), tools added and removed by name. */
function replay(messages: Iterable<SystemMessage>): {
  content: string[];
  sections: Map<string, string>;
  tools: Map<string, unknown>;
  timestamp: number | undefined;
} {
  const content: string[] = [];
  const sections = new Map<string, string>();
  const tools = new Map<string, unknown>();
  let timestamp: number | undefined;
  for (const m of messages) {
    timestamp ??= m.timestamp;
    const text = contentText(m.content);
    if (text.length > 0) content.push(text);
    for (const [name, value] of Object.entries(m.sections ?? {})) {
      if (value === null) sections.delete(name);
      else sections.set(name, value);
    }
    for (const t of m.toolsRemoved ?? []) tools.delete(String(toolName(t)));
    for (const t of m.toolsAdded ?? []) tools.set(String(toolName(t)), t);
  }
  return { content, sections, tools, timestamp };
}

/** A tool declaration's `name` (declarations are read as they are; one without a name reads as undefined). */
function toolName(tool: unknown): unknown {
  return isRecord(tool) ? tool.name : undefined;
}

function merged(r: ReturnType<typeof replay>): SystemMessage {
  return {
    role: 'system',
    content: r.content.join('\n\n'),
    ...(r.sections.size > 0 ? { sections: Object.fromEntries(r.sections) } : {}),
    ...(r.tools.size > 0 ? { toolsAdded: [...r.tools.values()] } : {}),
  };
}

/** The prompt in effect after every system message (for counting its tokens); undefined when there is none. */
export function mergeSystemMessages(messages: readonly SystemMessage[]): SystemMessage | undefined {
  return messages.length === 0 ? undefined : merged(replay(messages));
}

/**
 * The system message in effect at the end of some context messages, as Pi 1.6
 * carries it in a compaction: the replayed prompt with the first system
 * message's timestamp. Undefined when there is nothing to carry: no system
 * message with a timestamp and no tools.
 */
export function currentSystemMessage(messages: Iterable<SystemMessage>): SystemMessage | undefined {
  const r = replay(messages);
  if (r.timestamp === undefined && r.tools.size === 0) return undefined;
  return { ...merged(r), timestamp: r.timestamp ?? 0 };
}

/** The system messages of a projected context, in order; only entries that hold one are parsed. */
export function* projectedSystemMessages(projection: Projection): Generator<SystemMessage> {
  for (let pos = 0; pos < projection.length; pos++) {
    if (!projection.roles(pos).includes('system')) continue;
    for (const m of projection.messages(pos)) if (m.role === 'system') yield m;
  }
}

/**
 * The system message a compaction written at the projection's leaf carries (spec 4.8), its entries loaded for the
 * reading and released after: what applyCompaction writes and what the proposal's "after" counts.
 */
export async function carriedSystemMessage(projection: Projection, signal?: AbortSignal): Promise<SystemMessage | undefined> {
  const systemEntries = projection.entries.filter((_, pos) => projection.roles(pos).includes('system'));
  return projection.index.withLoaded(systemEntries, () => currentSystemMessage(projectedSystemMessages(projection)), {
    keep: false,
    signal,
  });
}
