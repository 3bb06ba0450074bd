import { isRecord } from '../jsonObject';
import type { Diagnostic } from '../diagnostics';
import type { AssistantContentBlock, AssistantMessage, SessionEntry, TextBlock, UserContentBlock } from '../types';
import { isoTime, msTime, num, str, text, userBlocks, type ForeignEntry, type ForeignSession, type SourceLine } from './foreignEntries';
import { toolResult } from './codexToolResult';

/**
 * Codex CLI's rollout (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`,
 * lines `{timestamp, type, payload}`) as a linear path of Pi-shaped
 * entries: `session_meta` is the header; `response_item` messages, function
 * calls and their outputs (joined by `call_id`), and reasoning summaries
 * are messages (the items of one model answer, reasoning through calls,
 * are one assistant message); `turn_context` model and effort changes are
 * model/thinking-level changes; `event_msg` `token_count` is the usage of
 * the answer before it and gives the context window; `compacted` is a
 * compaction (its `message` the summary) followed by the history Codex
 * rebuilds: `replacement_history` when present, else the initial context and
 * the earlier user messages within Codex's budget. Codex sends that history
 * first and the summary after it: the compaction's `details.summaryFollows`
 * counts the rebuilt entries its summary comes after in the context.
 */

/** Codex keeps at most this many tokens of earlier user messages in the history it rebuilds (COMPACT_USER_MESSAGE_MAX_TOKENS). */
export const CODEX_USER_MESSAGE_BUDGET = 20_000;

/** Codex's own rough count (4 bytes a token), used only for that budget. */
const approxTokens = (s: string) => Math.ceil(Buffer.byteLength(s, 'utf8') / 4);

/**
 * Rollout line types Codex writes: the ones read, and `world_state` / `token_usage_record` (state
 * snapshots, and usage `token_count` already gives), quietly skipped.
 */
export const CODEX_LINE_TYPES: ReadonlySet<string> = new Set([
  'session_meta',
  'response_item',
  'turn_context',
  'event_msg',
  'compacted',
  'world_state',
  'token_usage_record',
]);

const ASSISTANT_ITEMS = new Set(['reasoning', 'function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call']);
const OUTPUT_ITEMS = new Set(['function_call_output', 'custom_tool_call_output']);

/** Response item types read (messages, answer items, call outputs) or skipped on purpose (`ghost_snapshot`: undo bookkeeping). */
export const CODEX_ITEM_TYPES: ReadonlySet<string> = new Set(['message', ...ASSISTANT_ITEMS, ...OUTPUT_ITEMS, 'ghost_snapshot']);

/** User messages Codex sends as context, not typed by the user (instructions, environment). */
function isInitialContext(t: string): boolean {
  const s = t.trimStart();
  return s.startsWith('<user_instructions>') || s.startsWith('<environment_context>') || s.startsWith('# AGENTS.md instructions');
}

