import {
  AbortError,
  SummarizationError,
  emptyUsage,
  isAbortError,
  throwIfAborted,
  type Summarizer,
  type SummaryRequest,
  type SummaryResult,
} from '../summarizer';
import { withRetry, type RetryOptions } from './retry';
import { isRetryableStatus, parseRetryAfter } from './retry';
import { resolveModelInfo, type ModelPricing, type ResolvedModelInfo } from './models';
import {
  AnswerTooLargeError,
  DEFAULT_DEADLINE_MS,
  DEFAULT_MAX_ANSWER_CHARS,
  DeadlineError,
  answerTooLargeIn,
  chosenBaseURL,
  bodyByteLimit,
  cappedFetch,
  timerMs,
} from './limits';
import { containsKnownSecret, redact, redactKnownSecrets, rememberSecret } from '../../secrets/redact';
import type { HttpProvider } from './providerNames';
import { codesOf, errorBodyType, messageOf, messagesOf, nameOf, type SdkErrorClasses } from './sdkErrors';

/** Shared plumbing of the HTTP summarizers: one attempt with a timeout, error mapping, secret redaction. */

/** Inactivity timeout of a streamed request (no chunk for this long fails the attempt). */
export const DEFAULT_TIMEOUT_MS = 120_000;
/** Timeout of a non-streamed request (the whole answer must arrive within it): the whole deadline. */
export const DEFAULT_NONSTREAMING_TIMEOUT_MS = DEFAULT_DEADLINE_MS;

