import { throwIfAborted, type Summarizer, type SummaryRequest, type SummaryResult } from '../summarizer';
import { extract } from '../offline/extract';
import { focusOf } from '../offline/instructions';
import { withEarlier, type Earlier } from '../offline/earlier';
import { build, FULL_CAPS, shrink, type Caps } from '../offline/checkpoint';
import { buildTurnPrefix } from '../offline/turnPrefix';
import type { Extraction } from '../offline/extract';
import { FALLBACK_MODEL_INFO } from './models';

/**
 * A deterministic, extractive summarizer: no network, no key, no model. It
 * writes a checkpoint (spec 7), not a log: the user's objectives, their
 * constraints, each finished request as one outcome with its numbers, the
 * work left open and the errors no later step resolved, the exact paths,
 * commands and error messages that still matter, and the pinned entries.
 * Bounded: at most SUMMARY_MAX_TOKENS (about 4 characters a token) however
 * long the span. The same request always gives byte-identical text. Custom
 * instructions steer what it keeps when it must cut (see offline/instructions.ts).
 * It calls no model, so its result carries no usage.
 */

export interface OfflineSummarizerOptions {
  contextWindow?: number;
  maxOutputTokens?: number;
}

export const OFFLINE_MODEL = 'extractive-v3';

/** The size bound of an offline summary (pinned part included, file lists excluded). */
export const SUMMARY_MAX_TOKENS = 1500;

/** The offline summary text for a request (pure and deterministic). */
export function offlineSummaryText(request: SummaryRequest): string {
  // A compaction's span was read by its run step (shared with the retention facts): read here, never changed.
  if (!request.extraction && !request.messages)
    throw new Error("the offline summarizer reads a span's extraction or its messages: the request has neither");
  const shared = request.extraction ?? extract(request.messages!, { cwd: request.cwd });
  const focus = focusOf(request.customInstructions);
  const pinned = request.kind === 'history' || request.kind === 'update' ? (request.pinned?.trim() ?? '') : '';
  const budgetChars = Math.min(Math.max(1, request.maxOutputTokens), SUMMARY_MAX_TOKENS) * 4 - (pinned ? pinned.length + 2 : 0);
  let checkpoint: { x: Extraction; earlier: Earlier } | undefined;
  const render = (caps: Caps) => {
    if (request.kind === 'turnPrefix') return buildTurnPrefix(shared, caps, request.cwd);
    checkpoint ??= withEarlier(shared, request);
    const { x, earlier } = checkpoint;
    return build(
      { x, earlier, kind: request.kind, focus, openTurnRequest: request.openTurnRequest, keptAfter: request.keptAfter, cwd: request.cwd },
      caps,
    );
  };
  let caps = FULL_CAPS;
  let text = render(caps);
  for (let k = 0; k < 8 && text.length > budgetChars; k++) {
    caps = shrink(caps);
    text = render(caps);
  }
  if (text.length > Math.max(200, budgetChars))
    text = `${text.slice(0, Math.max(200, budgetChars) - 40).trimEnd()}\n[summary cut at its size limit]`;
  return pinned ? `${text}\n\n${pinned}` : text;
}

/** What the offline summarizer did, for the panel and the CLI (it makes no model call, so there is no usage). */

export function createOfflineSummarizer(options: OfflineSummarizerOptions = {}): Summarizer {
  return {
    provider: 'offline',
    model: OFFLINE_MODEL,
    contextWindow: options.contextWindow ?? FALLBACK_MODEL_INFO.contextWindow,
    maxOutputTokens: options.maxOutputTokens ?? FALLBACK_MODEL_INFO.maxOutputTokens,
    readsExtraction: true,
    async summarize(request: SummaryRequest, signal?: AbortSignal): Promise<SummaryResult> {
      throwIfAborted(signal);
      const text = offlineSummaryText(request);
      throwIfAborted(signal);
      return { text };
    },
  };
}
