import * as vscode from 'vscode';
import { createSummarizer } from '../../engine/summarize/providers/createSummarizer';
import { chosenBaseURL, secondsToMs } from '../../engine/summarize/providers/limits';
import { isHttpProvider, type HttpProvider } from '../../engine/summarize/providers/providerNames';
import type { Summarizer } from '../../engine/summarize/summarizer';
import type { ApiKeys } from './secrets';
import { readConfig, type ArborConfig } from './settings';
import { showWarning } from './notify';
import { createChatModelSummarizer } from '../../engine/summarize/providers/chatModel';
import { createPiSummarizer } from '../../engine/livePi/piSummarizer';
import type { WriteRoute } from '../../engine/livePi/writeRoute';
import { languageModelChoice, languageModelPort, offeredLanguageModels, pickLanguageModel } from './languageModels';

/**
 * The summarizer chosen in `arbor.summarizer.*`, with its key from SecretStorage
 * (or the environment); for Pi's own model, the route to the Pi that holds the session. Built by the engine's one factory, as the CLI's is: the
 * same default models, lazy SDK loading, key guard, deadline and answer cap.
 */
export async function createConfiguredSummarizer(
  keys: ApiKeys,
  config: ArborConfig = readConfig(),
  route?: WriteRoute,
): Promise<Summarizer> {
  const provider = config.provider;
  // Pi's own model, through the running Pi that holds the session (its bridge): only the route knows that Pi.
  if (provider === 'pi') return createPiSummarizer(route ?? { via: 'file' });
  const limits = { deadlineMs: secondsToMs(config.deadlineSeconds), maxAnswerChars: config.maxAnswerChars };
  if (provider === 'vscode') return languageModelSummarizer(config, limits);
  if (!isHttpProvider(provider)) return createSummarizer({ provider, ...limits });
  const apiKey = await keys.get(provider);
  // Without a key only a custom base URL (a local server) can answer.
  if (!apiKey && !customBaseURL(provider, config)) throw missingKey(provider);
  return createSummarizer({
    provider,
    apiKey,
    baseURL: config.baseURL,
    model: config.model || undefined,
    env: process.env,
    ...limits,
  });
}

/**
 * Whether a base URL other than the provider's public API is set (the setting, else the provider's variable, by
 * the engine's one rule: blank is none), so that no key may be needed; one that cannot be used counts (its error says why).
 */
export function customBaseURL(provider: HttpProvider, config: ArborConfig): boolean {
  const chosen = chosenBaseURL({ provider, configured: config.baseURL, env: process.env });
  return chosen.url !== undefined || chosen.problem !== undefined;
}

/** A summarizer over the VS Code language model the settings choose; none offered is an error that says what to do. */
async function languageModelSummarizer(config: ArborConfig, limits: { deadlineMs?: number; maxAnswerChars: number }): Promise<Summarizer> {
  const models = await offeredLanguageModels();
  const model = pickLanguageModel(models, config.languageModel);
  if (model) return createChatModelSummarizer(languageModelPort(model), limits);
  const wanted = config.languageModel ? `the language model "${config.languageModel}"` : 'a language model';
  const offered = models.length ? `VS Code offers ${models.map((m) => languageModelChoice(m)).join(', ')}` : 'VS Code offers none now';
  void showWarning(
    `Arbor: ${wanted} was chosen for summaries, but ${offered}. ` +
      'Install or sign in to a model provider (GitHub Copilot, for one), or choose another summarizer.',
    'Choose Summarizer Model',
  ).then((choice) => {
    if (choice) void vscode.commands.executeCommand('arbor.chooseSummarizerModel');
  });
  const err = new Error(`${wanted} is not offered by VS Code (${offered}); nothing was written`);
  err.name = 'MissingLanguageModel';
  return Promise.reject(err);
}

/** Offers to set the key (without waiting for the answer); the error stops the operation (nothing written). */
function missingKey(provider: string): Error {
  void showWarning(
    `Arbor: no API key for ${provider}. Set one (stored in VS Code's secret storage), or switch arbor.summarizer.provider to "offline".`,
    'Set API Key',
    'Use Offline Summarizer',
  ).then(async (choice) => {
    if (choice === 'Set API Key') await vscode.commands.executeCommand('arbor.setApiKey', provider);
    if (choice === 'Use Offline Summarizer') {
      await vscode.workspace.getConfiguration('arbor').update('summarizer.provider', 'offline', vscode.ConfigurationTarget.Global);
    }
  });
  const err = new Error(`no API key for ${provider}`);
  err.name = 'MissingApiKey';
  return err;
}

/** An error whose warning already offered the way forward (set a key, choose a model): not reported again. */
export function isSetupPrompt(err: unknown): boolean {
  return err instanceof Error && (err.name === 'MissingApiKey' || err.name === 'MissingLanguageModel');
}

export function summarizerLabel(s: Summarizer): string {
  return s.model ? `${s.provider}/${s.model}` : s.provider;
}
