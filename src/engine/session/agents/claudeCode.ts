import * as path from 'node:path';
import { isRecord } from '../jsonObject';
import type { Diagnostic } from '../diagnostics';
import type { AssistantMessage, CompactionEntry, SessionEntry, ToolResultMessage } from '../types';
import { isClaudeAutomatedRecord } from './peekFacts';
import { assistantMessage, mergeAssistant, oneWord } from './claudeCodeAssistant';
import { isoTime, msTime, num, str, userBlocks, type ForeignEntry, type ForeignSession, type SourceLine } from './foreignEntries';

/**
 * Claude Code's transcript (`~/.claude/projects/<cwd>/<session>.jsonl`) as
 * Pi-shaped entries. Records are linked by `uuid`/`parentUuid` (a redo
 * leaves a fork); an API message streamed as several records with one
 * `message.id` becomes one assistant entry holding all their blocks; a user
 * record's `tool_result` blocks become tool results; a `compact_boundary`
 * system record becomes a compaction whose parent is its
 * `logicalParentUuid` and whose summary is the `isCompactSummary` record
 * after it; a sidechain (subagent) whose first record has no parent hangs
 * off the main-chain entry before it; `summary` records title the session;
 * `isMeta` and other in-chain bookkeeping become hidden `custom` entries;
 * records outside the chain (`file-history-snapshot`, ...) are not entries.
 * A `--fork-session` file starts with the origin's records, copied with
 * their times: chain records older than the file's first enqueued prompt
 * are the copied ones (`fork`; loadForeign.ts links the origin by them).
 */

/**
 * Record types Claude Code writes outside the chain as a matter of course (titles, prompts, API request
 * logs, costs, modes, file-history bookkeeping): `summary`, `custom-title`, `ai-title` and `agent-name`
 * title the session; the rest are not entries and are not reported.
 */
export const CLAUDE_CODE_BOOKKEEPING_TYPES: ReadonlySet<string> = new Set([
  'file-history-snapshot',
  'file-history-delta',
  'queue-operation',
  'summary',
  'custom-title',
  'ai-title',
  'agent-name',
  'last-prompt',
  'cost-state',
  'tools-used',
  'mode',
  'permission-mode',
  'api-request',
  'api-request-shape',
  'api-request-blob',
  'atis-latch',
  'tag',
  'pr-link',
]);

/** Record types of the chain (with a `uuid`): messages, system notes, attachments, progress. */
export const CLAUDE_CODE_CHAIN_TYPES: ReadonlySet<string> = new Set(['user', 'assistant', 'system', 'attachment', 'progress']);

/** Title sources, strongest first: a name the user gave (`-n`, /rename), the agent's name, Claude Code's own titles. */
const TITLE_FIELDS: readonly (readonly [string, string])[] = [
  ['custom-title', 'customTitle'],
  ['agent-name', 'agentName'],
  ['ai-title', 'aiTitle'],
  ['summary', 'summary'],
];

interface Built extends ForeignEntry {
  /** The API message id of an assistant entry (its streamed records are merged into it). */
  messageId?: string;
  sidechain: boolean;
  /** Position in the entries. */
  pos: number;
}

