import { SummarizationError } from '../summarizer';
import { errorChain } from './sdkErrors';
import { PROVIDER_VARIABLES, type HttpProvider } from './providerNames';

/**
 * Bounds of one summarization, past which nothing is written:
 * - an overall deadline per summary request (every attempt, retry wait and
 *   streamed byte included), so a provider that drips one byte every few
 *   seconds cannot keep a compaction running;
 * - an answer-size cap, checked on the streamed text as it grows and on the
 *   response body's bytes as they arrive (so a huge answer is never held whole);
 * - a base URL that is http(s), parsable and carries no credentials.
 */

/**
 * Default overall deadline of one summary request, retries included, in seconds as the CLI's --deadline and
 * arbor.summarizer.deadlineSeconds take it (package.json's default is checked against it).
 */
export const DEFAULT_DEADLINE_SECONDS = 600;
export const DEFAULT_DEADLINE_MS = DEFAULT_DEADLINE_SECONDS * 1000;
/**
 * Default answer-size cap in characters (a summary is a few KB; the largest output limits are ~0.5 M characters):
 * the CLI's --max-answer-chars and arbor.summarizer.maxAnswerChars (package.json's default is checked against it).
 */
export const DEFAULT_MAX_ANSWER_CHARS = 1_000_000;

/** The summary request did not finish within the deadline. Not retryable. */
export class DeadlineError extends SummarizationError {
  constructor(provider: string, deadlineMs: number) {
    super(
      `${provider}: no complete answer within ${formatSeconds(deadlineMs)} (the summarization deadline; raise it with ` +
        `--deadline SECONDS or arbor.summarizer.deadlineSeconds); nothing was written`,
    );
    this.name = 'DeadlineError';
  }
}

/** The answer is larger than the cap. Not retryable. */
export class AnswerTooLargeError extends SummarizationError {
  constructor(provider: string, maxChars: number) {
    super(
      `${provider}: the answer is larger than ${maxChars.toLocaleString('en-US')} characters (the answer-size cap; ` +
        `raise it with --max-answer-chars N or arbor.summarizer.maxAnswerChars); nothing was written`,
    );
    this.name = 'AnswerTooLargeError';
  }
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

/** The AnswerTooLargeError along an error's cause chain, if any (SDKs wrap what a body stream throws). */
export function answerTooLargeIn(err: unknown): AnswerTooLargeError | undefined {
  for (const e of errorChain(err)) if (e instanceof AnswerTooLargeError) return e;
  return undefined;
}

/**
 * Response bodies allowed for an answer cap: the non-streamed JSON answer is
 * the text plus its escaping; a streamed answer repeats envelope bytes per chunk.
 */
export function bodyByteLimit(maxAnswerChars: number, stream: boolean): number {
  return stream ? maxAnswerChars * 64 + (1 << 20) : maxAnswerChars * 6 + (64 << 10);
}

/** A fetch whose response bodies fail with AnswerTooLargeError once they pass `maxBytes`. */
export function cappedFetch(inner: typeof fetch, maxBytes: number, tooLarge: () => AnswerTooLargeError): typeof fetch {
  const capped = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]): Promise<Response> => {
    const response = await inner(input, init);
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw tooLarge();
    }
    if (!response.body) return response;
    let seen = 0;
    const limited = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) controller.error(tooLarge());
          else controller.enqueue(chunk);
        },
      }),
    );
    const out = new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
    Object.defineProperty(out, 'url', { value: response.url });
    return out;
  };
  return capped as typeof fetch;
}

/** Why `url` is not a usable base URL (undefined: it is). Never repeats the URL (it may hold a password). */
export function baseURLProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a valid URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return `must be an http:// or https:// URL (got ${parsed.protocol.replace(/[^a-z0-9+.:-]/gi, '')})`;
  if (parsed.username || parsed.password) return 'must not contain a user name or password (keys go in the API key setting or variable)';
  return undefined;
}

/** A base URL in effect: the URL (trailing slashes dropped) and who set it, or why it cannot be used. */
export interface BaseURLChoice {
  /** undefined: none is set (the provider's public API), or it has a problem. */
  url?: string;
  /** Who set it: the configured value's name (--base-url, arbor.summarizer.baseURL), or the provider's variable. */
  source?: string;
  /** Why it cannot be used (baseURLProblem: never repeats the URL). */
  problem?: string;
}

/**
 * The one rule for the base URL, in the CLI, the extension and the HTTP summarizers alike: the configured one
 * (--base-url, arbor.summarizer.baseURL), else the provider's variable (OPENAI_BASE_URL, ANTHROPIC_BASE_URL),
 * else none (the provider's public API). A blank value (empty, or only spaces) is not set: the next source
 * applies, for the CLI's flag as for the setting (empty by default) and the variable. Spaces around it and
 * trailing slashes are dropped; then it must pass baseURLProblem. Without a provider no variable is read.
 */
export function chosenBaseURL(options: {
  provider?: HttpProvider;
  configured?: string;
  /** The configured value's name in messages (default "the base URL"). */
  configuredAs?: string;
  env: NodeJS.ProcessEnv;
}): BaseURLChoice {
  const configured = options.configured?.trim();
  const variable = options.provider ? PROVIDER_VARIABLES[options.provider].baseURL : undefined;
  const fromVariable = !configured && variable ? options.env[variable]?.trim() : undefined;
  const raw = configured || fromVariable;
  if (!raw) return {};
  const source = configured ? (options.configuredAs ?? 'the base URL') : variable;
  // Trailing slashes by a loop: a regex anchored at the end rescans a long run of them from each slash.
  let end = raw.length;
  while (end > 0 && raw.charCodeAt(end - 1) === 0x2f) end--;
  const url = raw.slice(0, end);
  const problem = baseURLProblem(url);
  return problem ? { source, problem } : { url, source };
}

/** The longest delay a Node timer takes (2^31 - 1 ms, about 24.8 days): a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** `ms` as a delay a timer honours: a longer wait is clamped to MAX_TIMER_MS (it still does not fire early). */
export function timerMs(ms: number): number {
  return Math.min(Math.max(0, ms), MAX_TIMER_MS);
}

/** A positive finite number of milliseconds from seconds, else undefined. */
export function secondsToMs(seconds: number | undefined): number | undefined {
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : undefined;
}
