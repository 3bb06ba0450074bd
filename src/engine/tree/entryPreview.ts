import type { AgentMessage, SessionEntry, UserContentBlock } from '../session/types';

export interface EntryPreview {
  /** e.g. 'user', 'assistant', 'toolResult', 'compaction', 'branch_summary', 'model_change', or an unknown type. */
  kind: string;
  /** One line, at most `max` characters. */
  text: string;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function blocks(content: string | UserContentBlock[] | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => (b?.type === 'text' ? b.text : b?.type === 'image' ? '[image]' : '')).filter(Boolean).join(' ');
}

function messageText(m: AgentMessage): string {
  switch (m.role) {
    case 'user':
    case 'custom':
    case 'toolResult':
    case 'system':
      return m.role === 'toolResult' ? `${m.toolName}: ${blocks(m.content)}` : blocks(m.content);
    case 'assistant': {
      const parts: string[] = [];
      for (const b of Array.isArray(m.content) ? m.content : []) {
        if (b.type === 'text' && b.text) parts.push(b.text);
        else if (b.type === 'toolCall') parts.push(`${b.name}(${typeof b.arguments?.path === 'string' ? b.arguments.path : typeof b.arguments?.command === 'string' ? b.arguments.command : '…'})`);
      }
      if (!parts.length && m.stopReason && m.stopReason !== 'stop') parts.push(`(${m.stopReason}${m.errorMessage ? `: ${m.errorMessage}` : ''})`);
      return parts.join(' ');
    }
    case 'bashExecution':
      return `$ ${m.command}`;
    case 'branchSummary':
    case 'compactionSummary':
      return m.summary;
  }
  return '';
}

/** The one-line description of an entry used by the tree views. */
export function entryPreview(entry: SessionEntry, max = 80): EntryPreview {
  const e = entry as Record<string, unknown>;
  switch (entry.type) {
    case 'message': {
      const m = e.message as AgentMessage;
      return { kind: m.role, text: oneLine(messageText(m), max) };
    }
    case 'compaction':
      return { kind: 'compaction', text: oneLine(`compacted ${String(e.tokensBefore ?? '?')} tokens: ${firstGoal(String(e.summary ?? ''))}`, max) };
    case 'branch_summary':
      return { kind: 'branch_summary', text: oneLine(`branch summary: ${firstGoal(String(e.summary ?? ''))}`, max) };
    case 'model_change':
      return { kind: 'model_change', text: oneLine(`model ${String(e.provider)}/${String(e.modelId)}`, max) };
    case 'thinking_level_change':
      return { kind: 'thinking_level_change', text: `thinking ${String(e.thinkingLevel)}` };
    case 'label':
      return { kind: 'label', text: oneLine(e.label ? `label ${String(e.targetId)} "${String(e.label)}"` : `label ${String(e.targetId)} cleared`, max) };
    case 'session_info':
      return { kind: 'session_info', text: oneLine(`session name: ${String(e.name ?? '')}`, max) };
    case 'custom':
      return { kind: 'custom', text: oneLine(`${String(e.customType ?? 'custom')}`, max) };
    case 'custom_message':
      return { kind: 'custom_message', text: oneLine(`${String(e.customType ?? '')}: ${blocks(e.content as string | UserContentBlock[])}`, max) };
    case 'context_edit':
      return { kind: 'context_edit', text: oneLine(e.replacement === null ? `hides ${String(e.targetId)} from the context` : `edits ${String(e.targetId)}`, max) };
    case 'usage':
      return { kind: 'usage', text: oneLine(`usage ${String(e.kind ?? '')}`, max) };
    default:
      return { kind: entry.type, text: oneLine(`(${entry.type})`, max) };
  }
}

/** The first Goal line of a structured summary, else its first non-empty line. */
function firstGoal(summary: string): string {
  const lines = summary.split('\n').map((l) => l.trim());
  const g = lines.findIndex((l) => /^#+\s*goal/i.test(l));
  const pick = (from: number) => lines.slice(from).find((l) => l && !l.startsWith('#')) ?? '';
  return (g >= 0 ? pick(g + 1) : pick(0)).replace(/^[-*]\s*/, '');
}
