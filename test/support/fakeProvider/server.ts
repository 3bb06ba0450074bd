// Over 400 lines: one server whose scripted behaviours, request log and wire answers share one queue and one socket set.
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  anthropicError,
  anthropicEvents,
  anthropicMessage,
  openaiChunks,
  openaiCompletion,
  openaiError,
  type FakeAnswer,
  type FakeUsage,
} from './wire';

/**
 * An in-process fake LLM server on 127.0.0.1 (random port) that speaks the
 * OpenAI Chat Completions (`POST /v1/chat/completions`) and Anthropic
 * Messages (`POST /v1/messages`) wire formats, JSON and SSE. Each request
 * takes the next scripted behaviour from a queue; every request is recorded.
 */

export type Behaviour =
  /** A normal answer. */
  | { type: 'text'; text: string; usage?: FakeUsage; chunkSize?: number; chunkDelayMs?: number }
  /** A normal answer held back until the test calls `release()` (an agent's turn that lasts until the test says). */
  | { type: 'held'; text: string }
  /** An answer with no text. */
  | { type: 'empty'; usage?: FakeUsage }
  /** An answer cut at the output limit (finish_reason length / stop_reason max_tokens). */
  | { type: 'length'; text?: string; usage?: FakeUsage }
  /** The model calls a tool (or, with `calls`, several tools in one answer, in that order). */
  | {
      type: 'toolCall';
      name?: string;
      arguments?: Record<string, unknown>;
      calls?: { name: string; arguments: Record<string, unknown> }[];
      text?: string;
      usage?: FakeUsage;
    }
  /** An answer stopped by the provider's content filter (OpenAI finish_reason content_filter, Anthropic stop_reason refusal). */
  | { type: 'refusal'; text?: string; usage?: FakeUsage }
  /**
   * An HTTP error status with the API's error body (or `body`), and extra headers (e.g. retry-after).
   * `echoCredentials`: the error message repeats the request's Authorization / x-api-key headers, as a
   * careless proxy might (for tests that keys never reach logs or notifications).
   */
  | { type: 'status'; status: number; message?: string; body?: unknown; headers?: Record<string, string>; echoCredentials?: boolean }
  /** Accept the request and never answer (until the client goes away or the server stops). */
  | { type: 'hang' }
  /** Streaming: send the start of the answer and `pieces` text pieces, then go silent. Non-streaming: like hang. */
  | { type: 'stall'; text: string; pieces?: number }
  /** 200 with a JSON content type and a body that is not JSON (or `body`). */
  | { type: 'malformed'; body?: string }
  /** Send part of the answer, then destroy the connection (`clean`, streaming only: end the response properly instead, without finishing the answer). */
  | { type: 'cut'; text: string; pieces?: number; clean?: boolean }
  /** Destroy the connection before any response. */
  | { type: 'reset' }
  /**
   * A normal, successful answer (`text`) followed by the request's own API key (from its Authorization or
   * x-api-key header) in the given forms: raw, `Bearer <key>`, base64 of the key, of `user:key`, `:key` and
   * `key:`, and URL-encoded. For tests that no form of a key is ever written or shown.
   */
  | { type: 'echoKey'; text: string; forms?: KeyEchoForm[] }
  /**
   * A provider that never finishes: the answer's bytes (an endless stream of one-character deltas, or for
   * a non-streamed request an endless JSON body) sent one byte every `intervalMs`.
   */
  | { type: 'drip'; intervalMs: number }
  /** A complete, successful answer of `chars` characters ('x' lines), streamed in large pieces or as one JSON body. */
  | { type: 'huge'; chars: number }
  /**
   * A model that keeps exactly what the request asked it to keep (see keptAnswer): the user's lines of
   * the conversation, the earlier checkpoint, the files-touched and pinned-entries blocks. A prompt that
   * stops sending one of them gives an answer without it.
   */
  | { type: 'echoKept' };

