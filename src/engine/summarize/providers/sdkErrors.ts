/**
 * How a provider's failure is read: through its SDK's own error classes
 * (openai's and @anthropic-ai/sdk's APIError, APIConnectionError,
 * APIConnectionTimeoutError), and for what the platform throws underneath
 * (fetch's TypeError with a `cause` carrying Node's error `code`), along the
 * `cause` chain, bounded. No field is read by casting.
 */

/** What an SDK's APIError carries (both SDKs: the HTTP status, the response headers and its JSON body). */
export interface SdkApiError extends Error {
  readonly status: number | undefined;
  readonly headers: Headers | undefined;
  readonly error: object | undefined;
}

/** A provider SDK's error classes, handed in by the provider module (the engine loads an SDK only when it is used). */
export interface SdkErrorClasses {
  APIError: abstract new (...args: never[]) => SdkApiError;
  APIConnectionError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
}

/** Links of a `cause` chain followed at most (a cycle or a deep chain costs nothing more). */
const MAX_CHAIN = 8;

function isFields(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

/** The error and its causes, outermost first, at most MAX_CHAIN of them. */
export function errorChain(err: unknown): Record<string, unknown>[] {
  const chain: Record<string, unknown>[] = [];
  for (let e: unknown = err; isFields(e) && chain.length < MAX_CHAIN; e = e.cause) chain.push(e);
  return chain;
}

/** The error codes along an error's `cause` chain (and inside an AggregateError's `errors`). */
export function codesOf(err: unknown, depth = 0): string[] {
  const codes: string[] = [];
  for (const e of errorChain(err)) {
    if (typeof e.code === 'string') codes.push(e.code);
    if (Array.isArray(e.errors) && depth < 2) for (const inner of e.errors.slice(0, MAX_CHAIN)) codes.push(...codesOf(inner, depth + 1));
  }
  return codes;
}

/** The messages along an error's `cause` chain, joined. */
export function messagesOf(err: unknown): string {
  return errorChain(err)
    .map((e) => e.message)
    .filter((m): m is string => typeof m === 'string' && m !== '')
    .join(': ');
}

/** An error's own message (a thrown object's `message` if it has a string one), else the value as a string. */
export function messageOf(err: unknown): string {
  return isFields(err) && typeof err.message === 'string' ? err.message : String(err);
}

/** The `name` of an error (or of a thrown object), if it has a string one. */
export function nameOf(err: unknown): string | undefined {
  return isFields(err) && typeof err.name === 'string' ? err.name : undefined;
}

/** The `type` an SDK APIError's JSON body names (`{ error: { type } }` or `{ type }`): how a stream's `error` event says what failed. */
export function errorBodyType(err: SdkApiError): unknown {
  const body: unknown = err.error;
  if (!isFields(body)) return undefined;
  return isFields(body.error) && body.error.type !== undefined ? body.error.type : body.type;
}
