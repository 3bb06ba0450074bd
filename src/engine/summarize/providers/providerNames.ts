/** Who writes a summary: the one list for the CLI's --provider, the extension's arbor.summarizer.provider and the factory. */
export type SummarizerProvider = 'offline' | 'openai' | 'anthropic';

/** The summarizers that call a model over HTTP. */
export type HttpProvider = Exclude<SummarizerProvider, 'offline'>;

/** Where each HTTP provider's key and base URL are read from when none is configured. */
export const PROVIDER_VARIABLES: Readonly<Record<HttpProvider, { key: string; baseURL: string }>> = Object.freeze({
  openai: { key: 'OPENAI_API_KEY', baseURL: 'OPENAI_BASE_URL' },
  anthropic: { key: 'ANTHROPIC_API_KEY', baseURL: 'ANTHROPIC_BASE_URL' },
});