/** The key altered as a provider can alter it (issue 20 item 6): case, encodings, separators between its characters, a part of it. */
export const ALTERED_KEY_ECHO_FORMS = [
  'upperCase',
  'mixedCase',
  'hex',
  'hexUpper',
  'percentEveryByte',
  'base64Wrapped',
  'spaced',
  'zeroWidth',
  'lineBroken',
  'allButLast',
  'middleRun',
] as const;
/**
 * The key obfuscated (issue 38 item 2): invisible, format and combining characters, Hangul fillers, the braille
 * blank or separators between its characters; compatibility forms; escapes and character references; hex in
 * other spellings; reversed, ROT13, base32.
 */
export const OBFUSCATED_KEY_ECHO_FORMS = [
  'inhibitSwapping',
  'graphemeJoiner',
  'variationSelector',
  'arabicLetterMark',
  'tagSpace',
  'combiningAccent',
  'hangulFiller',
  'brailleBlank',
  'dashed',
  'dotted',
  'piped',
  'fullWidth',
  'htmlDecimal',
  'htmlHex',
  'htmlNamedSeparators',
  'uEscapes',
  'xEscapes',
  'hexColons',
  'hex0x',
  'hexBackslashX',
  'reversed',
  'rot13',
  'base32',
] as const;
export type KeyEchoForm =
  | (typeof OBFUSCATED_KEY_ECHO_FORMS)[number]
  | 'raw'
  | 'bearer'
  | 'base64'
  | 'base64UserKey'
  | 'base64ColonKey'
  | 'base64KeyColon'
  | 'urlEncoded'
  | (typeof ALTERED_KEY_ECHO_FORMS)[number];
export const ALL_KEY_ECHO_FORMS: readonly KeyEchoForm[] = [
  'raw',
  'bearer',
  'base64',
  'base64UserKey',
  'base64ColonKey',
  'base64KeyColon',
  'urlEncoded',
  ...ALTERED_KEY_ECHO_FORMS,
  ...OBFUSCATED_KEY_ECHO_FORMS,
];

/** The API key a request carried (Authorization: Bearer … or x-api-key), or ''. */
export function requestKey(headers: http.IncomingHttpHeaders): string {
  const auth = String(headers.authorization ?? '');
  if (/^Bearer\s+/i.test(auth)) return auth.replace(/^Bearer\s+/i, '');
  return String(headers['x-api-key'] ?? '');
}

/** `key` in one echo form. */
export function keyEcho(key: string, form: KeyEchoForm): string {
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  switch (form) {
    case 'raw':
      return key;
    case 'bearer':
      return `Bearer ${key}`;
    case 'base64':
      return b64(key);
    case 'base64UserKey':
      return b64(`user:${key}`);
    case 'base64ColonKey':
      return b64(`:${key}`);
    case 'base64KeyColon':
      return b64(`${key}:`);
    case 'urlEncoded':
      return encodeURIComponent(key);
    case 'upperCase':
      return key.toUpperCase();
    case 'mixedCase':
      return [...key].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join('');
    case 'hex':
      return Buffer.from(key, 'utf8').toString('hex');
    case 'hexUpper':
      return Buffer.from(key, 'utf8').toString('hex').toUpperCase();
    case 'percentEveryByte':
      return Buffer.from(key, 'utf8').toString('hex').replace(/../g, '%$&').toUpperCase();
    case 'base64Wrapped':
      return (b64(key).match(/.{1,8}/g) ?? []).join('\r\n');
    case 'spaced':
      return [...key].join(' ');
    case 'zeroWidth':
      return [...key].join('\u200b');
    case 'lineBroken':
      return (key.match(/.{1,5}/g) ?? []).join('\n');
    case 'allButLast':
      return key.slice(0, -4);
    case 'middleRun':
      return key.slice(Math.floor(key.length / 2) - 6, Math.floor(key.length / 2) + 6);
    default:
      return obfuscated(key, form);
  }
}

const between = (key: string, sep: string) => [...key].join(sep);
const hexBytes = (key: string) => Buffer.from(key, 'utf8').toString('hex').match(/../g) ?? [];
const codes = (key: string, f: (code: number) => string) => [...key].map((c) => f(c.codePointAt(0)!)).join('');

