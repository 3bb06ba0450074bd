import OpenAI from 'openai';
import type { Usage } from '../../session/types';
import { SummarizationError, emptyUsage, type Summarizer, type SummaryRequest } from '../summarizer';
import { httpSummarizer, isObject, num, resolveHttpSetup, type HttpSummarizerOptions } from './common';
import { redact } from '../../secrets/redact';
import { PROVIDER_VARIABLES } from './providerNames';
import { withCost } from './models';

/**
 * Summaries through the OpenAI Chat Completions API, or any server that
 * speaks it (Ollama, vLLM, LM Studio, llama.cpp server...) via `baseURL`.
 *
 * The request is a one-off: a system message and one user message, no tools,
 * no `user` / `prompt_cache_key` (nothing that would route it to, or seed, a
 * shared prompt cache; OpenAI's automatic prefix caching cannot be switched
 * off), and a fresh `x-client-request-id` header per summarization
 * (`SummaryRequest.requestId`).
 *
 * Output budget field: `max_completion_tokens` for api.openai.com (the only
 * one its reasoning models accept), `max_tokens` for other base URLs (the one
 * every OpenAI-compatible server understands). `maxTokensField` overrides.
 */

/** Key and base URL default to OPENAI_API_KEY / OPENAI_BASE_URL, else https://api.openai.com/v1; a local server needs no key (a placeholder is sent). */
export interface OpenAISummarizerOptions extends HttpSummarizerOptions {
  maxTokensField?: 'max_completion_tokens' | 'max_tokens';
}

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** Sent as the key when none is configured for a custom base URL (local servers ignore it). */
export const LOCAL_PLACEHOLDER_KEY = 'arbor-no-key';

function isOfficialOpenAI(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

/** Chat Completions usage -> Arbor usage. Cached prompt tokens count as cacheRead, not input. */
export function openAIUsage(u: unknown): Usage {
  const usage = emptyUsage();
  if (!isObject(u)) return usage;
  const prompt = num(u.prompt_tokens);
  const cached = Math.min(prompt, num(isObject(u.prompt_tokens_details) ? u.prompt_tokens_details.cached_tokens : 0));
  usage.input = prompt - cached;
  usage.cacheRead = cached;
  usage.output = num(u.completion_tokens);
  usage.totalTokens = num(u.total_tokens) || prompt + usage.output;
  return usage;
}

interface Answer {
  text: string;
  finishReason: string | null | undefined;
  toolCall: boolean;
  refusal: string;
  usage: unknown;
  streamed: boolean;
}

function validate(provider: string, a: Answer): string {
  if (a.toolCall || a.finishReason === 'tool_calls' || a.finishReason === 'function_call') {
    throw new SummarizationError(`${provider}: the model answered with a tool call instead of a summary`);
  }
  if (a.finishReason === 'length') {
    throw new SummarizationError(`${provider}: the summary was cut off at the output token limit (finish_reason "length")`);
  }
  if (a.finishReason === 'content_filter') throw new SummarizationError(`${provider}: the answer was withheld by the content filter`);
  if (a.refusal.trim()) throw new SummarizationError(`${provider}: the model refused to summarize: ${a.refusal.trim().slice(0, 200)}`);
  if (a.streamed && !a.finishReason) {
    throw new SummarizationError(`${provider}: the stream ended before the answer was complete`, { retryable: true });
  }
  const text = a.text.trim();
  if (!text) throw new SummarizationError(`${provider}: the model returned an empty summary`);
  return text;
}

export function createOpenAISummarizer(options: OpenAISummarizerOptions): Summarizer {
  const { provider, baseURL, configuredKey, info, pricing, stream, timeoutMs, deadlineMs, maxAnswerChars, fetch } = resolveHttpSetup(
    options,
    {
      provider: 'openai',
      keyVariable: PROVIDER_VARIABLES.openai.key,
      baseURL: OPENAI_DEFAULT_BASE_URL,
    },
  );
  const official = isOfficialOpenAI(baseURL);
  if (!configuredKey && official) {
    throw new SummarizationError(
      `${provider}: no API key: set OPENAI_API_KEY or configure one (a local OpenAI-compatible server needs a base URL instead)`,
    );
  }
  const apiKey = configuredKey ?? LOCAL_PLACEHOLDER_KEY;
  const secrets = [configuredKey];
  const tokensField = options.maxTokensField ?? (official ? 'max_completion_tokens' : 'max_tokens');

  let client: OpenAI;
  try {
    client = new OpenAI({
      apiKey,
      baseURL,
      maxRetries: 0,
      timeout: timeoutMs,
      // Engine code does not write to the console: failures come back as SummarizationErrors.
      logLevel: 'off',
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
      messages: [
        { role: 'system' as const, content: request.systemPrompt },
        { role: 'user' as const, content: request.prompt },
      ],
      [tokensField]: Math.max(1, Math.min(request.maxOutputTokens, info.maxOutputTokens)),
    };
    const requestOptions = { signal, timeout: timeoutMs, headers: { 'x-client-request-id': request.requestId } };
    if (!stream) {
      const completion: unknown = await client.chat.completions.create({ ...body, stream: false }, requestOptions);
      touch();
      if (!isObject(completion) || !Array.isArray(completion.choices)) {
        throw new SummarizationError(`${provider}: malformed response (no choices)`);
      }
      const choice = completion.choices[0];
      if (!isObject(choice) || !isObject(choice.message)) throw new SummarizationError(`${provider}: malformed response (no message)`);
      const m = choice.message;
      return {
        text: typeof m.content === 'string' ? m.content : '',
        finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
        toolCall: (Array.isArray(m.tool_calls) && m.tool_calls.length > 0) || isObject(m.function_call),
        refusal: typeof m.refusal === 'string' ? m.refusal : '',
        usage: completion.usage,
        streamed: false,
      };
    }
    const chunks = await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, requestOptions);
    touch();
    const answer: Answer = { text: '', finishReason: null, toolCall: false, refusal: '', usage: undefined, streamed: true };
    for await (const chunk of chunks as AsyncIterable<unknown>) {
      touch();
      if (!isObject(chunk)) throw new SummarizationError(`${provider}: malformed stream chunk`);
      if (isObject(chunk.usage)) answer.usage = chunk.usage;
      for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
        if (!isObject(choice) || (typeof choice.index === 'number' && choice.index !== 0)) continue;
        const delta = isObject(choice.delta) ? choice.delta : {};
        if (typeof delta.content === 'string') answer.text += delta.content;
        if (typeof delta.refusal === 'string') answer.refusal += delta.refusal;
        if ((Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0) || isObject(delta.function_call)) answer.toolCall = true;
        if (typeof choice.finish_reason === 'string' && choice.finish_reason) answer.finishReason = choice.finish_reason;
      }
      touch(answer.text.length + answer.refusal.length);
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
    sdk: OpenAI,
    request: once,
    result: (answer: Answer) => ({ text: validate(provider, answer), usage: withCost(openAIUsage(answer.usage), pricing) }),
  });
}
