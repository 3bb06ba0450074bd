import { BridgeRequestError, type PiSummary } from '../engine/livePi/protocol';
import { redact } from '../engine/secrets/redact';
import type { PiContext, PiModel } from './piApi';

/**
 * The `summarize` request inside Pi (issue 33 item 2): Pi's own compaction
 * makes the summary. The bridge starts Pi's manual compaction (ctx.compact,
 * which prepares it with Pi's effective settings and the model's overrides);
 * in Pi's `session_before_compact` it calls Pi's summary function (`compact`)
 * with that preparation, Pi's current model and thinking level and the
 * credentials Pi's model registry resolves, keeps the result and cancels the
 * compaction, so nothing is written. The text and its usage go back to Arbor;
 * the key never leaves Pi (the approved text comes back as a `compact`
 * request). Pi reports the cancelled compaction as it does any cancelled one.
 */

/** The part of Pi's package the bridge calls (resolved from the running Pi: its extension loader maps the name to itself). */
interface PiCompaction {
  collectEntriesForBranchSummary?(session: unknown, oldLeafId: string | null, targetId: string): { entries: unknown[] };
  generateBranchSummary?(
    entries: unknown[],
    options: Record<string, unknown>,
  ): Promise<{ summary?: string; usage?: unknown; readFiles?: string[]; modifiedFiles?: string[]; aborted?: boolean; error?: string }>;
  compact(
    preparation: unknown,
    model: PiModel,
    apiKey: string | undefined,
    headers: Record<string, string> | undefined,
    customInstructions: string | undefined,
    signal: AbortSignal,
    thinkingLevel: string | undefined,
    streamFn: ((model: PiModel, context: unknown, options?: unknown) => unknown) | undefined,
    env: Record<string, string> | undefined,
  ): Promise<{ summary: string; firstKeptEntryId: string; tokensBefore: number; details?: unknown; usage?: unknown }>;
}

/** The longest a summary may take inside Pi (the client waits a little longer). */
export const PI_SUMMARY_TIMEOUT_MS = 540_000;

/** Pi's summary function, from the running Pi (the package name Pi 1.6 has first, then the one its loader also maps). */
function piCompaction(): PiCompaction {
  const errors: string[] = [];
  for (const name of ['@earendil-works/pi-coding-agent', '@mariozechner/pi-coding-agent']) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const m = require(name) as Partial<PiCompaction>;
      if (typeof m.compact === 'function') return m as PiCompaction;
      errors.push(`${name} has no compact()`);
    } catch (err) {
      errors.push(`${name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  throw new BridgeRequestError('failed', `this Pi does not offer its compaction functions to extensions (${errors.join('; ')})`);
}

/** Checks, before Pi's compaction starts, that this Pi can write the summary (a model, a registry that resolves credentials). */
export function checkPiCanSummarize(ctx: PiContext): void {
  if (!ctx.model)
    throw new BridgeRequestError('failed', 'Pi has no model selected, so it cannot write the summary; choose one in Pi (/model)');
  if (!ctx.modelRegistry?.getApiKeyAndHeaders)
    throw new BridgeRequestError(
      'failed',
      'this Pi does not let extensions call its model (Pi 1.6 or later does); choose another summarizer',
    );
  piCompaction();
}

/** Inside `session_before_compact`: Pi's summary of Pi's preparation, with Pi's model and credentials. */
export async function summarizePreparation(
  ctx: PiContext,
  preparation: unknown,
  customInstructions: string | undefined,
  signal: AbortSignal | undefined,
): Promise<PiSummary> {
  const model = ctx.model;
  const registry = ctx.modelRegistry;
  if (!model || !registry?.getApiKeyAndHeaders) throw new BridgeRequestError('failed', 'Pi has no model or model registry');
  const { compact } = piCompaction();
  const auth = await registry.getApiKeyAndHeaders(model);
  if (!auth.ok)
    throw new BridgeRequestError('failed', `Pi has no usable credentials for ${model.provider}/${model.id}: ${redact(auth.error)}`);
  // Pi's own streaming through its registry: providers that extensions registered work too.
  const streamFn = registry.streamSimple ? (m: PiModel, c: unknown, o?: unknown) => registry.streamSimple!(m, c, o) : undefined;
  const timeout = AbortSignal.timeout(PI_SUMMARY_TIMEOUT_MS);
  const bounded = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let result;
  try {
    result = await compact(
      preparation,
      model,
      auth.apiKey,
      auth.headers,
      customInstructions,
      bounded,
      ctx.thinkingLevel,
      streamFn,
      auth.env,
    );
  } catch (err) {
    const why = timeout.aborted
      ? `no answer within ${PI_SUMMARY_TIMEOUT_MS / 1000} s`
      : scrubbed(err instanceof Error ? err.message : String(err), auth);
    throw new BridgeRequestError(
      'failed',
      `Pi's model ${model.provider}/${model.id} could not write the summary: ${why}; nothing was written`,
    );
  }
  if (!result?.summary?.trim())
    throw new BridgeRequestError('failed', `Pi's model ${model.provider}/${model.id} returned an empty summary; nothing was written`);
  return {
    // A model that echoes the key in its answer: the answer leaves Pi without it.
    summary: redact(result.summary, secretsOf(auth)),
    firstKeptEntryId: result.firstKeptEntryId,
    tokensBefore: result.tokensBefore,
    details: result.details,
    usage: result.usage,
    model: { provider: String(model.provider), id: String(model.id) },
  };
}

