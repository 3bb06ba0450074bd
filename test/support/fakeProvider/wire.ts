/**
 * Payloads of the real OpenAI Chat Completions and Anthropic Messages wire
 * formats, as the fake server sends them (JSON bodies and SSE frames).
 */

export interface FakeUsage {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

export interface FakeAnswer {
  text: string;
  /** 'stop' | 'length' | 'tool' | 'content_filter' (a refusal: OpenAI finish_reason content_filter, Anthropic stop_reason refusal) */
  finish: 'stop' | 'length' | 'tool' | 'content_filter';
  tool?: { name: string; arguments: Record<string, unknown> };
  /** Several tool calls in one answer (used instead of `tool` when given). */
  tools?: { name: string; arguments: Record<string, unknown> }[];
  usage: FakeUsage;
}

/** The answer's tool calls: `tools`, else `tool`, else none. */
export function toolsOf(a: FakeAnswer): { name: string; arguments: Record<string, unknown> }[] {
  return a.tools ?? (a.tool ? [a.tool] : []);
}

let counter = 0;
const nextId = (prefix: string) => `${prefix}_${(++counter).toString(16).padStart(8, '0')}`;

/** Splits `text` into pieces of about `size` characters (at least one piece, possibly empty). */
export function pieces(text: string, size: number): string[] {
  if (!text) return [];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += Math.max(1, size)) out.push(text.slice(i, i + Math.max(1, size)));
  return out;
}

// ---------------------------------------------------------------------------
// OpenAI Chat Completions

const openaiFinish = (f: FakeAnswer['finish']) => (f === 'tool' ? 'tool_calls' : f);

function openaiUsage(u: FakeUsage) {
  const prompt = u.input + (u.cacheRead ?? 0);
  return {
    prompt_tokens: prompt,
    completion_tokens: u.output,
    total_tokens: prompt + u.output,
    prompt_tokens_details: { cached_tokens: u.cacheRead ?? 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

export function openaiCompletion(model: string, a: FakeAnswer) {
  const tools = toolsOf(a);
  const toolCalls = tools.length
    ? tools.map((t) => ({ id: nextId('call'), type: 'function', function: { name: t.name, arguments: JSON.stringify(t.arguments) } }))
    : undefined;
  return {
    id: nextId('chatcmpl'),
    object: 'chat.completion',
    created: 1767225600,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: toolCalls && !a.text ? null : a.text,
          refusal: null,
          annotations: [],
          ...(toolCalls ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: openaiFinish(a.finish),
      },
    ],
    usage: openaiUsage(a.usage),
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
  };
}

/** SSE `data:` payloads of a streamed completion, before `[DONE]`. `upTo` limits the text pieces sent (for cut streams). */
export function openaiChunks(model: string, a: FakeAnswer, opts: { chunkSize: number; includeUsage: boolean; upTo?: number }): object[] {
  const id = nextId('chatcmpl');
  const base = { id, object: 'chat.completion.chunk', created: 1767225600, model, system_fingerprint: 'fp_fake' };
  const chunk = (delta: object, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const out: object[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  const textPieces = pieces(a.text, opts.chunkSize);
  const sent = opts.upTo === undefined ? textPieces : textPieces.slice(0, opts.upTo);
  for (const p of sent) out.push(chunk({ content: p }));
  if (opts.upTo !== undefined) return out;
  toolsOf(a).forEach((t, index) => {
    out.push(chunk({ tool_calls: [{ index, id: nextId('call'), type: 'function', function: { name: t.name, arguments: '' } }] }));
    out.push(chunk({ tool_calls: [{ index, function: { arguments: JSON.stringify(t.arguments) } }] }));
  });
  out.push(chunk({}, openaiFinish(a.finish)));
  if (opts.includeUsage) out.push({ ...base, choices: [], usage: openaiUsage(a.usage) });
  return out;
}

export function openaiError(status: number, message: string) {
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { error: { message, type, param: null, code: status === 429 ? 'rate_limit_exceeded' : null } };
}

// ---------------------------------------------------------------------------
// Anthropic Messages

const anthropicStop = (f: FakeAnswer['finish']) =>
  f === 'tool' ? 'tool_use' : f === 'length' ? 'max_tokens' : f === 'content_filter' ? 'refusal' : 'end_turn';

function anthropicUsage(u: FakeUsage) {
  return {
    input_tokens: u.input,
    output_tokens: u.output,
    cache_creation_input_tokens: u.cacheWrite ?? 0,
    cache_read_input_tokens: u.cacheRead ?? 0,
    service_tier: 'standard',
  };
}

export function anthropicMessage(model: string, a: FakeAnswer) {
  const content: object[] = [];
  const tools = toolsOf(a);
  if (a.text || !tools.length) content.push({ type: 'text', text: a.text, citations: null });
  for (const t of tools) content.push({ type: 'tool_use', id: nextId('toolu'), name: t.name, input: t.arguments });
  return {
    id: nextId('msg'),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: anthropicStop(a.finish),
    stop_sequence: null,
    usage: anthropicUsage(a.usage),
  };
}

/** SSE events ([event name, data]) of a streamed message. `upTo` limits the text pieces sent (for cut streams). */
export function anthropicEvents(model: string, a: FakeAnswer, opts: { chunkSize: number; upTo?: number }): [string, object][] {
  const out: [string, object][] = [];
  const startUsage = { ...anthropicUsage(a.usage), output_tokens: 1 };
  out.push([
    'message_start',
    {
      type: 'message_start',
      message: {
        id: nextId('msg'),
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: startUsage,
      },
    },
  ]);
  out.push(['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }]);
  out.push(['ping', { type: 'ping' }]);
  const textPieces = pieces(a.text, opts.chunkSize);
  const sent = opts.upTo === undefined ? textPieces : textPieces.slice(0, opts.upTo);
  for (const p of sent)
    out.push(['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: p } }]);
  if (opts.upTo !== undefined) return out;
  out.push(['content_block_stop', { type: 'content_block_stop', index: 0 }]);
  toolsOf(a).forEach((t, i) => {
    const index = i + 1;
    out.push([
      'content_block_start',
      { type: 'content_block_start', index, content_block: { type: 'tool_use', id: nextId('toolu'), name: t.name, input: {} } },
    ]);
    out.push([
      'content_block_delta',
      { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(t.arguments) } },
    ]);
    out.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  out.push([
    'message_delta',
    {
      type: 'message_delta',
      delta: { stop_reason: anthropicStop(a.finish), stop_sequence: null },
      usage: {
        output_tokens: a.usage.output,
        input_tokens: a.usage.input,
        cache_creation_input_tokens: a.usage.cacheWrite ?? 0,
        cache_read_input_tokens: a.usage.cacheRead ?? 0,
      },
    },
  ]);
  out.push(['message_stop', { type: 'message_stop' }]);
  return out;
}

export function anthropicError(status: number, message: string) {
  const type =
    status === 429
      ? 'rate_limit_error'
      : status === 529
        ? 'overloaded_error'
        : status >= 500
          ? 'api_error'
          : status === 401
            ? 'authentication_error'
            : 'invalid_request_error';
  return { type: 'error', error: { type, message } };
}