export async function convertCodex(file: string, lines: AsyncIterable<SourceLine>): Promise<ForeignSession> {
  const diagnostics: Diagnostic[] = [];
  const entries: ForeignEntry[] = [];
  const toolNames = new Map<string, string>();
  const header: { type: 'session'; version: number; id: string; timestamp: string; cwd: string; [k: string]: unknown } = {
    type: 'session',
    version: 3,
    id: '',
    timestamp: '',
    cwd: '',
  };
  let metaSeen = false;
  /** Unknown kinds already reported (once per file and kind). */
  const reported = new Set<string>();
  /** The turn of the current answer (`internal_chat_message_metadata_passthrough.turn_id`): another turn's item starts a new answer. */
  let answerTurn: string | undefined;
  /** Codex's own record of a finished call (`item_completed`), by call id: an exit code, or the files a patch changed. */
  const completed = new Map<string, Record<string, unknown>>();
  let parentId: string | null = null;
  /** The assistant entry the current answer's items go into (undefined after anything else). */
  let answer: (SessionEntry & { type: 'message'; message: AssistantMessage }) | undefined;
  let lastAssistant: AssistantMessage | undefined;
  let model: string | undefined;
  let effort: string | undefined;
  /** Initial-context messages and the user's messages so far, for the history a compaction without replacement_history rebuilds. */
  const initial: SessionEntry[] = [];
  let userMessages: string[] = [];

  const add = (src: SourceLine, entry: SessionEntry) => {
    entries.push({ entry, line: src.line, offset: src.offset });
    parentId = entry.id;
  };
  const report = (src: SourceLine, message: string) => diagnostics.push({ file, line: src.line, message });
  const reportKindOnce = (src: SourceLine, kind: string, message: string) => {
    if (reported.has(kind)) return;
    reported.add(kind);
    report(src, `${message} (reported once; later ones are skipped without a warning)`);
  };

  /** One response item as an entry (or into the current answer); `id` names it. */
  const item = (src: SourceLine, p: Record<string, unknown>, id: string, timestamp: string, rebuilt: boolean): void => {
    const type = str(p.type) ?? '';
    const turn = turnOf(p);
    if (type === 'message') {
      const role = str(p.role);
      if (role === 'assistant') {
        appendToAnswer(
          src,
          id,
          timestamp,
          userBlocks(p.content).filter((b): b is TextBlock => b.type === 'text'),
          turn,
        );
        return;
      }
      answer = undefined;
      const content = userBlocks(p.content);
      const message = (as: 'user' | 'system'): SessionEntry => ({
        type: 'message',
        id,
        parentId,
        timestamp,
        message: { role: as, content, timestamp: msTime(timestamp) },
      });
      if (role === 'user') {
        const t = content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
        const entry = message('user');
        if (!rebuilt) {
          if (isInitialContext(t)) initial.push(entry);
          else userMessages.push(t);
        }
        add(src, entry);
      } else if (role === 'developer' || role === 'system') {
        const entry = message('system');
        if (!rebuilt) initial.push(entry);
        add(src, entry);
      } else report(src, `Codex message with unknown role ${JSON.stringify(String(role)).slice(0, 40)}; skipped`);
      return;
    }
    if (ASSISTANT_ITEMS.has(type)) {
      appendToAnswer(src, id, timestamp, callBlocks(p, type, id, toolNames), turn);
      return;
    }
    if (OUTPUT_ITEMS.has(type)) {
      answer = undefined;
      const toolCallId = str(p.call_id) ?? '';
      add(src, {
        type: 'message',
        id,
        parentId,
        timestamp,
        message: toolResult(p.output, toolCallId, toolNames.get(toolCallId) ?? '', timestamp, completed.get(toolCallId)),
      });
      return;
    }
    // Ghost snapshots are Codex's undo bookkeeping (a git commit id): not part of the conversation.
    if (type === 'ghost_snapshot') return;
    reportKindOnce(src, `item ${type}`, `Codex response item of unknown type ${JSON.stringify(type).slice(0, 60)}; skipped`);
  };

  const appendToAnswer = (src: SourceLine, id: string, timestamp: string, blocks: AssistantContentBlock[], turn: string | undefined) => {
    // The items of one answer are one message; an item of another turn (a compaction's own output, written
    // before the compaction at the start of the next turn) is not part of the answer before it.
    if (answer && (turn === undefined || answerTurn === undefined || turn === answerTurn)) {
      answer.message.content.push(...blocks);
      return;
    }
    answerTurn = turn;
    const message: AssistantMessage = {
      role: 'assistant',
      content: blocks,
      api: 'openai-responses',
      provider: 'openai',
      timestamp: msTime(timestamp),
    };
    if (model) message.model = model;
    answer = { type: 'message', id, parentId, timestamp, message };
    lastAssistant = message;
    add(src, answer);
  };

  for await (const src of lines) {
    const r = src.value;
    const p = isRecord(r.payload) ? r.payload : undefined;
    const type = str(r.type);
    const id = `${src.idPrefix ?? ''}L${src.line}`;
    const timestamp = isoTime(r.timestamp);
    if (!p || type === undefined) {
      report(src, 'not a Codex rollout line ({timestamp, type, payload}); skipped');
      continue;
    }
    if (type === 'session_meta') {
      if (!metaSeen) {
        metaSeen = true;
        header.id = str(p.id) ?? '';
        header.timestamp = str(p.timestamp) ?? timestamp;
        header.cwd = str(p.cwd) ?? '';
        // `codex exec fork`: the rollout it was forked from (loadForeign.ts finds its file).
        const origin = str(p.forked_from_id);
        if (origin) header.forkedFrom = origin;
      }
      continue;
    }
    if (type === 'response_item') item(src, p, id, timestamp, false);
    else if (type === 'turn_context') {
      const m = str(p.model);
      if (m && m !== model) {
        answer = undefined;
        add(src, { type: 'model_change', id, parentId, timestamp, provider: 'openai', modelId: m });
      }
      model = m ?? model;
      const e = str(p.effort);
      if (e && e !== effort) {
        answer = undefined;
        add(src, { type: 'thinking_level_change', id: `${id}.effort`, parentId, timestamp, thinkingLevel: e });
      }
      effort = e ?? effort;
    } else if (type === 'event_msg') {
      if (p.type === 'item_completed' && isRecord(p.item) && typeof p.item.id === 'string') completed.set(p.item.id, p.item);
      else if (p.type === 'token_count' && isRecord(p.info)) {
        const last = isRecord(p.info.last_token_usage) ? p.info.last_token_usage : undefined;
        const input = num(last?.input_tokens) ?? 0;
        const cached = num(last?.cached_input_tokens) ?? 0;
        const output = num(last?.output_tokens) ?? 0;
        if (last && lastAssistant)
          lastAssistant.usage = {
            input: Math.max(0, input - cached),
            output,
            cacheRead: cached,
            cacheWrite: 0,
            totalTokens: num(last.total_tokens) ?? input + output,
          };
        const window = num(p.info.model_context_window);
        if (window !== undefined) header.contextWindow = window;
      }
      // Other events (user_message, agent_message, ...) repeat response items for the UI.
    } else if (type === 'compacted') {
      answer = undefined;
      const summary = str(p.message) ?? '';
      const details: { source: string; replacementHistory: boolean; summaryFollows?: number } = {
        source: 'codex',
        replacementHistory: Array.isArray(p.replacement_history),
      };
      add(src, {
        type: 'compaction',
        id,
        parentId,
        timestamp,
        summary,
        firstKeptEntryId: id,
        tokensBefore: tokensBeforeCompaction(entries, summary),
        details,
      });
      const compactionAt = entries.length;
      if (Array.isArray(p.replacement_history)) {
        let k = 0;
        userMessages = [];
        for (const h of p.replacement_history) {
          if (!isRecord(h)) continue;
          // The summary itself is the compaction (after the rebuilt history in the context): its copy is not repeated.
          if (h.type === 'message' && h.role === 'user' && summary && blocksText(userBlocks(h.content)).endsWith(summary)) continue;
          item(src, h, `${id}.h${k++}`, timestamp, true);
          if (h.type === 'message' && h.role === 'user') {
            const t = blocksText(userBlocks(h.content));
            if (!isInitialContext(t)) userMessages.push(t);
          }
        }
        answer = undefined;
      } else {
        let k = 0;
        for (const e of initial) add(src, { ...e, id: `${id}.h${k++}`, parentId } as SessionEntry);
        const kept = keptUserMessages(userMessages);
        for (const t of kept)
          add(src, {
            type: 'message',
            id: `${id}.h${k++}`,
            parentId,
            timestamp,
            message: { role: 'user', content: [text(t)], timestamp: msTime(timestamp) },
          });
        // The kept messages are in the history now: a later compaction collects them again.
        userMessages = kept;
      }
      // Codex sends the rebuilt history first and the summary after it (as the last user message).
      details.summaryFollows = entries.length - compactionAt;
    } else if (!CODEX_LINE_TYPES.has(type))
      reportKindOnce(src, type, `Codex record of unknown type ${JSON.stringify(type).slice(0, 60)}; skipped`);
  }
  return { header, entries, diagnostics };
}

