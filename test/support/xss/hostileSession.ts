// Builds a Pi session whose every user-controlled string is an XSS payload from
// test/fixtures/xss/payloads.json: the session name, user messages, tool calls and tool output,
// labels, a branch summary and a compaction (their text and their read/modified file lists).
import * as fs from 'fs';
import { fixturePath } from '../fixtures';

export interface XssPayload {
  id: string;
  payload: string;
  what: string;
}

/** The payloads with {{CANARY}} replaced by `canaryUrl` (a server that must never be contacted). */
export function loadPayloads(canaryUrl: string): XssPayload[] {
  const raw = JSON.parse(fs.readFileSync(fixturePath('xss', 'payloads.json'), 'utf8')) as { payloads: XssPayload[] };
  return raw.payloads.map((p) => ({ ...p, payload: p.payload.split('{{CANARY}}').join(canaryUrl) }));
}

export interface HostileSession {
  /** The JSONL text. */
  text: string;
  title: string;
  compactionId: string;
  branchSummaryId: string;
  /** The markdown bullet line of each payload in both summaries ("<id>: <payload>"). */
  bullet(p: XssPayload): string;
}

export const XSS_TITLE_PREFIX = 'XSS gallery';

/**
 * Main path: session name, a first question, a branch summary (of a side branch holding every
 * payload as a user message, a tool call and a tool result), then every payload again as a user
 * message with a label, a tool call and a tool result, then a compaction of all that, and a leaf.
 */
export function hostileSession(payloads: XssPayload[], options: { cwd: string; sessionId?: string }): HostileSession {
  let n = 0;
  const id = () => (0x5e000000 + ++n).toString(16);
  let t = Date.UTC(2026, 10, 1, 12);
  const ts = () => new Date((t += 1000)).toISOString();
  const lines: object[] = [
    { type: 'session', version: 3, id: options.sessionId ?? '0a550000-0000-7000-8000-0000000000x5', timestamp: ts(), cwd: options.cwd },
  ];
  let leaf: string | null = null;
  const add = (e: Record<string, unknown>): string => {
    const entryId = id();
    lines.push({ ...e, id: entryId, parentId: leaf, timestamp: ts() });
    leaf = entryId;
    return entryId;
  };
  const message = (m: Record<string, unknown>) => add({ type: 'message', message: { ...m, timestamp: t } });
  const assistant = (content: unknown[], stopReason = 'stop') =>
    message({
      role: 'assistant',
      content,
      api: 'openai-responses',
      provider: 'openai',
      model: 'gpt-4.1',
      usage: { input: 100, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: 110 },
      stopReason,
    });
  const turn = (p: XssPayload, withLabel: boolean) => {
    const user = message({ role: 'user', content: [{ type: 'text', text: p.payload }] });
    const callId = `call_${p.id}`;
    assistant(
      [
        { type: 'text', text: p.payload },
        { type: 'toolCall', id: callId, name: 'read', arguments: { path: p.payload } },
      ],
      'toolUse',
    );
    message({ role: 'toolResult', toolCallId: callId, toolName: 'read', content: [{ type: 'text', text: p.payload }], isError: false });
    if (withLabel) add({ type: 'label', targetId: user, label: p.payload });
  };
  const bullet = (p: XssPayload) => `${p.id}: ${p.payload}`;
  const summary = (kind: string) =>
    ['## Goal', `- ${kind} with every payload below`, '', '## Critical Context', ...payloads.map((p) => `- ${bullet(p)}`)].join('\n');
  const files = { readFiles: payloads.map((p) => p.payload), modifiedFiles: [...payloads].reverse().map((p) => p.payload) };

  const title = `${XSS_TITLE_PREFIX} ${payloads[0].payload}`;
  add({ type: 'session_info', name: title });
  const start = message({ role: 'user', content: [{ type: 'text', text: 'Show me the gallery' }] });
  for (const p of payloads) turn(p, false);
  const abandoned = leaf!;
  leaf = start;
  const branchSummaryId = add({ type: 'branch_summary', fromId: abandoned, summary: summary('Branch summary'), details: files });
  for (const p of payloads) turn(p, true);
  const kept = message({ role: 'user', content: [{ type: 'text', text: 'Keep this part' }] });
  assistant([{ type: 'text', text: 'Kept.' }]);
  const compactionId = add({
    type: 'compaction',
    summary: summary('Compaction'),
    firstKeptEntryId: kept,
    tokensBefore: 50000,
    details: files,
  });
  message({ role: 'user', content: [{ type: 'text', text: 'After the compaction' }] });
  return { text: lines.map((l) => JSON.stringify(l)).join('\n') + '\n', title, compactionId, branchSummaryId, bullet };
}
