import { isRecord } from '../jsonObject';
import type { AgentKind } from './agentKind';
import { userBlocks } from './foreignEntries';

/** What one record of another agent's session tells a session list (sessionPeek.ts): all optional. */
export interface ForeignPeekFacts {
  id?: string;
  cwd?: string;
  /** The session's start (its first record with a time). */
  started?: string;
  /** A title: the name the user gave (Claude Code's `custom-title` / `agent-name`) or the agent wrote (`summary`). */
  name?: string;
  /** Text the user typed (not a tool result, bookkeeping or context the agent added). */
  userText?: string;
  /** When a prompt was queued (Claude Code's `queue-operation` enqueue): a fork's copied records are older than its first. */
  enqueued?: string;
}

const CODEX_CONTEXT = /^\s*(<user_instructions>|<environment_context>|# AGENTS\.md instructions)/;
const CLAUDE_ECHO = /^\s*<(command-|local-command-)/;

/** A user message's text that the agent wrote, not the user (Codex's initial context, Claude Code's slash-command echoes): no title. */
export function isAgentWrittenRequest(agent: AgentKind, text: string): boolean {
  if (agent === 'codex') return CODEX_CONTEXT.test(text);
  if (agent === 'claude-code') return CLAUDE_ECHO.test(text);
  return false;
}

/** A Claude Code user-role record the tool wrote itself (a finished background task's notification), not typed by the user. */
export function isClaudeAutomatedRecord(r: Record<string, unknown>): boolean {
  if (isRecord(r.origin) && typeof r.origin.kind === 'string' && r.origin.kind !== 'user') return true;
  return r.promptSource === 'system';
}

/** The facts of one parsed record of a Claude Code or Codex session. */
export function foreignPeekFacts(agent: Exclude<AgentKind, 'pi'>, o: Record<string, unknown>): ForeignPeekFacts {
  const s = (v: unknown) => (typeof v === 'string' ? v : undefined);
  if (agent === 'claude-code') {
    if (o.type === 'summary') return { name: s(o.summary) };
    if (o.type === 'custom-title') return { name: s(o.customTitle) };
    if (o.type === 'agent-name') return { name: s(o.agentName) };
    if (o.type === 'queue-operation') return o.operation === 'enqueue' ? { enqueued: s(o.timestamp) } : {};
    const m = isRecord(o.message) ? o.message : undefined;
    const facts: ForeignPeekFacts = { id: s(o.sessionId), cwd: s(o.cwd), started: s(o.timestamp) };
    if (o.type === 'user' && o.isMeta !== true && o.isCompactSummary !== true && !isClaudeAutomatedRecord(o) && m) {
      const text = textOf(m.content);
      if (text && !isAgentWrittenRequest(agent, text)) facts.userText = text;
    }
    return facts;
  }
  const p = isRecord(o.payload) ? o.payload : undefined;
  if (!p) return {};
  if (o.type === 'session_meta') return { id: s(p.id), cwd: s(p.cwd), started: s(p.timestamp) ?? s(o.timestamp) };
  if (o.type === 'response_item' && p.type === 'message' && p.role === 'user') {
    const text = textOf(p.content);
    return text && !isAgentWrittenRequest(agent, text) ? { userText: text } : {};
  }
  return {};
}

function textOf(content: unknown): string {
  return userBlocks(content)
    .map((b) => (b.type === 'text' ? b.text : ''))
    .join('\n')
    .trim();
}