/** RFC 4648 base32 of `bytes`, without padding (upper case). */
export function base32(bytes: Buffer): string {
  let bits = '';
  for (const b of bytes) bits += b.toString(2).padStart(8, '0');
  let out = '';
  for (let k = 0; k < bits.length; k += 5) out += 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[parseInt(bits.slice(k, k + 5).padEnd(5, '0'), 2)];
  return out;
}

function obfuscated(key: string, form: (typeof OBFUSCATED_KEY_ECHO_FORMS)[number]): string {
  switch (form) {
    case 'inhibitSwapping':
      return between(key, '\u206a');
    case 'graphemeJoiner':
      return between(key, '\u034f');
    case 'variationSelector':
      return between(key, '\ufe0f');
    case 'arabicLetterMark':
      return between(key, '\u061c');
    case 'tagSpace':
      return between(key, '\u{e0020}');
    case 'combiningAccent':
      return between(key, '\u0301');
    case 'hangulFiller':
      return between(key, '\u3164');
    case 'brailleBlank':
      return between(key, '\u2800');
    case 'dashed':
      return between(key, '-');
    case 'dotted':
      return between(key, '.');
    case 'piped':
      return between(key, '|');
    case 'fullWidth':
      return codes(key, (c) => String.fromCodePoint(c >= 0x21 && c <= 0x7e ? c + 0xfee0 : c));
    case 'htmlDecimal':
      return codes(key, (c) => `&#${c};`);
    case 'htmlHex':
      return codes(key, (c) => `&#x${c.toString(16)};`);
    case 'htmlNamedSeparators':
      return between(key.replace(/-/g, '&hyphen;'), '&period;');
    case 'uEscapes':
      return codes(key, (c) => `\\u${c.toString(16).padStart(4, '0')}`);
    case 'xEscapes':
      return hexBytes(key)
        .map((h) => `\\x${h}`)
        .join('');
    case 'hexColons':
      return hexBytes(key).join(':');
    case 'hex0x':
      return hexBytes(key)
        .map((h) => `0x${h.toUpperCase()}`)
        .join(', ');
    case 'hexBackslashX':
      return hexBytes(key)
        .map((h) => `\\x${h.toUpperCase()}`)
        .join(' ');
    case 'reversed':
      return [...key].reverse().join('');
    case 'rot13':
      return key.replace(/[a-z]/gi, (c) =>
        String.fromCharCode(((c.charCodeAt(0) - (c <= 'Z' ? 65 : 97) + 13) % 26) + (c <= 'Z' ? 65 : 97)),
      );
    case 'base32':
      return base32(Buffer.from(`x${key}`, 'utf8'));
  }
}

export interface RecordedRequest {
  api: 'openai' | 'anthropic' | 'unknown';
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (undefined if it was not JSON). */
  body: any;
  raw: string;
  behaviour: Behaviour['type'] | 'unscripted';
  /** Set when the client closed the connection before the answer was complete. */
  clientClosed: boolean;
}

const DEFAULT_USAGE: FakeUsage = { input: 120, output: 40 };

/** `chars` characters: lines of 'x'. */
function hugeText(chars: number): string {
  const line = `${'x'.repeat(99)}\n`;
  return line.repeat(Math.floor(chars / line.length)) + 'x'.repeat(chars % line.length);
}

/** The text between `<tag>` and `</tag>` (first occurrence), or ''. */
function tagged(text: string, tag: string): string {
  const open = text.indexOf(`<${tag}>\n`);
  if (open < 0) return '';
  const close = text.indexOf(`\n</${tag}>`, open);
  return close < 0 ? '' : text.slice(open + tag.length + 3, close);
}

/**
 * The answer of the 'echoKept' model: a checkpoint built only from what the request carries and
 * its instructions ask to keep: every [User] line (requests, constraints), the previous checkpoint,
 * the changed files of <files-touched> when the instructions mention that block, and the
 * <pinned-entries> block verbatim when the instructions mention it.
 */