export async function convertClaudeCode(file: string, lines: AsyncIterable<SourceLine>): Promise<ForeignSession> {
  const diagnostics: Diagnostic[] = [];
  const entries: Built[] = [];
  const byId = new Map<string, Built>();
  /** Record uuid -> the entry its children hang under (the last entry made from it, or the entry it was merged into). */
  const alias = new Map<string, string>();
  const toolNames = new Map<string, string>();
  let sessionId: string | undefined;
  let cwd: string | undefined;
  let started: string | undefined;
  /** The latest title of each source (see TITLE_FIELDS). */
  const titles = new Map<string, string>();
  let lastMain: string | undefined;
  let leaf: number | undefined;
  /** The newest compaction still waiting for its summary record (automatic ones write attachments before it). */
  let awaitingSummary: CompactionEntry | undefined;
  /** Assistant entry id -> the last tool result made from its calls (parallel calls' results form one step). */
  const resultTail = new Map<string, string>();
  /** Unknown record kinds already reported (once per file and kind). */
  const reported = new Set<string>();
  /** The thinking level of the API requests so far, and entry id -> the level change inserted after it (its children hang under it). */
  let thinking: string | undefined;
  const changedAfter = new Map<string, string>();

  const add = (src: SourceLine, entry: SessionEntry, sidechain: boolean, messageId?: string): Built => {
    const built: Built = { entry, line: src.line, offset: src.offset, sidechain, messageId, pos: entries.length };
    entries.push(built);
    byId.set(entry.id, built);
    return built;
  };
  const report = (src: SourceLine, message: string) => diagnostics.push({ file, line: src.line, message });
  const reportKindOnce = (src: SourceLine, kind: string, message: string) => {
    if (reported.has(kind)) return;
    reported.add(kind);
    report(src, `${message} (reported once; later records of this kind are handled the same way without a warning)`);
  };

  /** The first prompt's enqueue time, before any chain record: chain records older than it were copied by a fork. */
  let enqueuedMs: number | undefined;
  const copiedUuids: string[] = [];
  /** Whether the chain records so far were all copied; the entries made from them. */
  let copying = true;
  let copiedEntries = 0;

  for await (const src of lines) {
    const r = src.value;
    const type = str(r.type);
    if (type === 'queue-operation' && r.operation === 'enqueue' && entries.length === 0) enqueuedMs ??= msTime(r.timestamp);
    const titleField = TITLE_FIELDS.find(([t]) => t === type);
    if (titleField) {
      const t = r[titleField[1]];
      if (typeof t === 'string' && t.trim()) titles.set(titleField[0], t);
      continue;
    }
    if (type === 'api-request') {
      // The request's thinking settings (effort, budget): a change is a thinking-level entry where it took effect.
      const level = requestThinkingLevel(r.params);
      const at = lastMain === undefined ? undefined : byId.get(lastMain);
      if (level !== undefined && level !== thinking && at) {
        if (at.entry.type === 'thinking_level_change') at.entry.thinkingLevel = level;
        else {
          const id = `${at.entry.id}.thinking`;
          add(
            src,
            { type: 'thinking_level_change', id, parentId: at.entry.id, timestamp: isoTime(r.timestamp), thinkingLevel: level },
            false,
          );
          changedAfter.set(at.entry.id, id);
          lastMain = id;
        }
      }
      thinking = level ?? thinking;
      continue;
    }
    const uuid = str(r.uuid);
    if (uuid === undefined || uuid === '') {
      if (type === undefined) report(src, 'Claude Code record without a "type" and without a "uuid"; skipped');
      else if (!CLAUDE_CODE_BOOKKEEPING_TYPES.has(type))
        reportKindOnce(src, type, `Claude Code record of unknown type "${oneWord(type)}" without a "uuid"; skipped`);
      continue;
    }
    if (type !== undefined && !CLAUDE_CODE_CHAIN_TYPES.has(type))
      reportKindOnce(src, type, `Claude Code record of unknown type "${oneWord(type)}"; kept as a hidden entry`);
    if (alias.has(uuid) || byId.has(uuid)) {
      report(src, `record "${oneWord(uuid)}" repeats the uuid of an earlier record; skipped`);
      continue;
    }
    if (copying) {
      const recordMs = msTime(r.timestamp);
      if (enqueuedMs !== undefined && recordMs !== undefined && recordMs < enqueuedMs) copiedUuids.push(uuid);
      else {
        copying = false;
        copiedEntries = entries.length;
      }
    }
    sessionId ??= str(r.sessionId);
    cwd ??= str(r.cwd);
    started ??= str(r.timestamp);
    const sidechain = r.isSidechain === true;
    const timestamp = isoTime(r.timestamp);
    const boundary = type === 'system' && r.subtype === 'compact_boundary';
    const logical = boundary ? str(r.logicalParentUuid) : undefined;
    // A forked file copies the boundary before the messages it kept: a logical parent not read yet is no parent.
    const rawParent = logical !== undefined && alias.has(logical) ? logical : str(r.parentUuid);
    const resolved: string | null = rawParent === undefined ? null : (alias.get(rawParent) ?? rawParent);
    let parentId: string | null = resolved === null ? null : (changedAfter.get(resolved) ?? resolved);
    if (parentId === null && sidechain && lastMain !== undefined) parentId = lastMain;
    const message = isRecord(r.message) ? r.message : undefined;
    let last: Built | undefined;

    if (boundary) {
      const meta = isRecord(r.compactMetadata) ? r.compactMetadata : {};
      // Messages the compaction kept verbatim (a partial compaction's preserved segment) stay in the context.
      const head = preservedHead(meta);
      const kept = head !== undefined ? alias.get(head) : undefined;
      const compaction: CompactionEntry = {
        type: 'compaction',
        id: uuid,
        parentId,
        timestamp,
        summary: '',
        // Nothing else before the boundary stays in Claude Code's context.
        firstKeptEntryId: kept ?? uuid,
        tokensBefore: num(meta.preTokens) ?? 0,
        details: { source: 'claude-code', trigger: str(meta.trigger) },
      };
      last = add(src, compaction, sidechain);
      awaitingSummary = compaction;
    } else if (type === 'user' && r.isCompactSummary === true && awaitingSummary !== undefined && parentId !== null) {
      awaitingSummary.summary = userBlocks(message?.content)
        .map((b) => (b.type === 'text' ? b.text : ''))
        .join('\n');
      awaitingSummary = undefined;
      // The summary is the compaction: its children continue the chain where it stood.
      alias.set(uuid, parentId);
      continue;
    } else if (type === 'user' && r.isMeta !== true && isClaudeAutomatedRecord(r)) {
      const blocks = userBlocks(message?.content);
      last = add(
        src,
        {
          type: 'custom_message',
          id: uuid,
          parentId,
          timestamp,
          customType: `claude-code/${automatedKind(r)}`,
          content: blocks,
          display: true,
        },
        sidechain,
      );
    } else if (type === 'user' && r.isMeta !== true) {
      // Results of calls made in parallel each name their own call's record: they follow each other as one step.
      const step = parentId !== null ? resultTail.get(parentId) : undefined;
      const caller = parentId;
      last = userRecord({
        file,
        uuid,
        parentId: step ?? parentId,
        timestamp,
        record: r,
        message,
        toolNames,
        add: (e) => add(src, e, sidechain),
      });
      if (caller !== null && last.entry.type === 'message' && last.entry.message.role === 'toolResult' && byId.get(caller)?.messageId)
        resultTail.set(caller, last.entry.id);
    } else if (type === 'assistant' && message) {
      const messageId = str(message.id);
      const parent = resolved === null ? undefined : byId.get(resolved);
      if (messageId !== undefined && parent && parent.messageId === messageId && parent.sidechain === sidechain) {
        mergeAssistant(parent.entry as SessionEntry & { type: 'message'; message: AssistantMessage }, message, r, toolNames);
        alias.set(uuid, parent.entry.id);
        if (!sidechain) {
          lastMain = parent.entry.id;
          leaf = parent.pos;
        }
        continue;
      }
      const entry: SessionEntry = { type: 'message', id: uuid, parentId, timestamp, message: assistantMessage(message, r, toolNames) };
      last = add(src, entry, sidechain, messageId);
    } else {
      // In-chain bookkeeping (isMeta user records, system notes, progress): hidden, keeps the chain whole.
      const customType = `claude-code/${r.isMeta === true ? 'meta' : oneWord(type ?? 'record')}`;
      last = add(src, { type: 'custom', id: uuid, parentId, timestamp, customType, data: message ?? str(r.content) }, sidechain);
    }
    alias.set(uuid, last.entry.id);
    if (!sidechain) {
      lastMain = last.entry.id;
      if (last.entry.type === 'message' || last.entry.type === 'compaction') leaf = entries.length - 1;
    }
  }

  const title = TITLE_FIELDS.map(([t]) => titles.get(t)).find((t) => t !== undefined);
  const header = {
    type: 'session' as const,
    version: 3,
    id: sessionId ?? '',
    timestamp: started ?? '',
    cwd: cwd ?? '',
    ...(title !== undefined ? { title } : {}),
  };
  if (copying) copiedEntries = entries.length;
  const fork = copiedUuids.length ? { copiedUuids, copiedEntries } : undefined;
  return { header, entries, leaf, diagnostics, ...(fork ? { fork } : {}) };
}

