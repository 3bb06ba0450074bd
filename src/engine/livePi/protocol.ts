/**
 * The Arbor ⇄ Pi bridge protocol: newline-delimited JSON over a local socket
 * (Unix socket, named pipe on Windows), one request line, one response line.
 * Shared, word for word, by the bridge running inside Pi (src/piBridge) and
 * Arbor's client (client.ts): the one definition of what may be asked.
 *
 * Five operations exist: `state`, `compact`, `navigate`, `label`, and
 * `summarize` (issue 33: Pi writes a compaction summary with its own model,
 * credentials, settings and summary functions, and returns the text and its
 * usage; it writes nothing). No prompts, no shell, no paths: whoever holds
 * the token can change what Pi's session holds in exactly the ways Arbor
 * already can by writing the file, and can ask Pi's model for a summary of
 * that session. A bridge older than `summarize` answers `unknown-op`.
 */

export const PROTOCOL_VERSION = 1;
/** A request line larger than this is refused and the connection closed (a summary is at most ~1M characters). */
export const MAX_REQUEST_BYTES = 8 * 1024 * 1024;
/** A response line larger than this is refused by the client. */
export const MAX_RESPONSE_BYTES = 1024 * 1024;
/** How long the bridge waits for Pi to become idle, at most, whatever the request asks. */
export const MAX_IDLE_WAIT_MS = 120_000;
/** Default wait for idle when the request names none. */
export const DEFAULT_IDLE_WAIT_MS = 15_000;
/** Deepest nesting a request's free-form `details` may have (Pi writes them with JSON.stringify; Arbor's own are 2 deep). */
export const MAX_DETAILS_DEPTH = 64;

export type BridgeOp = 'state' | 'compact' | 'navigate' | 'label' | 'summarize';

/** Longest custom instructions a summarize request carries. */
export const MAX_INSTRUCTIONS_CHARS = 64 * 1024;

interface RequestBase {
  v: number;
  token: string;
  /** Echoed in the response. */
  id?: string;
}

export interface StateRequest extends RequestBase {
  op: 'state';
}

export interface CompactRequest extends RequestBase {
  op: 'compact';
  /** The leaf the compaction was planned at; Pi refuses if its own leaf is another. */
  expectedLeafId: string;
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  details?: unknown;
  /** The summary call's usage, recorded by Pi with the entry (absent: none was reported). */
  usage?: unknown;
  waitMs?: number;
}

export interface NavigateRequest extends RequestBase {
  op: 'navigate';
  expectedLeafId: string | null;
  targetId: string;
  /** The approved branch summary, or absent for a plain move. */
  summary?: { text: string; details?: unknown };
  label?: string;
  waitMs?: number;
}

export interface LabelRequest extends RequestBase {
  op: 'label';
  entryId: string;
  /** The new label, or null to clear it. */
  label: string | null;
  waitMs?: number;
}

/**
 * Pi writes a summary with its own functions, model and credentials and returns it; nothing is written: of the
 * compaction at its leaf, or of the branch its leaf leaves for `targetId`.
 */
export interface SummarizeRequest extends RequestBase {
  op: 'summarize';
  kind: 'compaction' | 'branch';
  /** The leaf it is planned at; Pi refuses if its own leaf is another. */
  expectedLeafId: string;
  /** For a branch summary: where the jump goes. */
  targetId?: string;
  customInstructions?: string;
  /** For a branch summary: the instructions replace Pi's default ones. */
  replaceInstructions?: boolean;
  waitMs?: number;
}

export type BridgeRequest = StateRequest | CompactRequest | NavigateRequest | LabelRequest | SummarizeRequest;

/** What Pi's own summary functions made (never written by `summarize`): what `compact` or `navigate` then write once approved. */
export interface PiSummary {
  summary: string;
  /** A compaction's (absent for a branch summary). */
  firstKeptEntryId?: string;
  tokensBefore?: number;
  details?: unknown;
  /** The model call's usage as Pi recorded it. */
  usage?: unknown;
  /** Which of Pi's models wrote it. */
  model: { provider: string; id: string };
}

/** Which Pi, with which bridge, holds which session: in the announcement and in every state answer. */
export interface PiIdentity {
  pid: number;
  piVersion: string;
  bridgeVersion: string;
  sessionFile: string;
  sessionId: string;
  cwd: string;
}