export function keptAnswer(api: 'openai' | 'anthropic' | 'unknown', body: any): string {
  const messages: { role: string; content: unknown }[] = Array.isArray(body?.messages) ? body.messages : [];
  const userMsg = messages.find((m) => m.role === 'user');
  const prompt =
    typeof userMsg?.content === 'string'
      ? userMsg.content
      : Array.isArray(userMsg?.content)
        ? (userMsg!.content as { text?: string }[]).map((b) => b.text ?? '').join('')
        : '';
  void api;
  const conversation = tagged(prompt, 'conversation');
  const instructions = tagged(prompt, 'instructions');
  const users = conversation
    .split('\n\n')
    .filter((p) => p.startsWith('[User]: '))
    .map((p) => p.slice(8).split('\n').join(' '));
  const out = ['## Goal', ...users.map((u) => `- ${u}`)];
  const previous = tagged(prompt, 'previous-summary');
  if (previous) out.push('', '## Earlier Checkpoint', previous);
  out.push('', '## Critical Context');
  const files = tagged(prompt, 'files-touched');
  if (files && instructions.includes('<files-touched>')) {
    const changed = files
      .split('\nread:')[0]
      .split('\n')
      .filter((l) => l.startsWith('- '));
    out.push(`- Changed: ${changed.map((l) => l.slice(2)).join(', ')}`);
  }
  const pinned = tagged(prompt, 'pinned-entries');
  if (pinned && instructions.includes('<pinned-entries>')) out.push('', pinned);
  return out.join('\n');
}

function answerOf(b: Behaviour): FakeAnswer {
  switch (b.type) {
    case 'text':
      return { text: b.text, finish: 'stop', usage: b.usage ?? DEFAULT_USAGE };
    case 'held':
      return { text: b.text, finish: 'stop', usage: DEFAULT_USAGE };
    case 'empty':
      return { text: '', finish: 'stop', usage: b.usage ?? { input: DEFAULT_USAGE.input, output: 0 } };
    case 'length':
      return { text: b.text ?? 'The summary was going to be longer but', finish: 'length', usage: b.usage ?? DEFAULT_USAGE };
    case 'toolCall':
      return {
        text: b.text ?? '',
        finish: 'tool',
        tool: { name: b.name ?? 'read', arguments: b.arguments ?? { path: 'src/index.ts' } },
        ...(b.calls ? { tools: b.calls } : {}),
        usage: b.usage ?? DEFAULT_USAGE,
      };
    case 'refusal':
      return { text: b.text ?? '', finish: 'content_filter', usage: b.usage ?? DEFAULT_USAGE };
    case 'stall':
    case 'cut':
      return { text: b.text, finish: 'stop', usage: DEFAULT_USAGE };
    case 'huge':
      return { text: hugeText(b.chars), finish: 'stop', usage: DEFAULT_USAGE };
    default:
      return { text: '', finish: 'stop', usage: DEFAULT_USAGE };
  }
}