/** Budgets of Claude Code's thinking (its "think" keywords give about 4k, 10k, 32k tokens) as Pi's levels. */
const BUDGET_LEVELS: readonly (readonly [number, string])[] = [
  [2048, 'minimal'],
  [8192, 'low'],
  [16384, 'medium'],
  [32000, 'high'],
];

/** The thinking level an API request asked for: its `output_config.effort`, else its thinking budget; undefined when it does not say. */
function requestThinkingLevel(params: unknown): string | undefined {
  if (!isRecord(params)) return undefined;
  const effort = isRecord(params.output_config) ? str(params.output_config.effort) : undefined;
  if (effort !== undefined && /^[a-z]{1,16}$/.test(effort)) return effort;
  const t = isRecord(params.thinking) ? params.thinking : undefined;
  if (!t) return undefined;
  if (t.type === 'disabled') return 'off';
  const budget = num(t.budget_tokens);
  if (t.type !== 'enabled' || budget === undefined) return undefined;
  return BUDGET_LEVELS.find(([max]) => budget <= max)?.[1] ?? 'xhigh';
}

/** The first message a compaction kept verbatim (`preservedSegment.headUuid`, else `preservedMessages.uuids[0]`). */
function preservedHead(meta: Record<string, unknown>): string | undefined {
  const seg = isRecord(meta.preservedSegment) ? meta.preservedSegment : undefined;
  const head = str(seg?.headUuid);
  if (head !== undefined) return head;
  const kept = isRecord(meta.preservedMessages) ? meta.preservedMessages.uuids : undefined;
  return Array.isArray(kept) ? str(kept[0]) : undefined;
}

