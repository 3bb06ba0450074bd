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
  /** An answer with no text. */
  | { type: 'empty'; usage?: FakeUsage }
  /** An answer cut at the output limit (finish_reason length / stop_reason max_tokens). */
  | { type: 'length'; text?: string; usage?: FakeUsage }
  /** The model calls a tool. */
  | { type: 'toolCall'; name?: string; arguments?: Record<string, unknown>; text?: string; usage?: FakeUsage }
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
  | { type: 'reset' };

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

function answerOf(b: Behaviour): FakeAnswer {
  switch (b.type) {
    case 'text':
      return { text: b.text, finish: 'stop', usage: b.usage ?? DEFAULT_USAGE };
    case 'empty':
      return { text: '', finish: 'stop', usage: b.usage ?? { input: DEFAULT_USAGE.input, output: 0 } };
    case 'length':
      return { text: b.text ?? 'The summary was going to be longer but', finish: 'length', usage: b.usage ?? DEFAULT_USAGE };
    case 'toolCall':
      return { text: b.text ?? '', finish: 'tool', tool: { name: b.name ?? 'read', arguments: b.arguments ?? { path: 'src/index.ts' } }, usage: b.usage ?? DEFAULT_USAGE };
    case 'stall':
    case 'cut':
      return { text: b.text, finish: 'stop', usage: DEFAULT_USAGE };
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
    for (const s of this.sockets) s.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Appends behaviours for the next requests, in order. */
  script(...behaviours: Behaviour[]): this {
    this.queue.push(...behaviours);
    return this;
  }

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
    const api: RecordedRequest['api'] = req.method === 'POST' && path === '/v1/chat/completions' ? 'openai' : req.method === 'POST' && path === '/v1/messages' ? 'anthropic' : 'unknown';
    const behaviour = this.queue.shift() ?? this.fallback ?? undefined;
    const record: RecordedRequest = { api, method: req.method ?? '', path, headers: req.headers, body, raw, behaviour: behaviour?.type ?? 'unscripted', clientClosed: false };
    this.requests.push(record);
    res.on('close', () => {
      if (!res.writableFinished) record.clientClosed = true;
    });
    for (const w of this.requestWaiters.filter((w) => this.requests.length >= w.n)) w.resolve();
    this.requestWaiters = this.requestWaiters.filter((w) => this.requests.length < w.n);

    if (api === 'unknown') return this.json(res, 404, { error: { message: `fake server: no route for ${req.method} ${path}` } });
    if (!behaviour) {
      return this.json(res, 418, api === 'openai' ? openaiError(418, 'fake server: unscripted request') : anthropicError(418, 'fake server: unscripted request'));
    }
    const b = body as { stream?: unknown; model?: unknown; stream_options?: { include_usage?: unknown } } | undefined;
    const stream = b?.stream === true;
    const model = typeof b?.model === 'string' ? b.model : 'fake-model';

    switch (behaviour.type) {
      case 'reset':
        req.socket.destroy();
        return;
      case 'hang':
        return;
      case 'status': {
        let message = behaviour.message ?? `fake error ${behaviour.status}`;
        if (behaviour.echoCredentials) message += ` (received Authorization: ${String(req.headers.authorization ?? '-')}, x-api-key: ${String(req.headers['x-api-key'] ?? '-')})`;
        const errBody = behaviour.body ?? (api === 'openai' ? openaiError(behaviour.status, message) : anthropicError(behaviour.status, message));
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

    const answer = answerOf(behaviour);
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
    const chunkSize = behaviour.type === 'text' ? behaviour.chunkSize ?? 24 : 24;
    const delay = behaviour.type === 'text' ? behaviour.chunkDelayMs ?? 0 : 0;
    const upTo = behaviour.type === 'stall' || behaviour.type === 'cut' ? behaviour.pieces ?? 2 : undefined;
    const frames: string[] =
      api === 'openai'
        ? openaiChunks(model, answer, { chunkSize, includeUsage: b?.stream_options?.include_usage === true, upTo }).map((c) => `data: ${JSON.stringify(c)}\n\n`)
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
