import { isRecord } from '../session/jsonObject';
import { isImageBlock, isTextBlock, isThinkingBlock, isToolCallBlock, messageRole } from '../session/contentBlocks';
import { isBlank } from '../text/whitespace';
import type { AgentMessage, SessionEntry, ThinkingBlock, UserContentBlock } from '../session/types';
import { ONE_LINE_MAX, oneLine } from './oneLine';

/**
 * The one description of an entry shared by the CLI (`arbor tree`, `arbor
 * context`) and the extension (tree rows, pickers, search results): `kind`
 * says what the entry is (icons, menus, filters), `title` names it in a word
 * or two, `text` is a one-line preview of its content.
 */
export const ENTRY_KINDS = [
  'user',
  'assistant',
  'toolCalls',
  'toolResult',
  'toolError',
  'bash',
  'system',
  'custom',
  'customMessage',
  'compaction',
  'branchSummary',
  'modelChange',
  'thinkingLevel',
  'label',
  'sessionInfo',
  'contextEdit',
  'usage',
  'assistantError',
  'unknown',
] as const;

export type EntryKind = (typeof ENTRY_KINDS)[number];

export interface EntryPreview {
  kind: EntryKind;
  /** Short role/type word shown first (e.g. "You", "Assistant"). */
  title: string;
  /** The one-line preview text. */
  text: string;
}

/** The text of a message's content (a string, or blocks: text kept, images as "[image]"); anything else reads as ''. */
export function contentText(content: string | UserContentBlock[] | unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  if (content.length === 1) {
    // The common case, without an array and a join (a preview is made for every row of a million-entry tree).
    const b: unknown = content[0];
    return isTextBlock(b) && typeof b.text === 'string' ? b.text : isImageBlock(b) ? '[image]' : '';
  }
  const parts: string[] = [];
  for (const b of content) {
    if (isTextBlock(b) && typeof b.text === 'string') parts.push(b.text);
    else if (isImageBlock(b)) parts.push('[image]');
  }
  return parts.join(' ');
}

function toolCallText(name: unknown, args: unknown): string {
  const a = isRecord(args) ? args : {};
  // `file_path`: Claude Code's file tools, `description`/`prompt` its Agent (Task) calls; `cmd` and a `command` of
  // words: Codex's shell, `input` its free-form tools such as apply_patch (engine/session/agents/).
  const key = ['path', 'file_path', 'command', 'cmd', 'pattern', 'url', 'query', 'description', 'prompt', 'input'].find(
    (k) => typeof a[k] === 'string',
  );
  if (!key && Array.isArray(a.command) && a.command.every((w) => typeof w === 'string'))
    return `${String(name)}(${oneLine(a.command.slice(-1)[0] ?? '', 60)})`;
  return key ? `${String(name)}(${oneLine(String(a[key]), 60)})` : `${String(name)}()`;
}

