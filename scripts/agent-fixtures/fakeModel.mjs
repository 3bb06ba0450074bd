// A scripted local model for driving the real Claude Code and Codex CLIs (dev-only; nothing leaves 127.0.0.1).
// Speaks Anthropic Messages (POST /v1/messages, SSE) and OpenAI Responses (POST /v1/responses, SSE).
// The answer is chosen from the request: the newest typed prompt holds a tag `[scene:NAME]`; the number of
// model answers since that prompt picks the step of SCENES[NAME]. A request with no tag (titles, summaries,
// side requests) gets a plain text answer (a summary when the request asks for one).
import * as http from 'node:http';
import { appendFileSync } from 'node:fs';

const LOG = process.env.FAKE_MODEL_LOG;
const BIG = 190_000;

/** Each step: { text?, tools?: [{name, input}], usage?: {input, output} }. Tool names per wire: claude / codex. */
export const SCENES = {
  hello: [{ text: 'Hello! Ready to help.' }],
  read: [{ tools: [{ name: 'Read', input: { file_path: '@/notes.txt' } }] }, { text: 'The notes say hello.' }],
  parallel: [
    {
      text: 'Reading and writing in parallel.',
      tools: [
        { name: 'Read', input: { file_path: '@/notes.txt' } },
        { name: 'Write', input: { file_path: '@/out.txt', content: 'written by the fake model\n' } },
      ],
    },
    { text: 'Both done.' },
  ],
  replaceall: [
    { tools: [{ name: 'Edit', input: { file_path: '@/notes.txt', old_string: 'hello', new_string: 'howdy', replace_all: true } }] },
    { text: 'Replaced every hello.' },
  ],
  fail: [{ tools: [{ name: 'Bash', input: { command: 'exit 3', description: 'fail on purpose' } }] }, { text: 'It exited 3.' }],
  subagent: [
    { tools: [{ name: 'Agent', input: { description: 'look around', prompt: '[scene:subtask] list the files', subagent_type: 'general-purpose' } }] },
    { text: 'The subagent looked around.' },
  ],
  subtask: [{ tools: [{ name: 'Bash', input: { command: 'ls', description: 'list files' } }] }, { text: 'Two files: notes.txt, out.txt.' }],
  big: [
    { tools: [{ name: 'Bash', input: { command: 'echo big', description: 'echo' } }], usage: { input: BIG, output: 50 } },
    { tools: [{ name: 'Bash', input: { command: 'echo after', description: 'echo' } }], usage: { input: BIG, output: 50 } },
    { text: 'Finished the big turn.' },
  ],
  think: [{ thinking: 'Let me think about this carefully.', text: 'Thought about it.' }],
  write_one: [{ tools: [{ name: 'Write', input: { file_path: '@/out.txt', content: 'version 1\n' } }] }, { text: 'Wrote version 1.' }],
  write_two: [{ tools: [{ name: 'Write', input: { file_path: '@/out.txt', content: 'version 2\n' } }] }, { text: 'Wrote version 2.' }],
  // Codex
  cx_shell: [{ tools: [{ name: 'exec_command', input: { cmd: 'cat notes.txt' } }] }, { text: 'The notes say hello.' }],
  cx_fail: [{ tools: [{ name: 'exec_command', input: { cmd: 'echo failing >&2; exit 3' } }] }, { text: 'It exited 3.' }],
  cx_patch: [
    {
      tools: [
        {
          name: 'apply_patch',
          custom: true,
          input:
            '*** Begin Patch\n*** Add File: added.txt\n+new file\n*** Update File: notes.txt\n@@\n-hello world\n+hello patched\n*** Delete File: gone.txt\n*** End Patch\n',
        },
      ],
    },
    { text: 'Patched three files.' },
  ],
  cx_think: [{ reasoning: 'Weighing the options with more effort.', text: 'Thought harder.' }],
  cx_big: [
    { tools: [{ name: 'exec_command', input: { cmd: 'echo big' } }], usage: { input: 20_000, output: 30 } },
    { text: 'Finished the big turn.', usage: { input: 60_990, output: 40 } },
  ],
};

