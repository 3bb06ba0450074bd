import * as vscode from 'vscode';
import { createOfflineSummarizer } from '../engine/summarize/providers/offline';
import { createOpenAISummarizer } from '../engine/summarize/providers/openai';
import { createAnthropicSummarizer } from '../engine/summarize/providers/anthropic';
import type { Summarizer } from '../engine/summarize/summarizer';
import type { ApiKeys } from './secrets';
import { readConfig, type ArborConfig } from './settings';
import { showWarning } from './notify';

export const DEFAULT_MODELS: Record<string, string> = { openai: 'gpt-4.1-mini', anthropic: 'claude-sonnet-4-5', offline: '' };

/** The summarizer chosen in `arbor.summarizer.*`, with its key from SecretStorage. */
export async function createConfiguredSummarizer(keys: ApiKeys, config: ArborConfig = readConfig()): Promise<Summarizer> {
  const model = config.model || DEFAULT_MODELS[config.provider] || '';
  switch (config.provider) {
    case 'offline':
      return createOfflineSummarizer();
    case 'openai': {
      const apiKey = await keys.get('openai');
      if (!apiKey && !config.baseURL) throw missingKey('openai');
      return createOpenAISummarizer({ apiKey, baseURL: config.baseURL || undefined, model });
    }
    case 'anthropic': {
      const apiKey = await keys.get('anthropic');
      if (!apiKey) throw missingKey('anthropic');
      return createAnthropicSummarizer({ apiKey, baseURL: config.baseURL || undefined, model });
    }
    default:
      throw new Error(`unknown summarizer provider "${String(config.provider)}" (arbor.summarizer.provider: offline, openai or anthropic)`);
  }
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