export interface PiState extends PiIdentity {
  leafId: string | null;
  idle: boolean;
  model: { provider: string; id: string } | null;
  /** Pi's own figure (its last usage after the latest compaction, plus an estimate); tokens null when Pi does not know yet. */
  contextUsage: { tokens: number | null; contextWindow: number; percent: number | null } | null;
  /**
   * The `compaction` and `branchSummary` parts of Pi's effective settings (what Pi itself compacts by: project
   * settings only when Pi trusts the project), raw; null when Pi does not say. Validated by the reader.
   */
  settings?: { compaction?: unknown; branchSummary?: unknown } | null;
}

export interface WriteResult {
  /** The entries Pi appended (ids), in order. */
  entryIds: string[];
  /** Pi's leaf after the operation. */
  leafId: string | null;
  /** For navigate: the text Pi put back into its editor (a user message's), or null. */
  editorText?: string | null;
}

export type BridgeErrorCode =
  'unauthorized' | 'version' | 'bad-request' | 'too-large' | 'unknown-op' | 'busy' | 'stale' | 'not-found' | 'failed';

export type BridgeResponse =
  | { v: number; id?: string; ok: true; result: PiState | WriteResult | PiSummary }
  | { v: number; id?: string; ok: false; error: { code: BridgeErrorCode; message: string } };

/** A request that does not have the right shape: the message says which field. */
export class BridgeRequestError extends Error {
  constructor(
    readonly code: BridgeErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'BridgeRequestError';
  }
}

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(o: Obj, key: string, max = 256): string {
  const v = o[key];
  if (typeof v !== 'string' || v.length === 0 || v.length > max)
    throw new BridgeRequestError('bad-request', `"${key}" must be a non-empty string of at most ${max} characters`);
  return v;
}

function optionalWait(o: Obj): number | undefined {
  const v = o.waitMs;
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
    throw new BridgeRequestError('bad-request', '"waitMs" must be a non-negative number');
  return Math.min(v, MAX_IDLE_WAIT_MS);
}

/** `details` as given, or a bad-request error when it nests deeper than MAX_DETAILS_DEPTH (checked without recursion). */
function boundedDetails(value: unknown, key: string): unknown {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > MAX_DETAILS_DEPTH) throw new BridgeRequestError('bad-request', `"${key}" nests deeper than ${MAX_DETAILS_DEPTH} levels`);
    for (const child of Array.isArray(v) ? v : Object.values(v))
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return value;
}

/**
 * Checks a parsed request line's shape (not its token: the bridge compares
 * that in constant time). Unknown fields are ignored; a wrong type is an error
 * naming the field.
 */