function automatedKind(r: Record<string, unknown>): string {
  return oneWord(isRecord(r.origin) && typeof r.origin.kind === 'string' ? r.origin.kind : 'system');
}

function userEntry(id: string, parentId: string | null, timestamp: string, message: Record<string, unknown> | undefined): SessionEntry {
  return {
    type: 'message',
    id,
    parentId,
    timestamp,
    message: { role: 'user', content: userBlocks(message?.content), timestamp: msTime(timestamp) },
  };
}

/**
 * A user record: its `tool_result` blocks as tool results, the rest as one
 * user message, chained in block order (the first keeps the record's uuid).
 */
interface UserRecordInput {
  /** The session file (subagent transcripts are found beside it). */
  file: string;
  uuid: string;
  parentId: string | null;
  timestamp: string;
  record: Record<string, unknown>;
  message: Record<string, unknown> | undefined;
  toolNames: Map<string, string>;
  add: (e: SessionEntry) => Built;
}

function userRecord({ file, uuid, parentId, timestamp, record: r, message, toolNames, add }: UserRecordInput): Built {
  const content = message?.content;
  if (!Array.isArray(content)) return add(userEntry(uuid, parentId, timestamp, message));
  const results = content.filter((b) => isRecord(b) && b.type === 'tool_result') as Record<string, unknown>[];
  if (!results.length) return add(userEntry(uuid, parentId, timestamp, message));
  const rest = content.filter((b) => !(isRecord(b) && b.type === 'tool_result'));
  let last: Built | undefined;
  let k = 0;
  const nextId = () => (k++ === 0 ? uuid : `${uuid}#${k - 1}`);
  for (const b of results) {
    const toolCallId = str(b.tool_use_id) ?? '';
    const toolName = toolNames.get(toolCallId) ?? '';
    const msg: ToolResultMessage = {
      role: 'toolResult',
      toolCallId,
      toolName,
      content: userBlocks(b.content),
      isError: b.is_error === true,
      timestamp: msTime(timestamp),
    };
    const whole = results.length === 1 && toolName === 'Read' ? wholeFileText(r.toolUseResult) : undefined;
    if (whole !== undefined) msg.details = { wholeFileText: whole };
    const subagent = results.length === 1 ? subagentFile(file, r.toolUseResult) : undefined;
    if (subagent !== undefined) msg.details = { subagentFile: subagent };
    last = add({ type: 'message', id: nextId(), parentId: last ? last.entry.id : parentId, timestamp, message: msg });
  }
  const blocks = userBlocks(rest);
  if (blocks.length)
    last = add({
      type: 'message',
      id: nextId(),
      parentId: last!.entry.id,
      timestamp,
      message: { role: 'user', content: blocks, timestamp: msTime(timestamp) },
    });
  return last!;
}

/** The transcript of the subagent an Agent/Task call started (`<session>/subagents/agent-<agentId>.jsonl`, beside this file). */
function subagentFile(file: string, result: unknown): string | undefined {
  const id = isRecord(result) ? str(result.agentId) : undefined;
  if (id === undefined || !/^[A-Za-z0-9_-]{1,64}$/.test(id)) return undefined;
  return path.join(path.dirname(file), path.basename(file, '.jsonl'), 'subagents', `agent-${id}.jsonl`);
}

/** The whole file a Read showed, from the record's `toolUseResult.file` (only when it covers every line). */
function wholeFileText(result: unknown): string | undefined {
  const f = isRecord(result) && isRecord(result.file) ? result.file : undefined;
  if (!f || typeof f.content !== 'string') return undefined;
  const start = num(f.startLine);
  if (start !== undefined && start > 1) return undefined;
  if (num(f.numLines) !== undefined && num(f.totalLines) !== undefined && f.numLines !== f.totalLines) return undefined;
  return f.content;
}
