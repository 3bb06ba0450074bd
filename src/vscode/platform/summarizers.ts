import * as vscode from 'vscode';
import { createSummarizer } from '../../engine/summarize/providers/createSummarizer';
import { secondsToMs } from '../../engine/summarize/providers/limits';
import type { Summarizer } from '../../engine/summarize/summarizer';
import type { ApiKeys } from './secrets';
import { readConfig, type ArborConfig } from './settings';
import { showWarning } from './notify';

/**
 * The summarizer chosen in `arbor.summarizer.*`, with its key from SecretStorage
 * (or the environment). Built by the engine's one factory, as the CLI's is: the
 * same default models, lazy SDK loading, key guard, deadline and answer cap.
 */
export async function createConfiguredSummarizer(keys: ApiKeys, config: ArborConfig = readConfig()): Promise<Summarizer> {
  const provider = config.provider;
  const limits = { deadlineMs: secondsToMs(config.deadlineSeconds), maxAnswerChars: config.maxAnswerChars };
  if (provider !== 'openai' && provider !== 'anthropic') return createSummarizer({ provider, ...limits });
  const apiKey = await keys.get(provider);
  // Without a key only a custom base URL (a local server) can answer.
  if (!apiKey && !config.baseURL) throw missingKey(provider);
  return createSummarizer({
    provider,
    apiKey,
    baseURL: config.baseURL || undefined,
    model: config.model || undefined,
    env: process.env,
    ...limits,
  });
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

export function summarizerLabel(s: Summarizer): string {
  return s.model ? `${s.provider}/${s.model}` : s.provider;
}
