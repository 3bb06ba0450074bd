import { SummarizationError, type Summarizer } from '../summarizer';
import { redact, redactKnownSecrets } from '../../secrets/redact';
import { createOfflineSummarizer } from './offline';
import type { HttpSummarizerOptions } from './common';
import { FALLBACK_MODEL_INFO, resolveModelInfo } from './models';
import {
  DEFAULT_SUMMARIZER_PROVIDER,
  PROVIDER_VARIABLES,
  SUMMARIZER_PROVIDERS,
  type HttpProvider,
  type SummarizerProvider,
} from './providerNames';
import { orList } from '../../text/orList';

// The SDKs load only when their provider is used (the CLI starts faster on the offline default).
/* eslint-disable @typescript-eslint/no-require-imports */
const loadOpenAI = () => (require('./openai') as typeof import('./openai')).createOpenAISummarizer;
const loadAnthropic = () => (require('./anthropic') as typeof import('./anthropic')).createAnthropicSummarizer;
/* eslint-enable @typescript-eslint/no-require-imports */

export type { SummarizerProvider } from './providerNames';

/** The HTTP summarizers' options (one home: HttpSummarizerOptions), with the provider to choose and its model optional. */
export interface CreateSummarizerOptions extends Omit<HttpSummarizerOptions, 'model' | 'providerName' | 'pricing'> {
  /** Default DEFAULT_SUMMARIZER_PROVIDER (offline): no network unless a provider is chosen. */
  provider?: SummarizerProvider;
  /** Default: DEFAULT_SUMMARY_MODELS[provider]. */
  model?: string;
}

/**
 * Models used when none is configured (CLI and extension): fast, inexpensive,
 * with large windows, and not on the Anthropic SDK's deprecation list
 * (claude-sonnet-4-5 is: end-of-life November 30th, 2026).
 */
export const DEFAULT_SUMMARY_MODELS: Readonly<Record<HttpProvider, string>> = Object.freeze({
  openai: 'gpt-4.1-mini',
  anthropic: 'claude-haiku-4-5',
});

/**
 * The context window the summarizer of these options will have, without building it (no key needed):
 * what `arbor plan-branch` budgets with, so its budget is the one `navigate --summarize` uses.
 */
export function summarizerContextWindow(options: Pick<CreateSummarizerOptions, 'provider' | 'model' | 'contextWindow'>): number {
  const provider = options.provider ?? DEFAULT_SUMMARIZER_PROVIDER;
  if (provider === 'offline') return options.contextWindow ?? FALLBACK_MODEL_INFO.contextWindow;
  return resolveModelInfo(options.model || DEFAULT_SUMMARY_MODELS[provider], { contextWindow: options.contextWindow }).contextWindow;
}

/**
 * Builds the summarizer for the configured provider. Errors never carry an
 * API key: whatever is thrown here or by `summarize` has keys redacted.
 */
export function createSummarizer(options: CreateSummarizerOptions = {}): Summarizer {
  const provider = options.provider ?? DEFAULT_SUMMARIZER_PROVIDER;
  const env = options.env ?? process.env;
  const secrets = [options.apiKey, ...Object.values(PROVIDER_VARIABLES).map((v) => env[v.key])];
  const { provider: _provider, model: _model, ...rest } = options;
  const common = { ...rest, env };
  try {
    switch (provider) {
      case 'offline':
        return createOfflineSummarizer({ contextWindow: options.contextWindow, maxOutputTokens: options.maxOutputTokens });
      case 'openai':
        return guard(loadOpenAI()({ ...common, model: options.model || DEFAULT_SUMMARY_MODELS.openai }), secrets);
      case 'anthropic':
        return guard(loadAnthropic()({ ...common, model: options.model || DEFAULT_SUMMARY_MODELS.anthropic }), secrets);
      default:
        throw new SummarizationError(`unknown summarizer provider "${String(provider)}" (expected ${orList(SUMMARIZER_PROVIDERS)})`);
    }
  } catch (err) {
    throw sanitize(err, secrets);
  }
}

function sanitize(err: unknown, secrets: readonly (string | undefined)[]): unknown {
  if (!(err instanceof Error) || err.name === 'AbortError') return err;
  const message = redact(err.message, secrets);
  if (err instanceof SummarizationError && message === err.message) return err;
  return new SummarizationError(message, { retryable: err instanceof SummarizationError && err.retryable });
}

/** A last line of defence: whatever a provider returns or throws leaves without keys (in any form). */
function guard(inner: Summarizer, secrets: readonly (string | undefined)[]): Summarizer {
  return {
    provider: inner.provider,
    model: inner.model,
    contextWindow: inner.contextWindow,
    maxOutputTokens: inner.maxOutputTokens,
    summarize: (request, signal) =>
      inner.summarize(request, signal).then(
        (result) => ({ ...result, text: redactKnownSecrets(result.text, secrets) }),
        (err: unknown) => {
          throw sanitize(err, secrets);
        },
      ),
  };
}
