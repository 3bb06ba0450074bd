import { createSummarizer, type SummarizerProvider } from '../engine/summarize/providers/createSummarizer';
import { ArborUsageError } from '../engine/session/diagnostics';
import { stringFlag, type Flags } from './args';
import type { Summarizer } from '../engine/summarize/summarizer';

export const SUMMARIZER_FLAGS = {
  provider: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
} as const;

/** --provider, else ARBOR_PROVIDER, else offline (the embedded default: no network, no key). */
export function summarizerFrom(flags: Flags, env: NodeJS.ProcessEnv = process.env): Summarizer {
  const provider = stringFlag(flags, 'provider') ?? env.ARBOR_PROVIDER ?? 'offline';
  if (provider !== 'offline' && provider !== 'openai' && provider !== 'anthropic') {
    throw new ArborUsageError(`--provider takes offline, openai or anthropic, got "${provider}"`);
  }
  return createSummarizer({ provider: provider as SummarizerProvider, model: stringFlag(flags, 'model') ?? env.ARBOR_MODEL, baseURL: stringFlag(flags, 'base-url'), env });
}

/** Ctrl-C aborts the running operation (nothing is written) instead of killing the process mid-way. */
export function interruptSignal(): AbortSignal {
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort(new Error('interrupted')));
  return controller.signal;
}
