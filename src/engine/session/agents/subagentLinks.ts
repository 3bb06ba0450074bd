import type { SessionIndex } from '../sessionIndex';

/** Steps walked up from a tool result to the call that made it (results of parallel calls follow each other). */
const MAX_RESULT_STEPS = 64;

/**
 * The subagent transcripts of a session, by entry id: a Claude Code Agent/Task call's result names the transcript
 * of the subagent it ran (`details.subagentFile`, `<session>/subagents/agent-<id>.jsonl`, claudeCode.ts); the result
 * and the assistant entry holding the call both map to it. Empty for any other agent's session (nothing is read).
 */
export function subagentFiles(index: SessionIndex): ReadonlyMap<string, readonly string[]> {
  const out = new Map<string, string[]>();
  if (index.agent !== 'claude-code') return out;
  const add = (id: string, file: string) => {
    const list = out.get(id);
    if (!list) out.set(id, [file]);
    else if (!list.includes(file)) list.push(file);
  };
  for (let i = 0; i < index.entryCount; i++) {
    const rec = index.record(i);
    if (rec.type !== 'message' || rec.role !== 'toolResult') continue;
    const m = index.entryOfType(i, 'message')?.message;
    const file = m?.role === 'toolResult' ? subagentFileOf(m.details) : undefined;
    if (m?.role !== 'toolResult' || file === undefined) continue;
    add(rec.id, file);
    const call = callEntry(index, i, m.toolCallId);
    if (call >= 0) add(index.record(call).id, file);
  }
  return out;
}

function subagentFileOf(details: unknown): string | undefined {
  const f = typeof details === 'object' && details !== null ? (details as { subagentFile?: unknown }).subagentFile : undefined;
  return typeof f === 'string' && f ? f : undefined;
}

/** The assistant entry above result `i` holding call `toolCallId` (-1 when not within MAX_RESULT_STEPS). */
function callEntry(index: SessionIndex, i: number, toolCallId: string): number {
  for (let at = index.parentIndex(i), steps = 0; at >= 0 && steps < MAX_RESULT_STEPS; at = index.parentIndex(at), steps++) {
    const rec = index.record(at);
    if (rec.type !== 'message' || rec.role !== 'assistant') continue;
    const m = index.entryOfType(at, 'message')?.message;
    if (m?.role === 'assistant' && m.content.some((b) => b.type === 'toolCall' && b.id === toolCallId)) return at;
    return -1;
  }
  return -1;
}
