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

export interface RequestHandler {
  (request: BridgeRequest, signal: AbortSignal): Promise<PiState | WriteResult | PiSummary>;
}

/**
 * The bridge's endpoint: a Unix socket (mode 0600 in a 0700 folder) or a
 * named pipe. Each line is one request; the token is compared in constant
 * time before anything else is looked at; a line over the size cap closes
 * the connection.
 */
export class BridgeServer {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();

  constructor(
    private readonly endpoint: string,
    private readonly folder: string | null,
    private readonly token: string,
    private readonly handle: RequestHandler,
  ) {}

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

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    if (this.folder) await fsp.rm(this.endpoint, { force: true }).catch(() => undefined);
  }

  private accept(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.unref();
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let chain = Promise.resolve();
    readLines(socket, MAX_REQUEST_BYTES, {
      onLine: (line) => {
        chain = chain.then(() => this.answer(socket, line));
      },
      onTooLarge: () => {
        writeLine(socket, failure(undefined, new BridgeRequestError('too-large', `a request is at most ${MAX_REQUEST_BYTES} bytes`)));
        socket.end();
      },
    });
    // The client is done sending: answer what it sent, then close.
    socket.on('end', () => void chain.then(() => socket.end()));
  }

  private async answer(socket: net.Socket, line: string): Promise<void> {
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
      // The client gone (a cancel, Ctrl-C): a summary being written for it stops.
      const gone = new AbortController();
      const onClose = () => gone.abort(new BridgeRequestError('failed', 'the client closed the connection'));
      socket.once('close', onClose);
      let result;
      try {
        result = await this.handle(request, gone.signal);
      } finally {
        socket.off('close', onClose);
      }
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
