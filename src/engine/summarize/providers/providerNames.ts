/**
 * Who writes a summary: the one list for the CLI's --provider, the extension's arbor.summarizer.provider (its
 * enum in package.json is checked against these) and the factory, with the default and the names people see.
 */

/** The summarizers the engine's factory builds (createSummarizer). */
export const SUMMARIZER_PROVIDERS = ['offline', 'openai', 'anthropic'] as const;
export type SummarizerProvider = (typeof SUMMARIZER_PROVIDERS)[number];

/** The summarizer when none is chosen: the offline one (no network, no key). */
export const DEFAULT_SUMMARIZER_PROVIDER: SummarizerProvider = 'offline';

/** The summarizers that call a model over HTTP. */
export type HttpProvider = Exclude<SummarizerProvider, 'offline'>;

/** The HTTP providers as people see them, in the order the pickers list them. */
export const HTTP_PROVIDER_LABELS: Readonly<Record<HttpProvider, string>> = Object.freeze({
  openai: 'OpenAI (or an OpenAI-compatible server)',
  anthropic: 'Anthropic',
});

/** What the CLI's --provider takes: the factory's, and Pi's own model through the running Pi's bridge (engine/livePi/piSummarizer.ts). */
export const CLI_PROVIDERS = [...SUMMARIZER_PROVIDERS, 'pi'] as const;
export type CliProvider = (typeof CLI_PROVIDERS)[number];

/** What arbor.summarizer.provider takes: the CLI's, and a language model VS Code offers (engine/summarize/providers/chatModel.ts). */
export const EXTENSION_PROVIDERS = [...CLI_PROVIDERS, 'vscode'] as const;
export type ExtensionProvider = (typeof EXTENSION_PROVIDERS)[number];

/** Whether `value` is one of `names` (a provider list above). */
export function isProviderIn<T extends string>(names: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (names as readonly string[]).includes(value);
}

export function isHttpProvider(value: unknown): value is HttpProvider {
  return typeof value === 'string' && Object.hasOwn(HTTP_PROVIDER_LABELS, value);
}

/** Where each HTTP provider's key and base URL are read from when none is configured. */
export const PROVIDER_VARIABLES: Readonly<Record<HttpProvider, { key: string; baseURL: string }>> = Object.freeze({
  openai: { key: 'OPENAI_API_KEY', baseURL: 'OPENAI_BASE_URL' },
  anthropic: { key: 'ANTHROPIC_API_KEY', baseURL: 'ANTHROPIC_BASE_URL' },
});