export class FakeProviderServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: Behaviour[] = [];
  private fallback: Behaviour | null = null;
  private readonly server: http.Server;
  private readonly sockets = new Set<Socket>();
  private port = 0;
  private stallWaiters: (() => void)[] = [];
  private held: (() => void)[] = [];
  private requestWaiters: { n: number; resolve: () => void }[] = [];

  constructor() {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }
  /** baseURL for the OpenAI SDK. */
  get openaiBaseURL(): string {
    return `${this.url}/v1`;
  }
  /** baseURL for the Anthropic SDK. */
  get anthropicBaseURL(): string {
    return this.url;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    this.release();
    for (const s of this.sockets) s.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Appends behaviours for the next requests, in order. */
  script(...behaviours: Behaviour[]): this {
    this.queue.push(...behaviours);
    return this;
  }

  /**
   * Report usage in proportion to the request and the answer (about 4 characters a token) instead of the
   * fixed default, for tests whose screens show context figures (an agent's context grows with its turns).
   */
  usageFromRequest = false;

  /** What to do once the queue is empty (default: answer HTTP 418 "unscripted request"). */
  setFallback(b: Behaviour | null): this {
    this.fallback = b;
    return this;
  }

  /** Clears the queue, the fallback and the recorded requests; drops open connections. */
  reset(): void {
    this.queue.length = 0;
    this.fallback = null;
    this.requests.length = 0;
    for (const s of this.sockets) s.destroy();
  }

  get pending(): number {
    return this.queue.length;
  }

  /** Lets every 'held' answer waiting now go out. */
  release(): void {
    for (const go of this.held.splice(0)) go();
  }

  /** Resolves when a 'stall' behaviour has sent its partial answer. */
  nextStall(): Promise<void> {
    return new Promise((resolve) => this.stallWaiters.push(resolve));
  }

  /** Resolves once `n` requests have arrived. */
  waitForRequests(n: number): Promise<void> {
    if (this.requests.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.requestWaiters.push({ n, resolve }));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      body = undefined;
    }
    const path = (req.url ?? '').split('?')[0];
    const api: RecordedRequest['api'] =
      req.method === 'POST' && path === '/v1/chat/completions'
        ? 'openai'
        : req.method === 'POST' && path === '/v1/messages'
          ? 'anthropic'
          : 'unknown';
    const behaviour = this.queue.shift() ?? this.fallback ?? undefined;
    const record: RecordedRequest = {
      api,
      method: req.method ?? '',
      path,
      headers: req.headers,
      body,
      raw,
      behaviour: behaviour?.type ?? 'unscripted',
      clientClosed: false,
    };
    this.requests.push(record);
    res.on('close', () => {
      if (!res.writableFinished) record.clientClosed = true;
    });
    for (const w of this.requestWaiters.filter((w) => this.requests.length >= w.n)) w.resolve();
    this.requestWaiters = this.requestWaiters.filter((w) => this.requests.length < w.n);

    if (api === 'unknown') return this.json(res, 404, { error: { message: `fake server: no route for ${req.method} ${path}` } });
    if (!behaviour) {
      return this.json(
        res,
        418,
        api === 'openai' ? openaiError(418, 'fake server: unscripted request') : anthropicError(418, 'fake server: unscripted request'),
      );
    }
    const b = body as { stream?: unknown; model?: unknown; stream_options?: { include_usage?: unknown } } | undefined;
    const stream = b?.stream === true;
    const model = typeof b?.model === 'string' ? b.model : 'fake-model';
    if (behaviour.type === 'drip') return this.drip(api, model, stream, behaviour.intervalMs, res);
    if (behaviour.type === 'held') await new Promise<void>((go) => this.held.push(go));
    const scripted: Behaviour =
      behaviour.type === 'echoKey'
        ? {
            type: 'text',
            text: [
              behaviour.text,
              ...(behaviour.forms ?? ALL_KEY_ECHO_FORMS).map((f) => `- ${f}: ${keyEcho(requestKey(req.headers), f)}`),
            ].join('\n'),
          }
        : behaviour;

    switch (behaviour.type) {
      case 'reset':
        req.socket.destroy();
        return;
      case 'hang':
        return;
      case 'status': {
        let message = behaviour.message ?? `fake error ${behaviour.status}`;
        if (behaviour.echoCredentials)
          message += ` (received Authorization: ${String(req.headers.authorization ?? '-')}, x-api-key: ${String(req.headers['x-api-key'] ?? '-')})`;
        const errBody =
          behaviour.body ?? (api === 'openai' ? openaiError(behaviour.status, message) : anthropicError(behaviour.status, message));
        return this.json(res, behaviour.status, errBody, behaviour.headers);
      }
      case 'malformed': {
        const text = behaviour.body ?? '{"id": "chatcmpl-broken", "choices": [ {"message": ';
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
        return;
      }
      default:
        break;
    }

    let answer =
      behaviour.type === 'echoKept' ? { text: keptAnswer(api, body), finish: 'stop' as const, usage: DEFAULT_USAGE } : answerOf(scripted);
    if (this.usageFromRequest && answer.usage === DEFAULT_USAGE)
      answer = { ...answer, usage: { input: Math.ceil(raw.length / 4), output: Math.ceil(answer.text.length / 4) } };
    if (!stream) {
      if (behaviour.type === 'stall') return; // nothing to send early without streaming: same as hang
      const full = api === 'openai' ? openaiCompletion(model, answer) : anthropicMessage(model, answer);
      if (behaviour.type === 'cut') {
        const text = JSON.stringify(full);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.write(text.slice(0, Math.floor(text.length / 2)));
        // With a content-length, ending "cleanly" would leave the client waiting: always drop the connection.
        setTimeout(() => req.socket.destroy(), 5);
        return;
      }
      return this.json(res, 200, full);
    }

    // Streaming
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const chunkSize = scripted.type === 'text' ? (scripted.chunkSize ?? 24) : scripted.type === 'huge' ? 65536 : 24;
    const delay = scripted.type === 'text' ? (scripted.chunkDelayMs ?? 0) : 0;
    const upTo = behaviour.type === 'stall' || behaviour.type === 'cut' ? (behaviour.pieces ?? 2) : undefined;
    const frames: string[] =
      api === 'openai'
        ? openaiChunks(model, answer, { chunkSize, includeUsage: b?.stream_options?.include_usage === true, upTo }).map(
            (c) => `data: ${JSON.stringify(c)}\n\n`,
          )
        : anthropicEvents(model, answer, { chunkSize, upTo }).map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    if (api === 'openai' && upTo === undefined) frames.push('data: [DONE]\n\n');
    for (const frame of frames) {
      if (res.destroyed) return;
      res.write(frame);
      if (delay) await new Promise((r) => setTimeout(r, delay));
    }
    if (behaviour.type === 'stall') {
      const waiters = this.stallWaiters;
      this.stallWaiters = [];
      for (const w of waiters) w();
      return;
    }
    if (behaviour.type === 'cut') {
      setTimeout(() => (behaviour.clean ? res.end() : req.socket.destroy()), 5);
      return;
    }
    res.end();
  }

  /** Sends an endless answer one byte every `intervalMs` until the client goes away. */
  private drip(api: RecordedRequest['api'], model: string, stream: boolean, intervalMs: number, res: http.ServerResponse): void {
    const answer: FakeAnswer = { text: 'x', finish: 'stop', usage: DEFAULT_USAGE };
    let pending = '';
    const more = (): string => {
      if (!stream)
        return api === 'openai'
          ? '{"id":"chatcmpl-drip","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"'
          : '{"id":"msg_drip","type":"message","role":"assistant","content":[{"type":"text","text":"';
      if (api === 'openai')
        return openaiChunks(model, answer, { chunkSize: 1, includeUsage: false, upTo: 1 })
          .slice(1)
          .map((c) => `data: ${JSON.stringify(c)}\n\n`)
          .join('');
      return anthropicEvents(model, answer, { chunkSize: 1, upTo: 1 })
        .slice(3)
        .map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
        .join('');
    };
    res.writeHead(
      200,
      stream ? { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } : { 'content-type': 'application/json' },
    );
    if (stream)
      res.write(
        api === 'openai'
          ? `data: ${JSON.stringify(openaiChunks(model, answer, { chunkSize: 1, includeUsage: false, upTo: 0 })[0])}\n\n`
          : anthropicEvents(model, answer, { chunkSize: 1, upTo: 0 })
              .map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
              .join(''),
      );
    else pending = more();
    let first = true;
    const timer = setInterval(() => {
      if (res.destroyed || res.writableEnded) return clearInterval(timer);
      if (!pending) pending = stream || first ? more() : 'x';
      first = false;
      res.write(pending[0]);
      pending = pending.slice(1);
    }, intervalMs);
    res.on('close', () => clearInterval(timer));
  }

  private json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }
}

/** Starts a fake provider on 127.0.0.1 at a random port. */
export async function startFakeProvider(): Promise<FakeProviderServer> {
  return new FakeProviderServer().start();
}
