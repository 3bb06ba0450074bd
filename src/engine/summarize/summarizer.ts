import type { Usage } from '../session/types';
import type { AgentMessage } from '../session/types';
import type { Extraction } from './offline/extract';

/** Which summary is being asked for. */
export type SummaryKind = 'history' | 'update' | 'turnPrefix' | 'branch';

/**
 * One summarization call. The logic builds it (pure); a Summarizer turns it
 * into text. `messages` / `extraction` are there for summarizers that work on
 * structure (the offline one); LLM summarizers send `systemPrompt` + `prompt`.
 */
export interface SummaryRequest {
  kind: SummaryKind;
  systemPrompt: string;
  /** The complete user prompt: serialized conversation, previous summary, instructions. */
  prompt: string;
  /** The span's messages when they are in hand (a branch summary's); a compaction's span is never held whole. */
  messages?: readonly AgentMessage[];
  /** The span's offline extraction, made by the run step as it read the span (summarize/spanReading.ts); else made from `messages`. */
  extraction?: Extraction;
  previousSummary?: string;
  customInstructions?: string;
  /** Output budget in tokens (from the model's output limit). */
  maxOutputTokens: number;
  /** The "Pinned" part of Critical Context (compaction pins, see compaction/pins.ts), to be kept verbatim. */
  pinned?: string;
  /** Files the summarized span (and earlier checkpoints) changed and read, sorted. */
  files?: { readFiles: string[]; modifiedFiles: string[] };
  /** The session's working directory, when known. */
  cwd?: string;
  /** A split turn's request, when this history span stops inside that turn (its start is summarized apart). */
  openTurnRequest?: string;
  /** The messages kept after this history span start a new turn: the span's last turn is over (the user moved on). */
  keptAfter?: boolean;
  /** A fresh routing/session id for this one-off request. */
  requestId: string;
}

export interface SummaryResult {
  text: string;
  /** What the model call cost; absent when no model was called (the offline summarizer). */
  usage?: Usage;
}

export interface Summarizer {
  /** 'offline' | 'openai' | 'anthropic' (or another provider name). */
  readonly provider: string;
  readonly model: string;
  /** Context window of the model, for the branch-summary budget. */
  readonly contextWindow: number;
  /** Output token limit of the model. */
  readonly maxOutputTokens: number;
  /**
   * Reads the span's extraction (SummaryRequest.extraction), not the prompt (the offline summarizer): a run step that
   * reads a span a batch at a time makes it before the request. Others get the prompt alone.
   */
  readonly readsExtraction?: boolean;
  /** Must reject on abort at once, and on an empty, cut-off or tool-calling answer. */
  summarize(request: SummaryRequest, signal?: AbortSignal): Promise<SummaryResult>;
}

/** A summarization that produced no usable summary. Nothing is written when one is thrown. */
export class SummarizationError extends Error {
  /** A transient failure (rate limit, server error, network, timeout): trying again later may work. */
  readonly retryable: boolean;
  /** HTTP status of the provider's answer, when there was one. */
  readonly status?: number;
  /** How long the provider asked to wait before another try (retry-after), in ms. */
  readonly retryAfterMs?: number;
  /** How many requests were made before giving up (set by the retry loop). */
  attempts?: number;
  constructor(message: string, options: { retryable?: boolean; cause?: unknown; status?: number; retryAfterMs?: number } = {}) {
    super(message, { cause: options.cause });
    this.name = 'SummarizationError';
    this.retryable = options.retryable ?? false;
    if (options.status !== undefined) this.status = options.status;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
}

/** Thrown when the caller's AbortSignal fired: the summarization stopped at once, nothing is written. */
export class AbortError extends Error {
  constructor(message = 'The summarization was aborted.', options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'AbortError';
  }
}

/** True for Arbor's AbortError and for the platform's (DOMException / fetch) abort errors. */
export function isAbortError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'name' in err && err.name === 'AbortError';
}

/** Throws an AbortError when `signal` has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortError(undefined, { cause: signal.reason });
}

export function emptyUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/**
 * The usage to record in an entry: undefined when any of its numbers is not
 * a finite count within Number.MAX_SAFE_INTEGER (a provider's 1e308, or a sum
 * that became Infinity, would be written as null and break every reader).
 */
export function recordableUsage(u: Usage | undefined): Usage | undefined {
  if (!u) return undefined;
  const ok = (v: unknown) => v === undefined || (typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= Number.MAX_SAFE_INTEGER);
  if (![u.input, u.output, u.cacheRead, u.cacheWrite, u.totalTokens].every(ok)) return undefined;
  // Pi 1.6's cost also says where its total came from (totalFromProvider: a boolean).
  if (u.cost !== undefined && !Object.values(u.cost).every((v) => typeof v === 'boolean' || ok(v))) return undefined;
  return u;
}

/** The sum of two optional usages: absent when neither was recorded. */
export function addOptionalUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  return a && b ? addUsage(a, b) : (a ?? b);
}

export function addUsage(a: Usage, b: Usage): Usage {
  const cost = (u: Usage) => (u.cost ?? {}) as Record<string, number>;
  const ca = cost(a);
  const cb = cost(b);
  const keys = new Set([...Object.keys(ca), ...Object.keys(cb)]);
  const sumCost: Record<string, number> = {};
  for (const k of keys) if (typeof (ca[k] ?? 0) === 'number' && typeof (cb[k] ?? 0) === 'number') sumCost[k] = (ca[k] ?? 0) + (cb[k] ?? 0);
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    totalTokens: (a.totalTokens ?? 0) + (b.totalTokens ?? 0),
    cost: sumCost,
  };
}