/**
 * The summary of the branch Pi's leaf leaves for `targetId`, by Pi's own branch summarization (the entries it
 * collects, its prompt and budget from `branchSummary.reserveTokens`) with Pi's model and credentials. Nothing is
 * written and Pi does not move: the approved text comes back as a navigate request.
 */
export async function summarizeBranchInPi(
  ctx: PiContext,
  args: { targetId: string; customInstructions?: string; replaceInstructions?: boolean; reserveTokens: number; signal: AbortSignal },
): Promise<PiSummary> {
  checkPiCanSummarize(ctx);
  const model = ctx.model!;
  const registry = ctx.modelRegistry!;
  const pi = piCompaction();
  if (!pi.collectEntriesForBranchSummary || !pi.generateBranchSummary)
    throw new BridgeRequestError('failed', 'this Pi does not offer its branch summarization to extensions; choose another summarizer');
  if (!ctx.sessionManager.getEntry(args.targetId))
    throw new BridgeRequestError('not-found', `entry ${args.targetId} is not in Pi's session`);
  const { entries } = pi.collectEntriesForBranchSummary(ctx.sessionManager, ctx.sessionManager.getLeafId(), args.targetId);
  if (!entries.length) throw new BridgeRequestError('failed', 'the jump leaves no branch behind: there is nothing to summarize');
  const auth = await registry.getApiKeyAndHeaders!(model);
  if (!auth.ok)
    throw new BridgeRequestError('failed', `Pi has no usable credentials for ${model.provider}/${model.id}: ${redact(auth.error)}`);
  const streamFn = registry.streamSimple ? (m: PiModel, c: unknown, o?: unknown) => registry.streamSimple!(m, c, o) : undefined;
  const timeout = AbortSignal.timeout(PI_SUMMARY_TIMEOUT_MS);
  let result: Awaited<ReturnType<NonNullable<PiCompaction['generateBranchSummary']>>>;
  try {
    result = await pi.generateBranchSummary(entries, {
      model,
      apiKey: auth.apiKey,
      headers: auth.headers,
      env: auth.env,
      signal: AbortSignal.any([args.signal, timeout]),
      thinkingLevel: ctx.thinkingLevel,
      customInstructions: args.customInstructions,
      replaceInstructions: args.replaceInstructions,
      reserveTokens: args.reserveTokens,
      streamFn,
    });
  } catch (err) {
    const why = scrubbed(err instanceof Error ? err.message : String(err), auth);
    throw new BridgeRequestError(
      'failed',
      `Pi's model ${model.provider}/${model.id} could not write the branch summary: ${why}; nothing was written`,
    );
  }
  const who = `Pi's model ${model.provider}/${model.id}`;
  if (result.aborted || timeout.aborted)
    throw new BridgeRequestError('failed', `${who} did not finish the branch summary; nothing was written`);
  if (result.error)
    throw new BridgeRequestError('failed', `${who} could not write the branch summary: ${result.error}; nothing was written`);
  if (!result.summary?.trim()) throw new BridgeRequestError('failed', `${who} returned an empty branch summary; nothing was written`);
  return {
    // A model that echoes the key in its answer: the answer leaves Pi without it.
    summary: redact(result.summary, secretsOf(auth)),
    // Pi's own lists of the branch (what Pi's navigateTree records as the entry's details).
    details: { readFiles: listOf(result.readFiles), modifiedFiles: listOf(result.modifiedFiles) },
    usage: result.usage,
    model: { provider: String(model.provider), id: String(model.id) },
  };
}

function listOf(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** Every credential a request used (the key, header and environment values): no message that leaves Pi holds one. */
function secretsOf(auth: { apiKey?: string; headers?: Record<string, string>; env?: Record<string, string> }): string[] {
  return [auth.apiKey, ...Object.values(auth.headers ?? {}), ...Object.values(auth.env ?? {})].filter(
    (v): v is string => typeof v === 'string' && v.length >= 8,
  );
}

/** A failure of Pi's model call as the bridge reports it: the provider's words, with any credential taken out. */
function scrubbed(message: string, auth: Parameters<typeof secretsOf>[0]): string {
  return redact(message, secretsOf(auth)).slice(0, 1000);
}