let seq = 0;
const nextId = (p) => `${p}_${String(++seq).padStart(6, '0')}`;
const log = (o) => LOG && appendFileSync(LOG, JSON.stringify(o) + '\n');

function resolvePath(s, cwd) {
  return typeof s === 'string' ? s.replace(/^@/, cwd) : s;
}
function fill(input, cwd) {
  const out = {};
  for (const [k, v] of Object.entries(input)) out[k] = resolvePath(v, cwd);
  return out;
}

/** Plain text of any content shape. */
function textOf(c) {
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return '';
  return c.map((b) => (typeof b === 'string' ? b : typeof b?.text === 'string' ? b.text : '')).join('\n');
}

/** Anthropic: the scene tag of the newest typed prompt (a user message without tool results), and the model answers since it. */
function anthropicStep(body) {
  const msgs = body.messages ?? [];
  let answers = 0;
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    if (m.role === 'assistant') answers++;
    else if (!(Array.isArray(m.content) && m.content.some((b) => b?.type === 'tool_result'))) {
      const tag = /\[scene:([a-z_]+)\]/.exec(textOf(m.content));
      return tag ? { scene: tag[1], step: answers } : undefined;
    }
  }
  return undefined;
}

/** Codex: the same over Responses input items (a model answer is a run of assistant items). */
function codexStep(body) {
  const items = body.input ?? [];
  let answers = 0;
  let inAnswer = false;
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i];
    const assistantItem = (it.type === 'message' && it.role === 'assistant') || /_call$/.test(it.type ?? '') || it.type === 'reasoning';
    if (assistantItem && !inAnswer) answers++;
    inAnswer = assistantItem;
    if (it.type === 'message' && it.role === 'user') {
      const t = textOf(it.content);
      if (/^\s*<(environment_context|user_instructions|turn_aborted)/.test(t)) continue;
      const tag = /\[scene:([a-z_]+)\]/.exec(t);
      return tag ? { scene: tag[1], step: answers } : undefined;
    }
  }
  return undefined;
}

function sideText(body, wire) {
  const all = JSON.stringify(wire === 'anthropic' ? [body.system, body.messages?.at(-1)] : [body.instructions, body.input?.at(-1)]);
  if (/summar/i.test(all)) return '<summary>\n1. Primary request: the user asked for small file tasks in a scratch project.\n2. Files: notes.txt, out.txt.\n3. Next step: wait for the next request.\n</summary>';
  if (/title/i.test(all)) return '{"title": "Scratch project tasks"}';
  return 'ok';
}

/** A compaction's summarization request (its instruction ends the newest message, even mid-turn after tool results). */
function asksForSummary(body, wire) {
  const last = wire === 'anthropic' ? body.messages?.at(-1) : body.input?.at(-1);
  return /TEXT ONLY|summar/i.test(textOf(last?.content)) && !/\[scene:/.test(textOf(last?.content));
}

function pick(body, wire, cwd) {
  const at = asksForSummary(body, wire) ? undefined : wire === 'anthropic' ? anthropicStep(body) : codexStep(body);
  const steps = at && SCENES[at.scene];
  if (!steps) return { text: sideText(body, wire), usage: { input: 2000, output: 120 } };
  const step = steps[Math.min(at.step, steps.length - 1)];
  return { ...step, tools: step.tools?.map((t) => ({ ...t, input: typeof t.input === 'string' ? t.input : fill(t.input, cwd) })) };
}

function sse(res, events) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [event, data] of events) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  res.end();
}