/** What both HTTP summarizers (OpenAI, Anthropic) are configured with. */
export interface HttpSummarizerOptions {
  /** Default: the provider's API key variable (OPENAI_API_KEY / ANTHROPIC_API_KEY). */
  apiKey?: string;
  /** Default: the provider's base URL variable (OPENAI_BASE_URL / ANTHROPIC_BASE_URL), else its public API (chosenBaseURL: blank is not set). */
  baseURL?: string;
  model: string;
  /** Override of the model table's context window. */
  contextWindow?: number;
  /** Override of the model table's output limit. */
  maxOutputTokens?: number;
  /** Stream the answer (default true). */
  stream?: boolean;
  /** Arbor's retries after the first request (default 3). The SDK's own retries are always off. */
  maxRetries?: number;
  /** Backoff settings (tests use ~1 ms). */
  retry?: Omit<RetryOptions, 'maxRetries'>;
  /**
   * Inactivity timeout per request in ms (default DEFAULT_TIMEOUT_MS streaming, the deadline not): no response /
   * no streamed chunk for this long fails the attempt.
   */
  timeoutMs?: number;
  /** Overall deadline of one summary request in ms, every attempt and retry wait included (default DEFAULT_DEADLINE_MS). */
  deadlineMs?: number;
  /** Answer-size cap in characters (default DEFAULT_MAX_ANSWER_CHARS): a larger answer fails, nothing is written. */
  maxAnswerChars?: number;
  /** Custom fetch (proxies, tests). */
  fetch?: typeof fetch;
  /** Provider name reported in `Summarizer.provider` and in errors (default: the provider's). */
  providerName?: string;
  /** Price table entry; default: from the model table. */
  pricing?: ModelPricing;
  /** Environment to read the key and base URL variables from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** The options of an HTTP summarizer resolved against the environment and the model table. */
export interface HttpSetup {
  provider: string;
  baseURL: string;
  /** The key from the options or the environment (undefined: none). */
  configuredKey: string | undefined;
  info: ResolvedModelInfo;
  pricing: ModelPricing | undefined;
  stream: boolean;
  timeoutMs: number;
  deadlineMs: number;
  maxAnswerChars: number;
  /** The fetch to give the SDK: response bodies capped for `maxAnswerChars`. */
  fetch: typeof fetch;
}

export function resolveHttpSetup(
  options: HttpSummarizerOptions,
  defaults: { provider: HttpProvider; keyVariable: string; baseURL: string },
): HttpSetup {
  const env = options.env ?? process.env;
  const info = resolveModelInfo(options.model, options);
  const stream = options.stream ?? true;
  const configuredKey = options.apiKey || env[defaults.keyVariable] || undefined;
  rememberSecret(configuredKey);
  const provider = options.providerName ?? defaults.provider;
  const chosen = chosenBaseURL({ provider: defaults.provider, configured: options.baseURL, env });
  if (chosen.problem) throw new SummarizationError(`${provider}: the base URL ${chosen.problem}`);
  const baseURL = chosen.url ?? defaults.baseURL;
  const maxAnswerChars = positiveInt(options.maxAnswerChars) ?? DEFAULT_MAX_ANSWER_CHARS;
  return {
    provider,
    baseURL,
    configuredKey,
    info,
    pricing: options.pricing ?? info.pricing,
    stream,
    // Without streaming there is no sign of life until the whole answer is written: allow more time.
    timeoutMs: options.timeoutMs ?? (stream ? DEFAULT_TIMEOUT_MS : DEFAULT_NONSTREAMING_TIMEOUT_MS),
    deadlineMs: positiveInt(options.deadlineMs) ?? DEFAULT_DEADLINE_MS,
    maxAnswerChars,
    fetch: cappedFetch(
      options.fetch ?? globalThis.fetch,
      bodyByteLimit(maxAnswerChars, stream),
      () => new AnswerTooLargeError(provider, maxAnswerChars),
    ),
  };
}

function positiveInt(n: number | undefined): number | undefined {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.ceil(n) : undefined;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

export function isNetworkError(err: unknown): boolean {
  if (codesOf(err).some((c) => NETWORK_CODES.has(c))) return true;
  return /\b(terminated|other side closed|socket hang up|fetch failed|network|ECONNRESET|ECONNREFUSED)\b/i.test(messagesOf(err));
}

/** A copy of a provider error that is safe to keep as `cause`: name, code, status and a redacted message only. */
export class ProviderErrorCause extends Error {
  code?: string;
  status?: number;
}

function safeCause(err: unknown, secrets: readonly (string | undefined)[], sdk: SdkErrorClasses): Error | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const e = new ProviderErrorCause(redact(messagesOf(err) || String(err), secrets));
  e.name = nameOf(err) ?? 'Error';
  const codes = codesOf(err);
  if (codes.length) e.code = codes[0];
  if (err instanceof sdk.APIError && err.status !== undefined) e.status = err.status;
  return e;
}

export interface ClassifyContext {
  provider: string;
  secrets: readonly (string | undefined)[];
  /** The caller's signal fired. */
  aborted: boolean;
  /** Arbor's own per-attempt timeout fired. */
  timedOut: boolean;
  timeoutMs: number;
  /** The provider SDK's error classes: what it throws is read through them. */
  sdk: SdkErrorClasses;
}

/** Error bodies that name a transient failure even without an HTTP status (an `error` event inside a stream). */
const TRANSIENT_ERROR_TYPES = new Set<unknown>(['overloaded_error', 'api_error', 'rate_limit_error', 'server_error']);

/** Maps whatever one attempt threw to an AbortError or a SummarizationError (retryable or not), with secrets removed. */
export function classifyError(err: unknown, ctx: ClassifyContext): AbortError | SummarizationError {
  const { provider, secrets, sdk } = ctx;
  const cause = (e: unknown) => safeCause(e, secrets, sdk);
  const tooLarge = answerTooLargeIn(err);
  if (tooLarge && !ctx.aborted) return tooLarge;
  if (ctx.aborted) return err instanceof AbortError ? err : new AbortError(undefined, { cause: cause(err) });
  if (ctx.timedOut) {
    return new SummarizationError(`${provider}: no response within ${ctx.timeoutMs} ms (timed out)`, {
      retryable: true,
      cause: cause(err),
    });
  }
  if (err instanceof SummarizationError) {
    if (!containsKnownSecret(err.message, secrets)) return err;
    return new SummarizationError(redact(err.message, secrets), {
      retryable: err.retryable,
      status: err.status,
      retryAfterMs: err.retryAfterMs,
    });
  }
  const message = redact(messageOf(err), secrets);
  if (err instanceof sdk.APIError && err.status !== undefined) {
    const status = err.status;
    const retryAfterMs = parseRetryAfter(err.headers);
    return new SummarizationError(`${provider} request failed with HTTP ${status}: ${message}`, {
      retryable: isRetryableStatus(status),
      status,
      retryAfterMs,
      cause: cause(err),
    });
  }
  if (err instanceof sdk.APIConnectionTimeoutError) {
    return new SummarizationError(`${provider}: the request timed out`, { retryable: true, cause: cause(err) });
  }
  if (err instanceof sdk.APIConnectionError || isNetworkError(err) || isAbortError(err)) {
    const code = codesOf(err).find((c) => NETWORK_CODES.has(c));
    const detail = redact(messagesOf(err), secrets);
    return new SummarizationError(`${provider}: network error${code ? ` (${code})` : ''}: ${detail}`, {
      retryable: true,
      cause: cause(err),
    });
  }
  if (err instanceof SyntaxError) {
    return new SummarizationError(`${provider}: malformed response (not valid JSON): ${message}`, { cause: cause(err) });
  }
  if (err instanceof sdk.APIError && TRANSIENT_ERROR_TYPES.has(errorBodyType(err))) {
    return new SummarizationError(`${provider}: the server reported an error: ${message}`, {
      retryable: true,
      cause: cause(err),
    });
  }
  return new SummarizationError(`${provider}: ${message}`, { cause: cause(err) });
}

export interface AttemptContext {
  /** Pass to the SDK call: fires on the caller's abort or on the timeout. */
  signal: AbortSignal;
  /** Restarts the inactivity timer (call on every streamed chunk, with the answer's length so far: past the cap it throws). */
  touch: (answerChars?: number) => void;
}

/**
 * One request. `timeoutMs` is an inactivity timeout: it restarts whenever the
 * attempt calls `touch()` (each streamed chunk), so a long but steady stream is
 * not cut while a stalled one is. Errors come out classified.
 */
export async function runAttempt<T>(
  options: {
    provider: string;
    signal?: AbortSignal;
    timeoutMs: number;
    secrets: readonly (string | undefined)[];
    maxAnswerChars?: number;
    sdk: SdkErrorClasses;
  },
  fn: (ctx: AttemptContext) => Promise<T>,
): Promise<T> {
  const outer = options.signal;
  if (outer?.aborted) throw new AbortError(undefined, { cause: outer.reason });
  const controller = new AbortController();
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error('timeout'));
    }, timerMs(options.timeoutMs));
  };
  const onAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onAbort, { once: true });
  arm();
  const touch = (answerChars?: number) => {
    if (options.maxAnswerChars !== undefined && answerChars !== undefined && answerChars > options.maxAnswerChars) {
      throw new AnswerTooLargeError(options.provider, options.maxAnswerChars);
    }
    arm();
  };
  try {
    const result = await fn({ signal: controller.signal, touch });
    // An SDK stream ends quietly when its signal fires: make sure that is not taken for success.
    if (controller.signal.aborted) throw new AbortError();
    return result;
  } catch (err) {
    // Whatever failed, the request is over: close its connection.
    if (!controller.signal.aborted) controller.abort(new Error('attempt failed'));
    throw classifyError(err, {
      provider: options.provider,
      secrets: options.secrets,
      aborted: !!outer?.aborted,
      timedOut,
      timeoutMs: options.timeoutMs,
      sdk: options.sdk,
    });
  } finally {
    if (timer) clearTimeout(timer);
    outer?.removeEventListener('abort', onAbort);
  }
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

