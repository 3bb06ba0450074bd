import { AbortError, SummarizationError, throwIfAborted, type Summarizer, type SummaryRequest, type SummaryResult } from '../summarizer';
import { AnswerTooLargeError, DEFAULT_DEADLINE_MS, DEFAULT_MAX_ANSWER_CHARS, DeadlineError, timerMs } from './limits';
import { FALLBACK_MODEL_INFO } from './models';

/**
 * A summarizer over a chat model the host offers (VS Code's Language Model
 * API: GitHub Copilot's models, an installed provider's), reached through a
 * port so the engine holds no `vscode` import: the adapter turns the port's
 * calls into the host's API and its failures into ChatModelError. The host
 * handles credentials and consent; nothing here sees a key.
 */

/** A host's model, as the adapter describes it. */
export interface ChatModelPort {
  /** The host's provider name ("vscode"): what the panel names as the summarizer's provider. */
  host: string;
  /** How messages name the host's models ("VS Code language model"). */
  hostLabel: string;
  vendor: string;
  id: string;
  /** The model's display name. */
  name: string;
  /** Tokens the model takes as input (the conversation bound and the branch budget are read from it). */
  maxInputTokens: number;
  /** The model's own count of a text's tokens. */
  countTokens(text: string, signal: AbortSignal): Promise<number>;
  /** Sends the prompt and streams the answer's text parts; ends when the answer is complete. */
  send(prompt: { system: string; user: string }, signal: AbortSignal): AsyncIterable<string>;
}

/** What the host reported when a request failed, as the adapter classified it. */
export type ChatModelFailure = 'no-permission' | 'blocked' | 'not-found' | 'quota' | 'other';

/** A failure the adapter read from the host (its message already says what happened). */
export class ChatModelError extends Error {
  constructor(
    readonly failure: ChatModelFailure,
    message: string,
  ) {
    super(message);
    this.name = 'ChatModelError';
  }
}

export interface ChatModelSummarizerOptions {
  /** Overall deadline of one summary (default DEFAULT_DEADLINE_MS). */
  deadlineMs?: number;
  /** A longer answer fails and nothing is written (default DEFAULT_MAX_ANSWER_CHARS). */
  maxAnswerChars?: number;
  /** Output budget asked in the prompt (the API states no output limit; default FALLBACK_MODEL_INFO's). */
  maxOutputTokens?: number;
}

/** What to do about each failure, after the host's own message. */
const ADVICE: Readonly<Record<ChatModelFailure, string>> = Object.freeze({
  'no-permission':
    'Arbor may not use this model: allow it when VS Code asks (or in the Accounts menu, Manage Language Model Access), or run "Arbor: Choose Summarizer Model"',
  blocked: 'the request was blocked (too many requests, or the provider refused the content); wait and try again, or choose another model',
  'not-found': 'the model is no longer offered; run "Arbor: Choose Summarizer Model"',
  quota: 'the model\'s quota is used up; wait, or run "Arbor: Choose Summarizer Model" for another',
  other: 'try again, or run "Arbor: Choose Summarizer Model" for another model',
});

/** The summarizer's name for a model: `vendor/id`. */
export function chatModelName(model: Pick<ChatModelPort, 'vendor' | 'id'>): string {
  return `${model.vendor}/${model.id}`;
}

export function createChatModelSummarizer(port: ChatModelPort, options: ChatModelSummarizerOptions = {}): Summarizer {
  const maxOutputTokens = options.maxOutputTokens ?? FALLBACK_MODEL_INFO.maxOutputTokens;
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const maxAnswerChars = options.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS;
  const model = chatModelName(port);
  const who = `${port.hostLabel} ${model} (${port.name})`;
  return {
    provider: port.host,
    model,
    // The prompt's bound subtracts the output budget from the window: the window is the input limit plus that budget.
    contextWindow: port.maxInputTokens + maxOutputTokens,
    maxOutputTokens,
    async summarize(request: SummaryRequest, signal?: AbortSignal): Promise<SummaryResult> {
      throwIfAborted(signal);
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(new DeadlineError(who, deadlineMs)), timerMs(deadlineMs));
      const bounded = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal;
      try {
        const prompt = { system: request.systemPrompt, user: request.prompt };
        const tokens = await port.countTokens(`${prompt.system}\n\n${prompt.user}`, bounded);
        if (tokens > port.maxInputTokens)
          throw new SummarizationError(
            `${who}: the request is ${tokens.toLocaleString('en-US')} tokens by the model's count, over its ` +
              `${port.maxInputTokens.toLocaleString('en-US')}-token input limit; nothing was written (choose a model with a larger window)`,
          );
        let text = '';
        for await (const part of port.send(prompt, bounded)) {
          if (bounded.aborted) break;
          text += part;
          if (text.length > maxAnswerChars) throw new AnswerTooLargeError(who, maxAnswerChars);
        }
        throwIfAborted(bounded);
        text = text.trim();
        if (!text) throw new SummarizationError(`${who}: the model returned an empty summary; nothing was written`);
        // No usage: the API reports none (summarizerNote.ts says so in the panel); an estimate would pass for the model's figure.
        return { text };
      } catch (err) {
        if (deadline.signal.aborted && !signal?.aborted) throw deadline.signal.reason as DeadlineError;
        if (signal?.aborted) throw new AbortError(undefined, { cause: signal.reason });
        throw failure(err, who);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

function failure(err: unknown, who: string): unknown {
  if (err instanceof SummarizationError || (err instanceof Error && err.name === 'AbortError')) return err;
  if (err instanceof ChatModelError)
    return new SummarizationError(`${who}: ${err.message}; ${ADVICE[err.failure]}. Nothing was written.`, {
      retryable: err.failure === 'blocked' || err.failure === 'other',
    });
  const message = err instanceof Error ? err.message : String(err);
  return new SummarizationError(`${who}: ${message.slice(0, 500)}; ${ADVICE.other}. Nothing was written.`, { cause: err });
}
