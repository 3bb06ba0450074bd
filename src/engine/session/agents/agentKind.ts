import { isRecord } from '../jsonObject';

/**
 * Which coding agent wrote a session file. Arbor writes only Pi's; Claude
 * Code's transcripts and Codex CLI's rollouts are read into the same index
 * (claudeCode.ts, codex.ts) and are read-only (readOnly.ts).
 */
export type AgentKind = 'pi' | 'claude-code' | 'codex';

export const AGENT_KINDS: readonly AgentKind[] = ['pi', 'claude-code', 'codex'];

/** The agent's name as people know it. */
export function agentName(agent: AgentKind): string {
  return agent === 'claude-code' ? 'Claude Code' : agent === 'codex' ? 'Codex' : 'Pi';
}

const CODEX_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
const CLAUDE_TYPES = new Set([
  'user',
  'assistant',
  'system',
  'summary',
  'file-history-snapshot',
  'queue-operation',
  'progress',
  'attachment',
]);

/**
 * The agent whose record a parsed line is, by its content (never the file
 * name): Pi's header is `{"type":"session",...}`; a Codex rollout line is
 * `{timestamp, type, payload}` with one of its record types; a Claude Code
 * record has one of its types and its own keys (`uuid`/`parentUuid`,
 * `sessionId`, a summary's `leafUuid`, a snapshot's `messageId`).
 */
export function agentOfRecord(value: unknown): AgentKind | undefined {
  if (!isRecord(value) || typeof value.type !== 'string') return undefined;
  if (value.type === 'session') return 'pi';
  if (CODEX_TYPES.has(value.type) && isRecord(value.payload)) return 'codex';
  if (
    CLAUDE_TYPES.has(value.type) &&
    ('parentUuid' in value || 'uuid' in value || 'sessionId' in value || 'leafUuid' in value || 'messageId' in value)
  )
    return 'claude-code';
  return undefined;
}

/** Lines looked at to tell the format (a malformed first line does not hide what the next ones are). */
const SNIFF_LINES = 20;

/**
 * The agent of a file from its first bytes: the first line that parses and
 * tells decides. A first line longer than `head` is told from how it starts.
 * Undefined when nothing tells (the Pi reader then gives its own error).
 */
export function agentOfHead(head: Buffer, eof: boolean): AgentKind | undefined {
  let pos = head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  let looked = 0;
  while (pos < head.length && looked < SNIFF_LINES) {
    const nl = head.indexOf(10, pos);
    if (nl < 0 && !eof) return agentOfPrefix(head.toString('utf8', pos, Math.min(head.length, pos + 4096)));
    const end = nl < 0 ? head.length : nl;
    const text = head.toString('utf8', pos, end).trim();
    pos = end + 1;
    if (!text) continue;
    looked++;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue;
    }
    const agent = agentOfRecord(value);
    if (agent) return agent;
    if (looked === 1 && isRecord(value) && value.type === 'session') return 'pi';
  }
  return undefined;
}

/** A line too long to parse here, told from its first keys. */
function agentOfPrefix(text: string): AgentKind | undefined {
  const t = text.trimStart();
  if (/^\{\s*"type"\s*:\s*"session"/.test(t)) return 'pi';
  if (/^\{\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*"type"\s*:\s*"(session_meta|response_item|event_msg|turn_context|compacted)"/.test(t))
    return 'codex';
  if (/^\{\s*"(parentUuid|leafUuid)"\s*:/.test(t)) return 'claude-code';
  return undefined;
}

/** The context window a session reports itself (Codex's token_count, kept in the converted header), else undefined. */
export function recordedContextWindow(session: { header: Record<string, unknown> }): number | undefined {
  const w = session.header.contextWindow;
  return typeof w === 'number' && Number.isFinite(w) && w > 0 ? w : undefined;
}
