import { createSummarizer } from '../engine/summarize/providers/createSummarizer';
import {
  CLI_PROVIDERS,
  DEFAULT_SUMMARIZER_PROVIDER,
  isHttpProvider,
  isProviderIn,
  type CliProvider,
} from '../engine/summarize/providers/providerNames';
import { chosenBaseURL, DEFAULT_DEADLINE_SECONDS, DEFAULT_MAX_ANSWER_CHARS, secondsToMs } from '../engine/summarize/providers/limits';
import { orList } from '../engine/text/orList';
import { ArborUsageError } from '../engine/session/diagnostics';
import { stringFlag, type Flags } from './args';
import type { Summarizer } from '../engine/summarize/summarizer';
import type { OptionSpec } from './commandSpec';
import { rememberEnvironmentSecrets } from '../engine/secrets/redact';
import { createPiSummarizer } from '../engine/livePi/piSummarizer';
import type { WriteRoute } from '../engine/livePi/writeRoute';

/** Who would write a summary: what `plan-branch` budgets with, as `navigate --summarize` does. */
export const SUMMARIZER_CHOICE_OPTIONS: Record<string, OptionSpec> = {
  provider: {
    type: 'string',
    value: CLI_PROVIDERS.join('|'),
    description: "who writes the summary (pi: the running Pi's own model, through its bridge)",
    default: `ARBOR_PROVIDER, else ${DEFAULT_SUMMARIZER_PROVIDER} (no network, no key)`,
  },
  model: {
    type: 'string',
    value: 'ID',
    description: 'the model for the summary',
    default: 'ARBOR_MODEL, else gpt-4.1-mini / claude-haiku-4-5',
  },
};

/** The options of the commands that write a summary (compact, navigate --summarize). */
export const SUMMARIZER_OPTIONS: Record<string, OptionSpec> = {
  ...SUMMARIZER_CHOICE_OPTIONS,
  'base-url': {
    type: 'string',
    value: 'URL',
    description: 'an OpenAI-compatible or Anthropic server (http or https, no credentials)',
    default: "OPENAI_BASE_URL / ANTHROPIC_BASE_URL, else the provider's public API (an empty URL is none)",
  },
  deadline: {
    type: 'string',
    value: 'SECONDS',
    description: 'overall deadline of the summary request, retries included',
    default: String(DEFAULT_DEADLINE_SECONDS),
  },
  'max-answer-chars': {
    type: 'string',
    value: 'N',
    description: 'a longer answer fails and nothing is written',
    default: String(DEFAULT_MAX_ANSWER_CHARS),
  },
};

function positiveFlag(flags: Flags, name: string): number | undefined {
  const raw = stringFlag(flags, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!raw.trim() || !Number.isFinite(n) || n <= 0) throw new ArborUsageError(`--${name} takes a positive number, got "${raw}"`);
  return n;
}

/**
 * --provider, else ARBOR_PROVIDER, else offline (the embedded default: no network, no key).
 * Every flag is checked here, before any request: a bad one is exit 2.
 */
export function summarizerFrom(flags: Flags, env: NodeJS.ProcessEnv = process.env): Summarizer {
  rememberEnvironmentSecrets(env);
  const { provider: chosen, model } = summarizerChoice(flags, env);
  if (chosen === 'pi')
    throw new ArborUsageError("--provider pi: Pi's own model writes the summaries of `arbor compact` and `arbor navigate`");
  const provider = chosen;
  const baseURL = stringFlag(flags, 'base-url');
  // The summarizer's own rule (an empty --base-url is none: the provider's variable applies), checked before any request.
  const url = chosenBaseURL({
    provider: isHttpProvider(provider) ? provider : undefined,
    configured: baseURL,
    configuredAs: '--base-url',
    env,
  });
  if (url.problem) throw new ArborUsageError(`${url.source} ${url.problem}`);
  const deadlineMs = secondsToMs(positiveFlag(flags, 'deadline'));
  const maxAnswerChars = positiveFlag(flags, 'max-answer-chars');
  return createSummarizer({
    provider,
    model,
    baseURL,
    deadlineMs,
    maxAnswerChars,
    env,
  });
}

/** --provider (else ARBOR_PROVIDER, else offline) and --model (else ARBOR_MODEL), checked: a bad provider is exit 2. */
export function summarizerChoice(flags: Flags, env: NodeJS.ProcessEnv = process.env): { provider: CliProvider; model: string | undefined } {
  const provider = stringFlag(flags, 'provider') ?? env.ARBOR_PROVIDER ?? DEFAULT_SUMMARIZER_PROVIDER;
  if (!isProviderIn(CLI_PROVIDERS, provider)) throw new ArborUsageError(`--provider takes ${orList(CLI_PROVIDERS)}, got "${provider}"`);
  return { provider, model: stringFlag(flags, 'model') ?? env.ARBOR_MODEL };
}

/** The operations a Ctrl-C aborts: one SIGINT listener for all (one each passed Node's limit of 10 in the tests). */
const interruptible = new Set<AbortController>();
let listening = false;

/** Ctrl-C aborts the running operation (nothing is written) instead of killing the process mid-way. */
export function interruptSignal(): AbortSignal {
  const controller = new AbortController();
  interruptible.add(controller);
  if (!listening) {
    listening = true;
    process.once('SIGINT', () => {
      listening = false;
      for (const c of interruptible) c.abort(new Error('interrupted'));
      interruptible.clear();
    });
  }
  return controller.signal;
}

/** --provider pi: Pi's own model, through the running Pi that holds `file` (known once the write route is). */
export function piSummarizerFor(file: string, route: WriteRoute): Summarizer {
  if (route.via !== 'pi')
    throw new ArborUsageError(
      `--provider pi: no running Pi holds ${file} through Arbor's bridge (install it with \`arbor pi-bridge install\` and type /reload in Pi)`,
    );
  return createPiSummarizer(route);
}
