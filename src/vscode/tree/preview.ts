import type { AgentMessage, SessionEntry, UserContentBlock } from '../../engine/session/types';

/**
 * One-line descriptions of entries for the tree (no vscode import).
 * `kind` says what the entry is for icons and menus; `text` is the preview.
 */
export type EntryKind =
  | 'user'
  | 'assistant'
  | 'toolCalls'
  | 'toolResult'
  | 'toolError'
  | 'bash'
  | 'system'
  | 'custom'
  | 'customMessage'
  | 'compaction'
  | 'branchSummary'
  | 'modelChange'
  | 'thinkingLevel'
  | 'label'
  | 'sessionInfo'
  | 'contextEdit'
  | 'usage'
  | 'assistantError'
  | 'unknown';

export interface EntryPreview {
  kind: EntryKind;
  /** Short role/type word shown first (e.g. "You", "Assistant"). */
  title: string;
  /** The one-line preview text. */
  text: string;
}

const MAX = 140;

export function oneLine(text: string, max = MAX): string {
  // Bold/italic markers are noise in a one-line preview.
  const flat = text.replace(/\*\*(.+?)\*\*|__(.+?)__/g, '$1$2').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function contentText(content: string | UserContentBlock[] | undefined | null): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const b of content) {
    if (!b || typeof b !== 'object') continue;
    if (b.type === 'text' && typeof b.text === 'string') parts.push(b.text);
    else if (b.type === 'image') parts.push('[image]');
  }
  return parts.join(' ');
}

function toolCallText(name: unknown, args: unknown): string {
  const a = (args && typeof args === 'object' ? args : {}) as Record<string, unknown>;
  const key = ['path', 'command', 'pattern', 'url', 'query'].find((k) => typeof a[k] === 'string');
  return key ? `${String(name)}(${oneLine(String(a[key]), 60)})` : `${String(name)}()`;
}

export function messagePreview(m: AgentMessage): EntryPreview {
  switch (m.role) {
    case 'user':
      return { kind: 'user', title: 'User', text: oneLine(contentText(m.content)) };
    case 'assistant': {
      const blocks = Array.isArray(m.content) ? m.content : [];
      const text = blocks.filter((b) => b && b.type === 'text').map((b) => (b as { text: string }).text).join(' ');
      const calls = blocks.filter((b) => b && b.type === 'toolCall').map((b) => toolCallText((b as { name: unknown }).name, (b as { arguments: unknown }).arguments));
      if (m.stopReason === 'error' || m.stopReason === 'aborted') {
        return { kind: 'assistantError', title: 'Assistant', text: oneLine(`${m.stopReason}: ${m.errorMessage ?? text}`) };
      }
      if (calls.length && !text.trim()) return { kind: 'toolCalls', title: 'Assistant', text: oneLine(calls.join(', ')) };
      if (calls.length) return { kind: 'toolCalls', title: 'Assistant', text: oneLine(`${text} → ${calls.join(', ')}`) };
      if (!text.trim()) {
        const thinking = blocks.find((b) => b && b.type === 'thinking') as { thinking?: string } | undefined;
        return { kind: 'assistant', title: 'Assistant', text: thinking?.thinking ? oneLine(`(thinking) ${thinking.thinking}`) : '(empty)' };
      }
      return { kind: 'assistant', title: 'Assistant', text: oneLine(text) };
    }
    case 'toolResult':
      return {
        kind: m.isError ? 'toolError' : 'toolResult',
        title: m.toolName ? String(m.toolName) : 'Tool result',
        text: oneLine(contentText(m.content)) || '(no output)',
      };
    case 'bashExecution':
      return { kind: 'bash', title: 'Shell', text: oneLine(`$ ${m.command}${m.exitCode ? `  (exit ${m.exitCode})` : ''}`) };
    case 'system':
      return { kind: 'system', title: 'System prompt', text: oneLine(contentText(m.content)) };
    case 'custom':
      return { kind: 'customMessage', title: String(m.customType || 'Custom'), text: oneLine(contentText(m.content)) };
    case 'branchSummary':
      return { kind: 'branchSummary', title: 'Branch summary', text: summaryPreview(m.summary) };
    case 'compactionSummary':
      return { kind: 'compaction', title: 'Compaction', text: summaryPreview(m.summary) };
    default:
      return { kind: 'unknown', title: String((m as { role?: unknown }).role ?? 'message'), text: '' };
  }
}

/** First meaningful line of a structured summary (the goal), for a preview. */
export function summaryPreview(summary: unknown): string {
  if (typeof summary !== 'string') return '';
  const lines = summary.split('\n').map((l) => l.trim());
  const goalAt = lines.findIndex((l) => /^#+\s*goal/i.test(l));
  const from = goalAt >= 0 ? goalAt + 1 : 0;
  for (let i = from; i < lines.length; i++) {
    const l = lines[i].replace(/^[-*]\s*(\[.\]\s*)?/, '');
    if (l && !l.startsWith('#') && !l.startsWith('<')) return oneLine(l);
  }
  return '';
}

export function entryPreview(e: SessionEntry): EntryPreview {
  const r = e as Record<string, unknown>;
  switch (e.type) {
    case 'message': {
      const m = r.message as AgentMessage | undefined;
      return m && typeof m === 'object' ? messagePreview(m) : { kind: 'unknown', title: 'Message', text: '' };
    }
    case 'compaction':
      return { kind: 'compaction', title: 'Compaction', text: summaryPreview(r.summary) };
    case 'branch_summary':
      return { kind: 'branchSummary', title: 'Branch summary', text: summaryPreview(r.summary) };
    case 'model_change':
      return { kind: 'modelChange', title: 'Model', text: `${String(r.provider)}/${String(r.modelId)}` };
    case 'thinking_level_change':
      return { kind: 'thinkingLevel', title: 'Thinking', text: String(r.thinkingLevel) };
    case 'label':
      return {
        kind: 'label',
        title: 'Label',
        text: typeof r.label === 'string' && r.label ? `“${oneLine(r.label, 60)}” on ${String(r.targetId)}` : `cleared on ${String(r.targetId)}`,
      };
    case 'session_info':
      return { kind: 'sessionInfo', title: 'Session name', text: oneLine(String(r.name ?? '')) };
    case 'custom':
      return { kind: 'custom', title: 'Extension state', text: String(r.customType ?? '') };
    case 'custom_message':
      return { kind: 'customMessage', title: String(r.customType || 'Custom message'), text: oneLine(contentText(r.content as string | UserContentBlock[])) };
    case 'context_edit':
      return { kind: 'contextEdit', title: 'Context edit', text: `${r.replacement === null ? 'removes' : 'replaces'} ${String(r.targetId)}` };
    case 'usage':
      return { kind: 'usage', title: 'Usage', text: '' };
    default:
      return { kind: 'unknown', title: String(e.type), text: '' };
  }
}

/** 1234 -> "1.2k", 1234567 -> "1.2M". */
export function formatTokens(n: number): string {
  if (!Number.isFinite(n)) return '?';
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0).replace(/\.0$/, '')}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}
