import * as vscode from 'vscode';
import { PROVIDER_VARIABLES, type HttpProvider } from '../../engine/summarize/providers/providerNames';
import { rememberSecret } from './redact';

/**
 * API keys live in VS Code's SecretStorage (never in settings). An environment
 * variable is the fallback. Every key seen here is remembered for redaction
 * (redact.ts), so it never reaches a log line or a notification.
 */
export class ApiKeys {
  constructor(private readonly secrets: vscode.SecretStorage) {
    for (const name of Object.values(PROVIDER_VARIABLES).map((v) => v.key)) rememberSecret(process.env[name]);
    // Keys stored earlier: known before the first request that could fail with one in its error.
    for (const provider of Object.keys(PROVIDER_VARIABLES) as HttpProvider[]) {
      void Promise.resolve(secrets.get(this.key(provider))).then(rememberSecret, () => undefined);
    }
  }

  private key(provider: HttpProvider): string {
    return `arbor.apiKey.${provider}`;
  }

  async get(provider: HttpProvider): Promise<string | undefined> {
    const stored = await this.secrets.get(this.key(provider));
    // A hostile command argument may name no provider: no variable then.
    const envName = Object.hasOwn(PROVIDER_VARIABLES, provider) ? PROVIDER_VARIABLES[provider].key : undefined;
    const key = stored || (envName ? process.env[envName] || undefined : undefined);
    rememberSecret(key);
    return key;
  }

  async has(provider: HttpProvider): Promise<boolean> {
    return !!(await this.secrets.get(this.key(provider)));
  }

  async set(provider: HttpProvider, value: string): Promise<void> {
    rememberSecret(value);
    await this.secrets.store(this.key(provider), value);
  }

  async delete(provider: HttpProvider): Promise<void> {
    await this.secrets.delete(this.key(provider));
  }

  onDidChange(listener: () => void): vscode.Disposable {
    return this.secrets.onDidChange((e) => {
      if (e.key.startsWith('arbor.apiKey.')) listener();
    });
  }
}
