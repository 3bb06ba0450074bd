import * as net from 'node:net';
import { readLines, writeLine } from './lineChannel';
import {
  MAX_RESPONSE_BYTES,
  PROTOCOL_VERSION,
  isPiState,
  isPiSummary,
  isWriteResult,
  validateResponse,
  type BridgeErrorCode,
  type CompactRequest,
  type LabelRequest,
  type NavigateRequest,
  type PiState,
  type PiSummary,
  type SummarizeRequest,
  type WriteResult,
} from './protocol';
import type { RegistryEntry } from './registry';
import { DEFAULT_DEADLINE_MS } from '../summarize/providers/limits';

/** The bridge refused or failed a request; nothing was changed by it. `code` says why. */
export class BridgeError extends Error {
  constructor(
    readonly code: BridgeErrorCode | 'unreachable' | 'timeout',
    message: string,
    /** For `unreachable`: the socket error's code (ENOENT, ECONNREFUSED, …), when there was one. */
    readonly socketError?: string,
  ) {
    super(message);
    this.name = 'BridgeError';
  }
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Longest wait for the answer, in ms (default 10 s for state; writes add the idle wait). */
  timeoutMs?: number;
}

type Body =
  | Omit<CompactRequest, 'v' | 'token'>
  | Omit<NavigateRequest, 'v' | 'token'>
  | Omit<LabelRequest, 'v' | 'token'>
  | Omit<SummarizeRequest, 'v' | 'token'>
  | { op: 'state' };

/** Sends one request to a bridge and returns its result (or throws BridgeError). */
async function request(entry: RegistryEntry, body: Body, options: RequestOptions): Promise<unknown> {
  options.signal?.throwIfAborted();
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(entry.endpoint);
    let settled = false;
    const finish = (err: Error | null, value?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      if (err) reject(err);
      else resolve(value);
    };
    const onAbort = () => finish(options.signal?.reason instanceof Error ? options.signal.reason : new Error('aborted'));
    const timer = setTimeout(
      () =>
        finish(
          new BridgeError(
            'timeout',
            `Pi (pid ${entry.pid}) did not answer within ${Math.round(timeoutMs / 1000)} s` +
              (body.op === 'state' || body.op === 'summarize'
                ? ''
                : '; Arbor withdrew the request, which Pi drops unless it had already begun writing it: look at the session ' +
                  '(`arbor tree FILE`, or the tree view) to see whether anything was written before trying again'),
          ),
        ),
      timeoutMs,
    );
    options.signal?.addEventListener('abort', onAbort, { once: true });
    socket.on('error', (err: NodeJS.ErrnoException) =>
      finish(new BridgeError('unreachable', `cannot reach Pi's bridge (pid ${entry.pid}): ${err.code ?? err.message}`, err.code)),
    );
    socket.on('close', () =>
      finish(new BridgeError('unreachable', `Pi's bridge (pid ${entry.pid}) closed the connection without an answer`)),
    );
    socket.on('connect', () => writeLine(socket, { v: PROTOCOL_VERSION, token: entry.token, ...body }));
    readLines(socket, MAX_RESPONSE_BYTES, {
      onLine: (line) => {
        let response;
        try {
          response = validateResponse(JSON.parse(line));
        } catch (err) {
          finish(new BridgeError('failed', err instanceof Error ? err.message : String(err)));
          return;
        }
        if (response.ok) finish(null, response.result);
        else finish(new BridgeError(response.error.code, response.error.message));
      },
      onTooLarge: () => finish(new BridgeError('failed', `Pi's bridge answered more than ${MAX_RESPONSE_BYTES} bytes`)),
    });
  });
}

export async function requestState(entry: RegistryEntry, options: RequestOptions = {}): Promise<PiState> {
  const result = await request(entry, { op: 'state' }, options);
  if (!isPiState(result)) throw new BridgeError('failed', "Pi's bridge answered a state of the wrong shape");
  return result;
}

async function write(entry: RegistryEntry, body: Body & { waitMs?: number }, options: RequestOptions): Promise<WriteResult> {
  const result = await request(entry, body, { ...options, timeoutMs: options.timeoutMs ?? (body.waitMs ?? 15_000) + 60_000 });
  if (!isWriteResult(result)) throw new BridgeError('failed', "Pi's bridge answered a result of the wrong shape");
  return result;
}

export function requestCompact(
  entry: RegistryEntry,
  body: Omit<CompactRequest, 'v' | 'token' | 'op'>,
  options: RequestOptions = {},
): Promise<WriteResult> {
  return write(entry, { op: 'compact', ...body }, options);
}

export function requestNavigate(
  entry: RegistryEntry,
  body: Omit<NavigateRequest, 'v' | 'token' | 'op'>,
  options: RequestOptions = {},
): Promise<WriteResult> {
  return write(entry, { op: 'navigate', ...body }, options);
}

export function requestLabel(
  entry: RegistryEntry,
  body: Omit<LabelRequest, 'v' | 'token' | 'op'>,
  options: RequestOptions = {},
): Promise<WriteResult> {
  return write(entry, { op: 'label', ...body }, options);
}

/**
 * Asks Pi to write the summary of a compaction at its leaf with its own model and credentials (nothing is written).
 * `timeoutMs` bounds the model call too (default: the idle wait plus the summarization deadline, DEFAULT_DEADLINE_MS). A bridge installed before this
 * request existed answers `unknown-op`: the error then says to reinstall it.
 */
export async function requestSummary(
  entry: RegistryEntry,
  body: Omit<SummarizeRequest, 'v' | 'token' | 'op'>,
  options: RequestOptions = {},
): Promise<PiSummary> {
  let result: unknown;
  try {
    result = await request(
      entry,
      { op: 'summarize', ...body },
      { ...options, timeoutMs: options.timeoutMs ?? (body.waitMs ?? 15_000) + DEFAULT_DEADLINE_MS },
    );
  } catch (err) {
    if (err instanceof BridgeError && err.code === 'unknown-op')
      throw new BridgeError(
        'unknown-op',
        `the Arbor bridge in this Pi (version ${entry.bridgeVersion}) cannot write summaries with Pi's model; reinstall it ` +
          '(`arbor pi-bridge install`, or "Arbor: Install Pi Bridge") and type /reload in Pi',
      );
    throw err;
  }
  if (!isPiSummary(result)) throw new BridgeError('failed', "Pi's bridge answered a summary of the wrong shape");
  return result;
}