function anthropic(res, body, step) {
  const id = nextId('msg');
  const usage = { input_tokens: step.usage?.input ?? 1200, output_tokens: step.usage?.output ?? 40, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  const ev = [['message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } }]];
  let index = 0;
  if (step.thinking) {
    ev.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }]);
    ev.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: step.thinking } }]);
    ev.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: 'c2lnbmF0dXJl' } }]);
    ev.push(['content_block_stop', { type: 'content_block_stop', index: index++ }]);
  }
  if (step.text) {
    ev.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }]);
    ev.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: step.text } }]);
    ev.push(['content_block_stop', { type: 'content_block_stop', index: index++ }]);
  }
  for (const t of step.tools ?? []) {
    ev.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: nextId('toolu'), name: t.name, input: {} } }]);
    ev.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(t.input) } }]);
    ev.push(['content_block_stop', { type: 'content_block_stop', index: index++ }]);
  }
  ev.push(['message_delta', { type: 'message_delta', delta: { stop_reason: step.tools?.length ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }]);
  ev.push(['message_stop', { type: 'message_stop' }]);
  if (body.stream === false) {
    res.writeHead(200, { 'content-type': 'application/json' });
    const content = [];
    if (step.text) content.push({ type: 'text', text: step.text });
    for (const t of step.tools ?? []) content.push({ type: 'tool_use', id: nextId('toolu'), name: t.name, input: t.input });
    res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model: body.model, content, stop_reason: step.tools?.length ? 'tool_use' : 'end_turn', usage }));
    return;
  }
  sse(res, ev);
}

function responses(res, body, step) {
  const id = nextId('resp');
  const output = [];
  if (step.reasoning) output.push({ type: 'reasoning', id: nextId('rs'), summary: [{ type: 'summary_text', text: step.reasoning }], encrypted_content: 'ZmFrZQ==' });
  if (step.text) output.push({ type: 'message', id: nextId('msg'), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: step.text, annotations: [] }] });
  for (const t of step.tools ?? []) {
    if (t.custom) output.push({ type: 'custom_tool_call', id: nextId('ctc'), status: 'completed', call_id: nextId('call'), name: t.name, input: t.input });
    else output.push({ type: 'function_call', id: nextId('fc'), status: 'completed', call_id: nextId('call'), name: t.name, arguments: JSON.stringify(t.input) });
  }
  const input = step.usage?.input ?? 1500;
  const out = step.usage?.output ?? 40;
  const usage = { input_tokens: input, input_tokens_details: { cached_tokens: 0 }, output_tokens: out, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: input + out };
  const ev = [['response.created', { type: 'response.created', response: { id, status: 'in_progress', output: [] } }]];
  output.forEach((item, i) => {
    ev.push(['response.output_item.added', { type: 'response.output_item.added', output_index: i, item: { ...item, ...(item.type === 'message' ? { content: [] } : {}) } }]);
    if (item.type === 'message') ev.push(['response.output_text.delta', { type: 'response.output_text.delta', output_index: i, content_index: 0, item_id: item.id, delta: step.text }]);
    ev.push(['response.output_item.done', { type: 'response.output_item.done', output_index: i, item }]);
  });
  ev.push(['response.completed', { type: 'response.completed', response: { id, status: 'completed', output, usage } }]);
  sse(res, ev);
}

/** `onRequest(wire, body)` hears every model request (the generator records what Codex sent). */
export function startFakeModel({ cwd, port = 0, onRequest }) {
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      let body = {};
      try {
        body = JSON.parse(raw || '{}');
      } catch {}
      const url = req.url ?? '';
      if (process.env.FAKE_MODEL_DUMP) appendFileSync(process.env.FAKE_MODEL_DUMP, raw + '\n');
      log({ method: req.method, url, model: body.model, tools: Array.isArray(body.tools) ? body.tools.map((t) => t.name ?? t.type).join(",") : undefined, last: JSON.stringify(body.messages?.at?.(-1) ?? body.input?.at?.(-1) ?? null).slice(0, 300) });
      if (req.method === 'POST' && url.startsWith('/v1/messages/count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ input_tokens: 1000 }));
      }
      if (req.method === 'POST' && url.startsWith('/v1/responses')) onRequest?.('openai', body);
      if (req.method === 'POST' && url.startsWith('/v1/messages')) return anthropic(res, body, pick(body, 'anthropic', cwd()));
      if (req.method === 'POST' && url.startsWith('/v1/responses')) return responses(res, body, pick(body, 'openai', cwd()));
      if (url.startsWith('/v1/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ data: [], models: [] }));
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `not served: ${req.method} ${url}` } }));
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const s = await startFakeModel({ cwd: () => process.env.FAKE_CWD ?? process.cwd(), port: Number(process.env.PORT ?? 0) });
  console.log(s.address().port);
}
