import * as vscode from 'vscode';
import type { ProviderName } from './settings';

const ENV_KEYS: Record<string, string> = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY' };

/** API keys live in VS Code's SecretStorage (never in settings). An environment variable is the fallback. */
export class ApiKeys {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  private key(provider: ProviderName): string {
    return `arbor.apiKey.${provider}`;
  }

  async get(provider: ProviderName): Promise<string | undefined> {
    const stored = await this.secrets.get(this.key(provider));
    if (stored) return stored;
    const envName = ENV_KEYS[provider];
    return envName ? process.env[envName] || undefined : undefined;
  }

  async has(provider: ProviderName): Promise<boolean> {
    return !!(await this.secrets.get(this.key(provider)));
  }

  async set(provider: ProviderName, value: string): Promise<void> {
    await this.secrets.store(this.key(provider), value);
  }

  async delete(provider: ProviderName): Promise<void> {
    await this.secrets.delete(this.key(provider));
  }

  onDidChange(listener: () => void): vscode.Disposable {
    return this.secrets.onDidChange((e) => {
      if (e.key.startsWith('arbor.apiKey.')) listener();
    });
  }
}
