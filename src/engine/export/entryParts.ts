import { messageRole } from '../session/contentBlocks';
import { entryFields, entryTypeOf } from '../session/entryKinds';
import type { AgentMessage, SessionEntry, UserContentBlock } from '../session/types';
import { editReplacements } from '../files/applyEdits';
import type { TextReplacement } from '../files/types';

/**
 * What one entry shows, as plain data: the parts of its message (text,
 * thinking, tool calls with their arguments, tool results, image
 * placeholders, shell commands, custom messages, summaries) in order. The
 * entry panel and the exporters render these; nothing here is escaped or
 * shortened (each renderer escapes for its medium and caps what it shows).
 */
export type EntryPart =
  | { kind: 'text'; text: string }
  | { kind: 'thinking'; text: string }
  | {
      kind: 'toolCall';
      name: string;
      id: string;
      /** The arguments as indented JSON (exports, Copy Text). */
      args: string;
      /** The arguments laid out for reading: each top-level key with its value (a string as it is, else JSON). */
      fields?: ToolArgField[];
      /** An edit call's replacements (its `edits`, or `oldText`/`newText`), shown as a diff; not repeated in `fields`. */
      edits?: TextReplacement[];
    }
  | { kind: 'toolResult'; toolName: string; isError: boolean; text: string }
  | { kind: 'image'; mimeType: string; bytes: number }
  | { kind: 'bash'; command: string; output: string; exitCode: number | null | undefined }
  | { kind: 'custom'; customType: string; text: string }
  | { kind: 'summary'; summaryKind: 'compaction' | 'branch'; text: string }
  | { kind: 'meta'; text: string };

export interface EntryDescription {
  /** "You", "Assistant", "Tool result", "Compaction", ... */
  title: string;
  /** The message role, or the entry type for other entries. */
  role: string;
  parts: EntryPart[];
  /** provider/model of an assistant message. */
  model?: string;
}

/** One argument of a tool call as the entry panel lays it out. */
export interface ToolArgField {
  key: string;
  value: string;
  /** Shown as a code block: several lines, or long. */
  block: boolean;
}

/** Longest value shown on the key's line; a longer or multi-line value is a code block. */
const INLINE_VALUE_CHARS = 100;

