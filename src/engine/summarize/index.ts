/** Summarization: prompts, providers, the summary format. Engine code: no vscode, no I/O but the providers' HTTP calls. */
export * from './summarizer';
export * from './serialize';
export * from './prompts';
export * from './parseSummary';
export { createSummarizer, DEFAULT_SUMMARY_MODELS, type CreateSummarizerOptions, type SummarizerProvider } from './providers/createSummarizer';
export { createOfflineSummarizer, offlineSummaryText, OFFLINE_MODEL, type OfflineSummarizerOptions } from './providers/offline';
export { createOpenAISummarizer, openAIUsage, type OpenAISummarizerOptions } from './providers/openai';
export { createAnthropicSummarizer, anthropicUsage, type AnthropicSummarizerOptions } from './providers/anthropic';
export { withRetry, sleep, backoffDelay, parseRetryAfter, isRetryableStatus, DEFAULT_RETRY_OPTIONS, type RetryOptions, type RetryInfo } from './providers/retry';
export { MODEL_TABLE, FALLBACK_MODEL_INFO, lookupModel, resolveModelInfo, withCost, type ModelInfo, type ModelPricing } from './providers/models';
export { redact } from './providers/common';
