import Anthropic from '@anthropic-ai/sdk';
import type { Usage } from '../../session/types';
import { SummarizationError, emptyUsage, type Summarizer, type SummaryRequest } from '../summarizer';
import { httpSummarizer, isObject, num, resolveHttpSetup, type HttpSummarizerOptions } from './common';
import { redact } from '../../secrets/redact';
import { PROVIDER_VARIABLES } from './providerNames';
import { withCost } from './models';

/**
 * Summaries through the Anthropic Messages API. One-off request: the system
 * prompt as a plain string, one user message, no tools, no `cache_control`
 * anywhere (so nothing is written to the prompt cache), and a fresh
 * `metadata.user_id` per summarization (`SummaryRequest.requestId`).
 */

/** Key and base URL default to ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL, else https://api.anthropic.com. */
export type AnthropicSummarizerOptions = HttpSummarizerOptions;

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

/** Messages API usage -> Arbor usage. */
export function anthropicUsage(u: unknown): Usage {
  const usage = emptyUsage();
  if (!isObject(u)) return usage;
  usage.input = num(u.input_tokens);
  usage.output = num(u.output_tokens);
  usage.cacheRead = num(u.cache_read_input_tokens);
  usage.cacheWrite = num(u.cache_creation_input_tokens);
  usage.totalTokens = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
  return usage;
}

interface Answer {
  text: string;
  stopReason: string | null;
  toolCall: boolean;
  usage: Record<string, unknown>;
  complete: boolean;
  streamed: boolean;
}

const isToolBlock = (type: unknown) => typeof type === 'string' && (type === 'tool_use' || type.endsWith('tool_use'));

function validate(provider: string, a: Answer): string {
  if (a.toolCall || a.stopReason === 'tool_use')
    throw new SummarizationError(`${provider}: the model answered with a tool call instead of a summary`);
  if (a.stopReason === 'max_tokens') {
    throw new SummarizationError(`${provider}: the summary was cut off at the output token limit (stop_reason "max_tokens")`);
  }
  if (a.stopReason === 'refusal') throw new SummarizationError(`${provider}: the model refused to summarize`);
  if (a.stopReason === 'model_context_window_exceeded')
    throw new SummarizationError(`${provider}: the conversation is too large for the model's context window`);
  if (a.stopReason === 'pause_turn') throw new SummarizationError(`${provider}: the model paused before finishing the summary`);
  if (a.streamed && !a.complete)
    throw new SummarizationError(`${provider}: the stream ended before the answer was complete`, { retryable: true });
  const text = a.text.trim();
  if (!text) throw new SummarizationError(`${provider}: the model returned an empty summary`);
  return text;
}

function mergeUsage(into: Record<string, unknown>, from: unknown): void {
  if (!isObject(from)) return;
  for (const [k, v] of Object.entries(from)) if (typeof v === 'number') into[k] = v;
}

export function createAnthropicSummarizer(options: AnthropicSummarizerOptions): Summarizer {
  const { provider, baseURL, configuredKey, info, pricing, stream, timeoutMs, deadlineMs, maxAnswerChars, fetch } = resolveHttpSetup(
    options,
    {
      provider: 'anthropic',
      keyVariable: PROVIDER_VARIABLES.anthropic.key,
      baseURL: ANTHROPIC_DEFAULT_BASE_URL,
    },
  );
  let official = false;
  try {
    official = new URL(baseURL).hostname === 'api.anthropic.com';
  } catch {
    /* an invalid URL fails at the first request */
  }
  if (!configuredKey && official) throw new SummarizationError(`${provider}: no API key: set ANTHROPIC_API_KEY or configure one`);
  const secrets = [configuredKey];

  let client: Anthropic;
  try {
    // An explicit key keeps the SDK from looking for credentials in profiles or other variables.
    client = new Anthropic({
      apiKey: configuredKey ?? 'arbor-no-key',
      authToken: null,
      baseURL,
      maxRetries: 0,
      timeout: timeoutMs,
      // Engine code does not write to the console: failures come back as SummarizationErrors.
      logLevel: 'off',
      openTelemetry: false,
      fetch,
    });
  } catch (err) {
    throw new SummarizationError(
      `${provider}: could not set up the client: ${redact(err instanceof Error ? err.message : String(err), secrets)}`,
    );
  }

  async function once(request: SummaryRequest, signal: AbortSignal, touch: (answerChars?: number) => void): Promise<Answer> {
    const body = {
      model: options.model,
      max_tokens: Math.max(1, Math.min(request.maxOutputTokens, info.maxOutputTokens)),
      system: request.systemPrompt,
      messages: [{ role: 'user' as const, content: request.prompt }],
      metadata: { user_id: request.requestId },
    };
    const requestOptions = { signal, timeout: timeoutMs };
    if (!stream) {
      const message: unknown = await client.messages.create({ ...body, stream: false }, requestOptions);
      touch();
      if (!isObject(message) || !Array.isArray(message.content))
        throw new SummarizationError(`${provider}: malformed response (no content)`);
      const blocks = message.content.filter(isObject);
      return {
        text: blocks
          .filter((b) => b.type === 'text' && typeof b.text === 'string')
          .map((b) => b.text as string)
          .join(''),
        stopReason: typeof message.stop_reason === 'string' ? message.stop_reason : null,
        toolCall: blocks.some((b) => isToolBlock(b.type)),
        usage: isObject(message.usage) ? message.usage : {},
        complete: true,
        streamed: false,
      };
    }
    const events = await client.messages.create({ ...body, stream: true }, requestOptions);
    touch();
    const answer: Answer = { text: '', stopReason: null, toolCall: false, usage: {}, complete: false, streamed: true };
    for await (const event of events as AsyncIterable<unknown>) {
      touch();
      if (!isObject(event)) throw new SummarizationError(`${provider}: malformed stream event`);
      switch (event.type) {
        case 'message_start':
          if (isObject(event.message)) mergeUsage(answer.usage, event.message.usage);
          break;
        case 'content_block_start':
          if (isObject(event.content_block)) {
            const block = event.content_block;
            if (isToolBlock(block.type)) answer.toolCall = true;
            else if (block.type === 'text' && typeof block.text === 'string') answer.text += block.text;
          }
          break;
        case 'content_block_delta':
          if (isObject(event.delta)) {
            if (event.delta.type === 'text_delta' && typeof event.delta.text === 'string') answer.text += event.delta.text;
            else if (event.delta.type === 'input_json_delta') answer.toolCall = true;
          }
          break;
        case 'message_delta':
          if (isObject(event.delta) && typeof event.delta.stop_reason === 'string') answer.stopReason = event.delta.stop_reason;
          mergeUsage(answer.usage, event.usage);
          break;
        case 'message_stop':
          answer.complete = true;
          break;
      }
      touch(answer.text.length);
    }
    return answer;
  }

  return httpSummarizer({
    provider,
    model: options.model,
    contextWindow: info.contextWindow,
    maxOutputTokens: info.maxOutputTokens,
    timeoutMs,
    deadlineMs,
    maxAnswerChars,
    secrets,
    retry: options.retry,
    maxRetries: options.maxRetries,
    sdk: Anthropic,
    request: once,
    result: (answer: Answer) => ({ text: validate(provider, answer), usage: withCost(anthropicUsage(answer.usage), pricing) }),
  });
}