/** The turn an item belongs to, as Codex records it. */
function turnOf(p: Record<string, unknown>): string | undefined {
  const meta = p.internal_chat_message_metadata_passthrough;
  return isRecord(meta) ? str(meta.turn_id) : undefined;
}

/**
 * The context size before a compaction: the usage Codex recorded for the last answer before it that is
 * not the compaction's own output (whose text is the summary the compaction carries).
 */
function tokensBeforeCompaction(entries: readonly ForeignEntry[], summary: string): number {
  for (let i = entries.length - 1, seen = 0; i >= 0 && seen < 64; i--, seen++) {
    const e = entries[i].entry;
    if (e.type === 'compaction') break;
    if (e.type !== 'message' || e.message.role !== 'assistant' || !e.message.usage) continue;
    const t = e.message.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
    if (t && summary.endsWith(t)) continue;
    const total = e.message.usage.totalTokens;
    if (total !== undefined) return total;
  }
  return 0;
}

function blocksText(blocks: UserContentBlock[]): string {
  return blocks.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
}

/** The newest user messages within Codex's budget, oldest first (the one that crosses the budget is cut to fit). */
export function keptUserMessages(messages: readonly string[], budget = CODEX_USER_MESSAGE_BUDGET): string[] {
  const out: string[] = [];
  let left = budget;
  for (let i = messages.length - 1; i >= 0 && left > 0; i--) {
    const t = messages[i];
    const n = approxTokens(t);
    if (n <= left) {
      out.push(t);
      left -= n;
    } else {
      out.push(t.slice(0, left * 4));
      left = 0;
    }
  }
  return out.reverse();
}