export function validateRequest(raw: unknown): BridgeRequest {
  if (!isObject(raw)) throw new BridgeRequestError('bad-request', 'a request is a JSON object');
  if (raw.v !== PROTOCOL_VERSION)
    throw new BridgeRequestError(
      'version',
      `protocol version ${JSON.stringify(raw.v) ?? 'missing'} is not supported (this bridge speaks ${PROTOCOL_VERSION})`,
    );
  if (typeof raw.token !== 'string') throw new BridgeRequestError('unauthorized', 'missing token');
  const base: RequestBase = { v: PROTOCOL_VERSION, token: raw.token };
  if (typeof raw.id === 'string' && raw.id.length <= 64) base.id = raw.id;
  switch (raw.op) {
    case 'state':
      return { ...base, op: 'state' };
    case 'compact': {
      const summary = raw.summary;
      if (typeof summary !== 'string' || !summary.trim())
        throw new BridgeRequestError('bad-request', '"summary" must be a non-empty string');
      const tokensBefore = raw.tokensBefore;
      if (typeof tokensBefore !== 'number' || !Number.isFinite(tokensBefore) || tokensBefore < 0)
        throw new BridgeRequestError('bad-request', '"tokensBefore" must be a non-negative number');
      return {
        ...base,
        op: 'compact',
        expectedLeafId: str(raw, 'expectedLeafId'),
        summary,
        firstKeptEntryId: str(raw, 'firstKeptEntryId'),
        tokensBefore,
        details: boundedDetails(raw.details, 'details'),
        ...(raw.usage !== undefined ? { usage: boundedDetails(raw.usage, 'usage') } : {}),
        waitMs: optionalWait(raw),
      };
    }
    case 'navigate': {
      let summary: NavigateRequest['summary'];
      if (raw.summary !== undefined) {
        if (!isObject(raw.summary) || typeof raw.summary.text !== 'string' || !raw.summary.text.trim())
          throw new BridgeRequestError('bad-request', '"summary.text" must be a non-empty string');
        summary = { text: raw.summary.text, details: boundedDetails(raw.summary.details, 'summary.details') };
      }
      const label = raw.label === undefined ? undefined : str(raw, 'label', 4096);
      const expectedLeafId = raw.expectedLeafId === null ? null : str(raw, 'expectedLeafId');
      return { ...base, op: 'navigate', expectedLeafId, targetId: str(raw, 'targetId'), summary, label, waitMs: optionalWait(raw) };
    }
    case 'label': {
      const label = raw.label === null ? null : str(raw, 'label', 4096);
      return { ...base, op: 'label', entryId: str(raw, 'entryId'), label, waitMs: optionalWait(raw) };
    }
    case 'summarize': {
      if (raw.kind !== 'compaction' && raw.kind !== 'branch')
        throw new BridgeRequestError('bad-request', '"kind" must be "compaction" or "branch"');
      if (raw.replaceInstructions !== undefined && typeof raw.replaceInstructions !== 'boolean')
        throw new BridgeRequestError('bad-request', '"replaceInstructions" must be a boolean');
      let customInstructions: string | undefined;
      if (raw.customInstructions !== undefined) {
        if (typeof raw.customInstructions !== 'string' || raw.customInstructions.length > MAX_INSTRUCTIONS_CHARS)
          throw new BridgeRequestError(
            'bad-request',
            `"customInstructions" must be a string of at most ${MAX_INSTRUCTIONS_CHARS} characters`,
          );
        customInstructions = raw.customInstructions.trim() || undefined;
      }
      return {
        ...base,
        op: 'summarize',
        kind: raw.kind,
        expectedLeafId: str(raw, 'expectedLeafId'),
        ...(raw.kind === 'branch' ? { targetId: str(raw, 'targetId') } : {}),
        customInstructions,
        ...(raw.replaceInstructions === true ? { replaceInstructions: true } : {}),
        waitMs: optionalWait(raw),
      };
    }
    default:
      throw new BridgeRequestError(
        'unknown-op',
        `unknown operation ${describeOp(raw.op)}; this bridge knows state, compact, navigate, label and summarize`,
      );
  }
}

/** Checks a response line's shape (client side): anything else is a broken or foreign peer. */
export function validateResponse(raw: unknown): BridgeResponse {
  if (!isObject(raw) || typeof raw.ok !== 'boolean') throw new Error('the bridge answered something that is not a bridge response');
  if (raw.ok) {
    if (!isObject(raw.result)) throw new Error('the bridge answered without a result');
    return raw as BridgeResponse;
  }
  const error = isObject(raw.error) ? raw.error : {};
  const code = typeof error.code === 'string' ? (error.code as BridgeErrorCode) : 'failed';
  const message = typeof error.message === 'string' ? error.message.slice(0, 2000) : 'the bridge reported an error';
  return { v: typeof raw.v === 'number' ? raw.v : 0, ok: false, error: { code, message } };
}

export function isPiState(v: unknown): v is PiState {
  return (
    isObject(v) &&
    typeof v.pid === 'number' &&
    typeof v.sessionFile === 'string' &&
    typeof v.idle === 'boolean' &&
    (v.leafId === null || typeof v.leafId === 'string')
  );
}

export function isWriteResult(v: unknown): v is WriteResult {
  return (
    isObject(v) &&
    Array.isArray(v.entryIds) &&
    v.entryIds.every((id) => typeof id === 'string') &&
    (v.leafId === null || typeof v.leafId === 'string')
  );
}

export function isPiSummary(v: unknown): v is PiSummary {
  return (
    isObject(v) &&
    typeof v.summary === 'string' &&
    v.summary.trim().length > 0 &&
    (v.firstKeptEntryId === undefined || typeof v.firstKeptEntryId === 'string') &&
    (v.tokensBefore === undefined || typeof v.tokensBefore === 'number') &&
    isObject(v.model) &&
    typeof v.model.provider === 'string' &&
    typeof v.model.id === 'string'
  );
}

/** An unknown `op` as an error names it: a string quoted (its first 80 characters), anything else by its kind. */
function describeOp(op: unknown): string {
  if (typeof op === 'string') return JSON.stringify(op.slice(0, 80));
  return `(a ${op === null ? 'null' : Array.isArray(op) ? 'list' : typeof op})`;
}
