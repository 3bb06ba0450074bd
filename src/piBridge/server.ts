import { timingSafeEqual } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as net from 'node:net';
import { readLines, writeLine } from '../engine/livePi/lineChannel';
import {
  BridgeRequestError,
  MAX_REQUEST_BYTES,
  PROTOCOL_VERSION,
  validateRequest,
  type BridgeRequest,
  type BridgeResponse,
  type PiState,
  type PiSummary,
  type WriteResult,
} from '../engine/livePi/protocol';
import { ensurePrivateFolder } from '../engine/livePi/registry';

/** How long a connection may take to send a whole request line (from connecting, or from its last answer). */
export const REQUEST_LINE_MS = 10_000;
/** Most connections open at once; more are closed at once. */
export const MAX_CONNECTIONS = 64;

export interface RequestHandler {
  (request: BridgeRequest, signal: AbortSignal): Promise<PiState | WriteResult | PiSummary>;
}

export interface BridgeServerOptions {
  /** The Unix socket path or named pipe. */
  endpoint: string;
  /** The private folder the socket lives in (made 0700 if missing), or null for a named pipe. */
  folder: string | null;
  token: string;
  handle: RequestHandler;
  /** The folder is this server's alone: removed with the socket. */
  ownFolder?: boolean;
  /** How long a request line may take to arrive (default REQUEST_LINE_MS). */
  requestLineMs?: number;
}

/**
 * The bridge's endpoint: a Unix socket (mode 0600 in a 0700 folder) or a
 * named pipe. Each line is one request; the token is compared in constant
 * time before anything else is looked at; a line over the size cap closes
 * the connection, and so does a line not finished within REQUEST_LINE_MS.
 * A client that goes away (a cancel, Ctrl-C, a killed process) aborts its
 * request's signal: the request is dropped and never written later.
 */
export class BridgeServer {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();

  private readonly endpoint: string;
  private readonly folder: string | null;
  private readonly token: string;
  private readonly handle: RequestHandler;
  private readonly requestLineMs: number;
  private readonly ownFolder: boolean;

  constructor(options: BridgeServerOptions) {
    this.endpoint = options.endpoint;
    this.folder = options.folder;
    this.token = options.token;
    this.handle = options.handle;
    this.requestLineMs = options.requestLineMs ?? REQUEST_LINE_MS;
    this.ownFolder = options.ownFolder === true;
  }

  async listen(): Promise<void> {
    if (this.folder) {
      await ensurePrivateFolder(this.folder);
      await fsp.rm(this.endpoint, { force: true });
    }
    // Half-open: a client may send its request and close its side (`… | nc -U`); it still gets its answer.
    const server = net.createServer({ allowHalfOpen: true }, (socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.endpoint, () => {
        server.off('error', reject);
        resolve();
      });
    });
    if (this.folder) await fsp.chmod(this.endpoint, 0o600);
    server.unref();
    this.server = server;
  }

  /** Connections open now. */
  get connections(): number {
    return this.sockets.size;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    if (this.folder) await fsp.rm(this.endpoint, { force: true }).catch(() => undefined);
    if (this.folder && this.ownFolder) await fsp.rmdir(this.folder).catch(() => undefined);
  }

  private accept(socket: net.Socket): void {
    if (this.sockets.size >= MAX_CONNECTIONS) {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    socket.unref();
    // Fires once the client is gone: every request of this connection still waiting is dropped.
    const gone = new AbortController();
    let pending = 0;
    let ended = false;
    let lineTimer: NodeJS.Timeout | undefined;
    const armLineTimer = () => {
      clearTimeout(lineTimer);
      lineTimer = setTimeout(() => socket.destroy(), this.requestLineMs);
      lineTimer.unref();
    };
    socket.on('close', () => {
      this.sockets.delete(socket);
      clearTimeout(lineTimer);
      gone.abort(new BridgeRequestError('failed', 'the client closed the connection'));
    });
    socket.on('error', () => socket.destroy());
    armLineTimer();
    let chain = Promise.resolve();
    readLines(socket, MAX_REQUEST_BYTES, {
      onLine: (line) => {
        clearTimeout(lineTimer);
        pending++;
        chain = chain
          .then(() => this.answer(socket, line, gone.signal))
          .finally(() => {
            if (--pending === 0 && !socket.destroyed && !ended) armLineTimer();
          });
      },
      onTooLarge: () => {
        writeLine(socket, failure(undefined, new BridgeRequestError('too-large', `a request is at most ${MAX_REQUEST_BYTES} bytes`)));
        socket.end();
      },
    });
    // The client is done sending: answer what it sent, then close. A client gone (its process ended) looks the same
    // as one that only closed its sending side (`… | nc -U`) until a write to it fails, and Pi may become idle in
    // between: so a write still waiting for Pi when the client stops sending is dropped (nothing written, and said
    // so). What runs without waiting (state, a write to an idle Pi) is answered as before.
    socket.on('end', () => {
      ended = true;
      clearTimeout(lineTimer);
      gone.abort(new BridgeRequestError('failed', 'the client closed the connection while its request waited for Pi; nothing was changed'));
      void chain.then(() => socket.end());
    });
  }

  private async answer(socket: net.Socket, line: string, gone: AbortSignal): Promise<void> {
    // A connection refused (bad token, oversized line) is over: lines already received after it are not run.
    if (socket.destroyed || socket.writableEnded) return;
    let id: string | undefined;
    try {
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch {
        throw new BridgeRequestError('bad-request', 'a request is one line of JSON');
      }
      const fields: object = typeof raw === 'object' && raw !== null ? raw : {};
      if ('id' in fields && typeof fields.id === 'string') id = fields.id.slice(0, 64);
      const token = 'token' in fields ? fields.token : undefined;
      if (!this.tokenMatches(token)) {
        writeLine(socket, failure(id, new BridgeRequestError('unauthorized', 'wrong or missing token')));
        socket.end();
        return;
      }
      const request = validateRequest(raw);
      // The client gone (a cancel, Ctrl-C): a request that waits for Pi is dropped (a write never made, a summary stopped).
      const result = await this.handle(request, gone);
      const ok: BridgeResponse = { v: PROTOCOL_VERSION, ok: true, result };
      if (id !== undefined) ok.id = id;
      writeLine(socket, ok);
    } catch (err) {
      writeLine(socket, failure(id, err));
    }
  }

  private tokenMatches(token: unknown): boolean {
    if (typeof token !== 'string') return false;
    const a = Buffer.from(token);
    const b = Buffer.from(this.token);
    return a.length === b.length && timingSafeEqual(a, b);
  }
}

function failure(id: string | undefined, err: unknown): BridgeResponse {
  const e = err instanceof BridgeRequestError ? err : new BridgeRequestError('failed', err instanceof Error ? err.message : String(err));
  const r: BridgeResponse = { v: PROTOCOL_VERSION, ok: false, error: { code: e.code, message: e.message } };
  if (id !== undefined) r.id = id;
  return r;
}