export function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
}

export interface HttpSummarizerParts<A> {
  provider: string;
  model: string;
  contextWindow: number;
  maxOutputTokens: number;
  timeoutMs: number;
  deadlineMs: number;
  maxAnswerChars: number;
  secrets: readonly (string | undefined)[];
  /** The SDK's error classes (its failures are read through them). */
  sdk: SdkErrorClasses;
  retry?: Omit<RetryOptions, 'maxRetries'>;
  maxRetries?: number;
  /** One request to the provider; calls `touch` on every streamed chunk (with the answer's length so far). */
  request(request: SummaryRequest, signal: AbortSignal, touch: (answerChars?: number) => void): Promise<A>;
  /** Checks the answer (throws SummarizationError if it is no summary) and maps it to a result. */
  result(answer: A): SummaryResult;
}

/**
 * A Summarizer over an HTTP provider: attempts with an inactivity timeout,
 * bounded retries, an overall deadline and an answer-size cap, abort at once.
 */
export function httpSummarizer<A>(parts: HttpSummarizerParts<A>): Summarizer {
  const { provider, timeoutMs, secrets, deadlineMs, maxAnswerChars, sdk } = parts;
  return {
    provider,
    model: parts.model,
    contextWindow: parts.contextWindow,
    maxOutputTokens: parts.maxOutputTokens,
    async summarize(request: SummaryRequest, signal?: AbortSignal): Promise<SummaryResult> {
      throwIfAborted(signal);
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(new DeadlineError(provider, deadlineMs)), timerMs(deadlineMs));
      const bounded = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal;
      try {
        return await withRetry(
          () =>
            runAttempt({ provider, signal: bounded, timeoutMs, secrets, maxAnswerChars, sdk }, async ({ signal: attemptSignal, touch }) => {
              const answer = await parts.request(request, attemptSignal, touch);
              if (attemptSignal.aborted) return { text: '', usage: emptyUsage() };
              const result = parts.result(answer);
              if (result.text.length > maxAnswerChars) throw new AnswerTooLargeError(provider, maxAnswerChars);
              // A successful answer may echo the key too: no form of it goes on.
              return { ...result, text: redactKnownSecrets(result.text, secrets) };
            }),
          { ...parts.retry, maxRetries: parts.maxRetries, signal: bounded },
        );
      } catch (err) {
        if (deadline.signal.aborted && !signal?.aborted) throw deadline.signal.reason as DeadlineError;
        throw err;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