export function messagePreview(m: AgentMessage, max = ONE_LINE_MAX): EntryPreview {
  switch (m.role) {
    case 'user':
      return { kind: 'user', title: 'User', text: oneLine(contentText(m.content), max) };
    case 'assistant': {
      // One pass, no intermediate arrays: the text blocks joined by ' ', the tool calls by ', ', the first thinking block.
      const blocks = Array.isArray(m.content) ? m.content : [];
      let text = '';
      let texts = 0;
      let calls = '';
      let callCount = 0;
      let thinking: ThinkingBlock | undefined;
      for (const b of blocks) {
        if (isTextBlock(b)) {
          const t = b.text == null ? '' : String(b.text);
          text = texts++ ? `${text} ${t}` : t;
        } else if (isToolCallBlock(b)) {
          const c = toolCallText(b.name, b.arguments);
          calls = callCount++ ? `${calls}, ${c}` : c;
        } else if (!thinking && isThinkingBlock(b)) {
          thinking = b;
        }
      }
      if (m.stopReason === 'error' || m.stopReason === 'aborted') {
        return { kind: 'assistantError', title: 'Assistant', text: oneLine(`${m.stopReason}: ${m.errorMessage ?? text}`, max) };
      }
      const blank = isBlank(text);
      if (callCount && blank) return { kind: 'toolCalls', title: 'Assistant', text: oneLine(calls, max) };
      if (callCount) return { kind: 'toolCalls', title: 'Assistant', text: oneLine(`${text} → ${calls}`, max) };
      if (blank)
        return {
          kind: 'assistant',
          title: 'Assistant',
          text: thinking?.thinking ? oneLine(`(thinking) ${thinking.thinking}`, max) : '(empty)',
        };
      return { kind: 'assistant', title: 'Assistant', text: oneLine(text, max) };
    }
    case 'toolResult':
      return {
        kind: m.isError ? 'toolError' : 'toolResult',
        title: m.toolName ? String(m.toolName) : 'Tool result',
        text: oneLine(contentText(m.content), max) || '(no output)',
      };
    case 'bashExecution':
      return { kind: 'bash', title: 'Shell', text: oneLine(`$ ${m.command}${m.exitCode ? `  (exit ${m.exitCode})` : ''}`, max) };
    case 'system':
      return { kind: 'system', title: 'System prompt', text: oneLine(contentText(m.content), max) };
    case 'custom':
      return { kind: 'customMessage', title: String(m.customType || 'Custom'), text: oneLine(contentText(m.content), max) };
    case 'branchSummary':
      return { kind: 'branchSummary', title: 'Branch summary', text: summaryPreview(m.summary, max) };
    case 'compactionSummary':
      return { kind: 'compaction', title: 'Compaction', text: summaryPreview(m.summary, max) };
    default:
      return { kind: 'unknown', title: String(messageRole(m) ?? 'message'), text: '' };
  }
}

/** First meaningful line of a structured summary (the goal), for a preview. */
export function summaryPreview(summary: unknown, max = ONE_LINE_MAX): string {
  if (typeof summary !== 'string') return '';
  const lines = summary.split('\n').map((l) => l.trim());
  const goalAt = lines.findIndex((l) => /^#+\s*goal/i.test(l));
  const from = goalAt >= 0 ? goalAt + 1 : 0;
  for (let i = from; i < lines.length; i++) {
    const l = lines[i].replace(/^[-*]\s*(\[.\]\s*)?/, '');
    if (l && !l.startsWith('#') && !l.startsWith('<')) return oneLine(l, max);
  }
  return '';
}

export function entryPreview(e: SessionEntry, max = ONE_LINE_MAX): EntryPreview {
  const fit = (t: string, n = max) => oneLine(t, Math.min(n, max));
  switch (e.type) {
    case 'message': {
      const m: AgentMessage | undefined = e.message;
      return m && typeof m === 'object' ? messagePreview(m, max) : { kind: 'unknown', title: 'Message', text: '' };
    }
    case 'compaction':
      return { kind: 'compaction', title: 'Compaction', text: summaryPreview(e.summary, max) };
    case 'branch_summary':
      return { kind: 'branchSummary', title: 'Branch summary', text: summaryPreview(e.summary, max) };
    case 'model_change':
      return { kind: 'modelChange', title: 'Model', text: `${String(e.provider)}/${String(e.modelId)}` };
    case 'thinking_level_change':
      return { kind: 'thinkingLevel', title: 'Thinking', text: String(e.thinkingLevel) };
    case 'label':
      return {
        kind: 'label',
        title: 'Label',
        text:
          typeof e.label === 'string' && e.label ? `“${fit(e.label, 60)}” on ${String(e.targetId)}` : `cleared on ${String(e.targetId)}`,
      };
    case 'session_info':
      return { kind: 'sessionInfo', title: 'Session name', text: fit(String(e.name ?? '')) };
    case 'custom':
      return { kind: 'custom', title: 'Extension state', text: String(e.customType ?? '') };
    case 'custom_message':
      return { kind: 'customMessage', title: String(e.customType || 'Custom message'), text: fit(contentText(e.content)) };
    case 'context_edit':
      return {
        kind: 'contextEdit',
        title: 'Context edit',
        text: `${e.replacement === null ? 'removes' : 'replaces'} ${String(e.targetId)}`,
      };
    case 'usage':
      return { kind: 'usage', title: 'Usage', text: '' };
    case 'unknown':
      return { kind: 'unknown', title: e.originalType, text: '' };
  }
}
