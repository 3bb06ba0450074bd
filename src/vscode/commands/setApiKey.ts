import * as vscode from 'vscode';
import type { ArborServices } from '../services';
import { readConfig } from '../platform/settings';
import { HTTP_PROVIDER_LABELS, type HttpProvider } from '../../engine/summarize/providers/providerNames';
import { showInfo } from '../platform/notify';

const PROVIDERS = (Object.entries(HTTP_PROVIDER_LABELS) as [HttpProvider, string][]).map(([provider, label]) => ({ provider, label }));

/**
 * Arbor: Set API Key. Stores the key in VS Code's SecretStorage (never in
 * settings files). An empty key removes it.
 */
export async function setApiKeyCommand(arbor: ArborServices, providerArg?: string, keyArg?: string): Promise<boolean> {
  let provider = PROVIDERS.find((p) => p.provider === providerArg)?.provider;
  if (!provider) {
    const current = readConfig().provider;
    const items = await Promise.all(
      PROVIDERS.map(async (p) => ({
        label: p.label,
        description: (await arbor.keys.has(p.provider)) ? 'key stored' : undefined,
        picked: p.provider === current,
        provider: p.provider,
      })),
    );
    const picked = await vscode.window.showQuickPick(items, { title: 'Arbor: set the API key for', placeHolder: 'Provider' });
    if (!picked) return false;
    provider = picked.provider;
  }
  let key = keyArg;
  if (key === undefined) {
    key = await vscode.window.showInputBox({
      title: `API key for ${provider}`,
      prompt: 'Stored in VS Code secret storage. Leave empty to remove the stored key.',
      password: true,
      ignoreFocusOut: true,
    });
    if (key === undefined) return false;
  }
  key = key.trim();
  if (key) await arbor.keys.set(provider, key);
  else await arbor.keys.delete(provider);
  if (keyArg === undefined) {
    void showInfo(key ? `Arbor: API key for ${provider} stored.` : `Arbor: API key for ${provider} removed.`);
  }
  return true;
}