/** A tool call's arguments laid out: its fields, and an edit's replacements apart (nothing when they are not an object). */
function toolCallLayout(name: string, args: unknown): { fields?: ToolArgField[]; edits?: TextReplacement[] } {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return {};
  const record = args as Record<string, unknown>;
  const edits = /edit/i.test(name) ? editReplacements(record) : undefined;
  const fields: ToolArgField[] = [];
  for (const [key, v] of Object.entries(record)) {
    if (edits && (key === 'edits' || key === 'oldText' || key === 'newText')) continue;
    const value = typeof v === 'string' ? v : prettyJson(v);
    fields.push({ key, value, block: value.includes('\n') || value.length > INLINE_VALUE_CHARS });
  }
  return { fields, ...(edits ? { edits } : {}) };
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

/** Decoded size of base64 data, without decoding it. */
export function base64Bytes(data: unknown): number {
  if (typeof data !== 'string') return 0;
  let pad = 0;
  if (data.endsWith('==')) pad = 2;
  else if (data.endsWith('=')) pad = 1;
  return Math.max(0, Math.floor((data.length * 3) / 4) - pad);
}

/** Arguments as indented JSON (a value JSON cannot hold shows as its string form). */
export function prettyJson(value: unknown): string {
  try {
    return JSON.stringify(value ?? {}, null, 2) ?? str(value);
  } catch {
    return str(value);
  }
}

function contentParts(content: string | UserContentBlock[] | undefined | null, textKind: 'text' = 'text'): EntryPart[] {
  if (typeof content === 'string') return content ? [{ kind: textKind, text: content }] : [];
  if (!Array.isArray(content)) return [];
  const out: EntryPart[] = [];
  for (const b of content) {
    if (!b || typeof b !== 'object') continue;
    if (b.type === 'text') out.push({ kind: textKind, text: str(b.text) });
    else if (b.type === 'image') out.push({ kind: 'image', mimeType: str(b.mimeType) || 'image', bytes: base64Bytes(b.data) });
  }
  return out;
}

/** Text of several parts joined, as a plain reader would copy it. */
function joined(parts: EntryPart[]): string {
  return parts.map((p) => (p.kind === 'text' ? p.text : p.kind === 'image' ? `[${p.mimeType}]` : '')).join('\n\n');
}

export function messageDescription(m: AgentMessage): EntryDescription {
  switch (m.role) {
    case 'user':
      return { title: 'You', role: 'user', parts: contentParts(m.content) };
    case 'assistant': {
      const parts: EntryPart[] = [];
      for (const b of Array.isArray(m.content) ? m.content : []) {
        if (!b || typeof b !== 'object') continue;
        if (b.type === 'text') parts.push({ kind: 'text', text: str(b.text) });
        else if (b.type === 'thinking') parts.push({ kind: 'thinking', text: str(b.thinking) });
        else if (b.type === 'toolCall')
          parts.push({
            kind: 'toolCall',
            name: str(b.name),
            id: str(b.id),
            args: prettyJson(b.arguments),
            ...toolCallLayout(str(b.name), b.arguments),
          });
      }
      if (m.errorMessage) parts.push({ kind: 'meta', text: `Error: ${str(m.errorMessage)}` });
      const model = m.provider || m.model ? [str(m.provider), str(m.model)].filter(Boolean).join('/') : undefined;
      return { title: 'Assistant', role: 'assistant', parts, model };
    }
    case 'toolResult': {
      const inner = contentParts(m.content);
      const images = inner.filter((p) => p.kind === 'image');
      const text = inner.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('\n');
      return {
        title: m.isError ? 'Tool error' : 'Tool result',
        role: 'toolResult',
        parts: [{ kind: 'toolResult', toolName: str(m.toolName), isError: !!m.isError, text }, ...images],
      };
    }
    case 'bashExecution':
      return {
        title: 'Shell',
        role: 'bashExecution',
        parts: [{ kind: 'bash', command: str(m.command), output: str(m.output), exitCode: m.exitCode }],
      };
    case 'custom':
      return {
        title: `Custom: ${str(m.customType)}`,
        role: 'custom',
        parts: [{ kind: 'custom', customType: str(m.customType), text: joined(contentParts(m.content)) }],
      };
    case 'system':
      return { title: 'System', role: 'system', parts: contentParts(m.content) };
    case 'branchSummary':
      return { title: 'Branch summary', role: 'branchSummary', parts: [{ kind: 'summary', summaryKind: 'branch', text: str(m.summary) }] };
    case 'compactionSummary':
      return {
        title: 'Compaction summary',
        role: 'compactionSummary',
        parts: [{ kind: 'summary', summaryKind: 'compaction', text: str(m.summary) }],
      };
    default:
      return { title: str(messageRole(m)) || 'Message', role: str(messageRole(m)), parts: [{ kind: 'meta', text: prettyJson(m) }] };
  }
}

/** What any entry shows (messages, summaries, bookkeeping, unknown types). */
export function describeEntry(e: SessionEntry): EntryDescription {
  switch (e.type) {
    case 'message':
      return messageDescription(e.message);
    case 'compaction':
      return { title: 'Compaction', role: 'compaction', parts: [{ kind: 'summary', summaryKind: 'compaction', text: str(e.summary) }] };
    case 'branch_summary':
      return { title: 'Branch summary', role: 'branch_summary', parts: [{ kind: 'summary', summaryKind: 'branch', text: str(e.summary) }] };
    case 'custom_message':
      return {
        title: `Custom: ${str(e.customType)}`,
        role: 'custom_message',
        parts: [{ kind: 'custom', customType: str(e.customType), text: joined(contentParts(e.content)) }],
      };
    case 'model_change':
      return {
        title: 'Model change',
        role: 'model_change',
        parts: [{ kind: 'meta', text: `Model: ${str(e.provider)}/${str(e.modelId)}` }],
      };
    case 'thinking_level_change':
      return {
        title: 'Thinking level',
        role: 'thinking_level_change',
        parts: [{ kind: 'meta', text: `Thinking: ${str(e.thinkingLevel)}` }],
      };
    case 'label':
      return {
        title: 'Label',
        role: 'label',
        parts: [
          { kind: 'meta', text: e.label ? `Label "${str(e.label)}" on ${str(e.targetId)}` : `Label removed from ${str(e.targetId)}` },
        ],
      };
    case 'session_info':
      return { title: 'Session info', role: 'session_info', parts: [{ kind: 'meta', text: `Name: ${str(e.name)}` }] };
    default: {
      // Entries with nothing to show but their fields (extension state, context edits, usage, unknown types).
      const { id: _id, parentId: _p, timestamp: _t, type: _type, ...rest } = entryFields(e);
      const type = entryTypeOf(e);
      return { title: str(type) || 'Entry', role: str(type), parts: [{ kind: 'meta', text: prettyJson(rest) }] };
    }
  }
}

/** The entry's text as a user would copy it: every part, in order, plain. */
export function entryPlainText(d: EntryDescription): string {
  const out: string[] = [];
  for (const p of d.parts) {
    switch (p.kind) {
      case 'text':
      case 'meta':
        out.push(p.text);
        break;
      case 'thinking':
        out.push(`Thinking:\n${p.text}`);
        break;
      case 'toolCall':
        out.push(`${p.name}(${p.args})`);
        break;
      case 'toolResult':
        out.push(p.text);
        break;
      case 'image':
        out.push(`[image ${p.mimeType}, ${p.bytes} bytes]`);
        break;
      case 'bash':
        out.push(`$ ${p.command}\n${p.output}`);
        break;
      case 'custom':
      case 'summary':
        out.push(p.text);
        break;
    }
  }
  return out.join('\n\n');
}
