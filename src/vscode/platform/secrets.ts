import * as vscode from 'vscode';
import type { ProviderName } from './settings';
import { rememberSecret } from './redact';

const ENV_KEYS: Record<string, string> = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY' };

/**
 * API keys live in VS Code's SecretStorage (never in settings). An environment
 * variable is the fallback. Every key seen here is remembered for redaction
 * (redact.ts), so it never reaches a log line or a notification.
 */
export class ApiKeys {
  constructor(private readonly secrets: vscode.SecretStorage) {
    for (const name of Object.values(ENV_KEYS)) rememberSecret(process.env[name]);
    // Keys stored earlier: known before the first request that could fail with one in its error.
    for (const provider of Object.keys(ENV_KEYS) as ProviderName[]) {
      void Promise.resolve(secrets.get(this.key(provider))).then(rememberSecret, () => undefined);
    }
  }

  private key(provider: ProviderName): string {
    return `arbor.apiKey.${provider}`;
  }

  async get(provider: ProviderName): Promise<string | undefined> {
    const stored = await this.secrets.get(this.key(provider));
    const envName = ENV_KEYS[provider];
    const key = stored || (envName ? process.env[envName] || undefined : undefined);
    rememberSecret(key);
    return key;
  }

  async has(provider: ProviderName): Promise<boolean> {
    return !!(await this.secrets.get(this.key(provider)));
  }

  async set(provider: ProviderName, value: string): Promise<void> {
    rememberSecret(value);
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