function callBlocks(p: Record<string, unknown>, type: string, id: string, toolNames: Map<string, string>): AssistantContentBlock[] {
  if (type === 'reasoning') {
    const parts: string[] = [];
    for (const s of Array.isArray(p.summary) ? p.summary : []) if (isRecord(s) && typeof s.text === 'string') parts.push(s.text);
    if (!parts.length)
      for (const c of Array.isArray(p.content) ? p.content : []) if (isRecord(c) && typeof c.text === 'string') parts.push(c.text);
    if (!parts.length && p.encrypted_content !== undefined) parts.push('[encrypted reasoning]');
    return parts.length ? [{ type: 'thinking', thinking: parts.join('\n\n') }] : [];
  }
  const callId = str(p.call_id) ?? str(p.id) ?? id;
  let name = str(p.name) ?? type.replace(/_call$/, '');
  let args: Record<string, unknown>;
  if (type === 'function_call') args = parseArguments(p.arguments);
  else if (type === 'custom_tool_call') args = { input: p.input };
  else {
    args = isRecord(p.action) ? p.action : {};
    name = type === 'local_shell_call' ? 'local_shell' : name;
  }
  toolNames.set(callId, name);
  return [{ type: 'toolCall', id: callId, name, arguments: args }];
}

/** A function call's `arguments` (a JSON string): its object, else the text under `arguments`. */
function parseArguments(raw: unknown): Record<string, unknown> {
  if (isRecord(raw)) return raw;
  if (typeof raw !== 'string') return {};
  try {
    const v: unknown = JSON.parse(raw);
    return isRecord(v) ? v : { arguments: raw };
  } catch {
    return { arguments: raw };
  }
}
