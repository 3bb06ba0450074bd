import type { AgentMessage, ContextEditEntry, SessionEntry } from '../session/types';

function timeOf(timestamp: unknown): number {
  const t = typeof timestamp === 'string' ? Date.parse(timestamp) : NaN;
  return Number.isNaN(t) ? 0 : t;
}

/**
 * What one entry contributes to the LLM context (spec 2): message entries as
 * they are, custom_message and branch_summary as user-role messages, a
 * compaction as its summary (preceded by its system message, Pi 1.6).
 * Everything else, including unknown entry types, contributes nothing.
 */
export function entryContextMessages(entry: SessionEntry): AgentMessage[] {
  switch (entry.type) {
    case 'message': {
      const m = entry.message;
      if (m.role === 'system' && m.content == null) return [{ ...m, content: '' }];
      if ((m.role === 'user' || m.role === 'assistant' || m.role === 'toolResult') && m.content == null) {
        return [{ ...m, content: [] }];
      }
      return [m];
    }
    case 'custom_message': {
      const e = entry;
      return [
        {
          role: 'custom',
          customType: e.customType ?? '',
          content: e.content ?? [],
          display: e.display,
          details: e.details,
          timestamp: timeOf(e.timestamp),
        },
      ];
    }
    case 'branch_summary': {
      const e = entry;
      if (typeof e.summary !== 'string' || !e.summary) return [];
      return [{ role: 'branchSummary', summary: e.summary, fromId: String(e.fromId ?? ''), timestamp: timeOf(e.timestamp) }];
    }
    case 'compaction': {
      const e = entry;
      const summary: AgentMessage = {
        role: 'compactionSummary',
        summary: typeof e.summary === 'string' ? e.summary : '',
        tokensBefore: typeof e.tokensBefore === 'number' ? e.tokensBefore : 0,
        timestamp: timeOf(e.timestamp),
      };
      return e.systemMessage && typeof e.systemMessage === 'object' ? [e.systemMessage, summary] : [summary];
    }
    default:
      return [];
  }
}

/** Applies a context_edit (Pi 1.6): null omits the message, otherwise its content is replaced. */
export function applyContextEdit(messages: AgentMessage[], edit: ContextEditEntry | undefined): AgentMessage[] {
  if (!edit) return messages;
  const replacement = edit.replacement;
  if (replacement === null || replacement === undefined) return [];
  return messages.map((m) => {
    if (m.role !== 'user' && m.role !== 'assistant' && m.role !== 'toolResult' && m.role !== 'custom') return m;
    const content =
      (m.role === 'assistant' || m.role === 'toolResult') && typeof replacement.content === 'string'
        ? [{ type: 'text' as const, text: replacement.content }]
        : replacement.content;
    // The edit's blocks (text, image) go in as written, whatever the role: an assistant message may so
    // hold an image block, which AssistantMessage does not list. This is the one place that happens.
    return { ...m, content } as AgentMessage;
  });
}

/** Roles an entry contributes, known without parsing a message entry's body. */
export function entryContextRoles(type: string, role: string | undefined, parsed: () => SessionEntry): string[] {
  if (type === 'message') return role ? [role] : [];
  if (type === 'custom_message') return ['custom'];
  if (type === 'branch_summary' || type === 'compaction') return entryContextMessages(parsed()).map((m) => m.role);
  return [];
}
