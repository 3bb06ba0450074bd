import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

/**
 * Deterministic generators of large Claude Code transcripts and Codex CLI
 * rollouts, in the formats' documented shapes (no one's real transcript):
 * turns of a user request, an assistant answer streamed as several records
 * (thinking, text, a Read/Edit/Bash call), its tool result with sizeable
 * output, and a compaction every `compactionEvery` turns. For the 100 MB
 * test and the reading bench (bench/agentsRead.ts).
 */
export interface AgentSessionOptions {
  file: string;
  targetBytes: number;
  /** A compaction every this many turns (default 80). */
  compactionEvery?: number;
}

export interface GeneratedAgentSession {
  bytes: number;
  lines: number;
  turns: number;
  compactions: number;
}

const WORDS = 'the a function module test file error value result config parser tree branch session token summary index build cache'.split(
  ' ',
);

function writer(file: string) {
  const out = createWriteStream(file);
  const state = { bytes: 0, lines: 0 };
  return {
    state,
    async write(obj: unknown) {
      const line = JSON.stringify(obj) + '\n';
      state.bytes += Buffer.byteLength(line);
      state.lines++;
      if (!out.write(line)) await once(out, 'drain');
    },
    async end() {
      out.end();
      await once(out, 'finish');
    },
  };
}

function words(k: number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += (i ? ' ' : '') + WORDS[(k * 7 + i * 13) % WORDS.length];
  return s;
}

export async function generateClaudeCodeSession(options: AgentSessionOptions): Promise<GeneratedAgentSession> {
  const w = writer(options.file);
  const every = options.compactionEvery ?? 80;
  const base = { isSidechain: false, userType: 'external', cwd: '/home/user/bench-project', sessionId: 'bench-claude', version: '1.0.80' };
  let t = Date.UTC(2026, 0, 1);
  const ts = () => new Date((t += 1000)).toISOString();
  let parent: string | null = null;
  let turns = 0;
  let compactions = 0;
  let n = 0;
  const id = () => `u${(++n).toString(16).padStart(8, '0')}`;
  const rec = async (o: Record<string, unknown>) => {
    const uuid = id();
    await w.write({ parentUuid: parent, ...base, ...o, uuid, timestamp: ts() });
    parent = uuid;
  };
  await w.write({ type: 'summary', summary: 'Bench session', leafUuid: 'none' });
  while (w.state.bytes < options.targetBytes) {
    turns++;
    if (turns % every === 0) {
      const logical = parent;
      parent = null;
      await rec({
        type: 'system',
        subtype: 'compact_boundary',
        logicalParentUuid: logical,
        content: 'Conversation compacted',
        compactMetadata: { trigger: 'auto', preTokens: 150000 },
      });
      await rec({
        type: 'user',
        isCompactSummary: true,
        message: { role: 'user', content: `Summary ${compactions++}: ${words(turns, 200)}` },
      });
    }
    await rec({ type: 'user', message: { role: 'user', content: `Request ${turns}: ${words(turns, 30)}` } });
    const mid = `msg_${turns}`;
    const usage = { input_tokens: 10, cache_creation_input_tokens: 200, cache_read_input_tokens: 20000, output_tokens: 300 };
    const tool = ['Read', 'Edit', 'Bash'][turns % 3];
    const input =
      tool === 'Read'
        ? { file_path: `/home/user/bench-project/src/f${turns % 50}.ts` }
        : tool === 'Edit'
          ? { file_path: `/home/user/bench-project/src/f${turns % 50}.ts`, old_string: words(turns, 8), new_string: words(turns + 1, 8) }
          : { command: `npm test -- ${turns % 9}` };
    const msg = (content: unknown[], stop: string | null) => ({
      id: mid,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content,
      stop_reason: stop,
      usage,
    });
    await rec({ type: 'assistant', message: msg([{ type: 'thinking', thinking: words(turns, 120), signature: 'sig' }], null) });
    await rec({ type: 'assistant', message: msg([{ type: 'text', text: words(turns + 3, 60) }], null) });
    await rec({ type: 'assistant', message: msg([{ type: 'tool_use', id: `toolu_${turns}`, name: tool, input }], 'tool_use') });
    const output = words(turns, 1500);
    await rec({
      type: 'user',
      message: {
        role: 'user',
        content: [{ tool_use_id: `toolu_${turns}`, type: 'tool_result', content: output, is_error: turns % 17 === 0 }],
      },
      toolUseResult:
        tool === 'Read'
          ? { type: 'text', file: { filePath: input.file_path, content: output, numLines: 1, startLine: 1, totalLines: 1 } }
          : { stdout: output },
    });
    await rec({ type: 'assistant', message: msg([{ type: 'text', text: `Done with ${turns}.` }], 'end_turn') });
  }
  await w.end();
  return { bytes: w.state.bytes, lines: w.state.lines, turns, compactions };
}

export async function generateCodexSession(options: AgentSessionOptions): Promise<GeneratedAgentSession> {
  const w = writer(options.file);
  const every = options.compactionEvery ?? 80;
  let t = Date.UTC(2026, 0, 1);
  const line = (type: string, payload: unknown) => w.write({ timestamp: new Date((t += 1000)).toISOString(), type, payload });
  await line('session_meta', {
    id: 'bench-codex',
    timestamp: new Date(t).toISOString(),
    cwd: '/home/user/bench-project',
    originator: 'codex_cli_rs',
    cli_version: '0.50.0',
  });
  await line('response_item', {
    type: 'message',
    role: 'user',
    content: [{ type: 'input_text', text: '<environment_context>\n  <cwd>/home/user/bench-project</cwd>\n</environment_context>' }],
  });
  await line('turn_context', { cwd: '/home/user/bench-project', model: 'gpt-5-codex', effort: 'medium' });
  let turns = 0;
  let compactions = 0;
  while (w.state.bytes < options.targetBytes) {
    turns++;
    if (turns % every === 0) {
      compactions++;
      await line('compacted', { message: `Summary ${compactions}: ${words(turns, 200)}` });
    }
    await line('response_item', {
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: `Request ${turns}: ${words(turns, 30)}` }],
    });
    await line('response_item', {
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: words(turns, 120) }],
      content: null,
      encrypted_content: 'gAAAA',
    });
    await line('response_item', {
      type: 'function_call',
      name: 'shell',
      arguments: JSON.stringify({ command: ['bash', '-lc', `cat src/f${turns % 50}.ts`] }),
      call_id: `call_${turns}`,
    });
    await line('response_item', {
      type: 'function_call_output',
      call_id: `call_${turns}`,
      output: JSON.stringify({ output: words(turns, 1500), metadata: { exit_code: turns % 17 === 0 ? 1 : 0 } }),
    });
    await line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: words(turns + 3, 60) }] });
    const usage = { input_tokens: 20000, cached_input_tokens: 18000, output_tokens: 300, total_tokens: 20300 };
    await line('event_msg', {
      type: 'token_count',
      info: { total_token_usage: usage, last_token_usage: usage, model_context_window: 272000 },
    });
  }
  await w.end();
  return { bytes: w.state.bytes, lines: w.state.lines, turns, compactions };
}
