import * as vscode from 'vscode';
import { ChatModelError, chatModelName, type ChatModelFailure, type ChatModelPort } from '../../engine/summarize/providers/chatModel';

/**
 * VS Code's language models (`vscode.lm`) as the engine's ChatModelPort: the
 * model chosen in `arbor.summarizer.languageModel`, requests with the
 * AbortSignal as their CancellationToken, VS Code's failures read as
 * ChatModelError. VS Code asks the user's consent on the first request.
 */

/** Why Arbor asks for a model (VS Code shows it in its consent prompt). */
const JUSTIFICATION = 'Arbor summarizes the part of your coding-agent session that you asked it to compact or leave behind.';

/** The models VS Code offers now (none when the API is missing or fails). */
export async function offeredLanguageModels(): Promise<vscode.LanguageModelChat[]> {
  if (!vscode.lm?.selectChatModels) return [];
  try {
    return await vscode.lm.selectChatModels();
  } catch {
    return [];
  }
}

/** The model a choice names ("vendor/id", "vendor/family", "vendor", or "" for the first offered), or undefined. */
export function pickLanguageModel(models: readonly vscode.LanguageModelChat[], choice: string): vscode.LanguageModelChat | undefined {
  const c = choice.trim();
  if (!c) return models[0];
  const slash = c.indexOf('/');
  const vendor = slash < 0 ? c : c.slice(0, slash);
  const rest = slash < 0 ? '' : c.slice(slash + 1);
  const ofVendor = models.filter((m) => m.vendor === vendor);
  if (!rest) return ofVendor[0];
  return ofVendor.find((m) => m.id === rest) ?? ofVendor.find((m) => m.family === rest);
}

/** How to write a model as a choice (what the picker stores). */
export function languageModelChoice(model: Pick<vscode.LanguageModelChat, 'vendor' | 'id'>): string {
  return chatModelName(model);
}

/** The port over one model. */
export function languageModelPort(model: vscode.LanguageModelChat): ChatModelPort {
  return {
    host: 'vscode',
    hostLabel: 'VS Code language model',
    vendor: model.vendor,
    id: model.id,
    name: model.name,
    maxInputTokens: model.maxInputTokens,
    countTokens: (text, signal) => withToken(signal, (token) => Promise.resolve(model.countTokens(text, token))),
    async *send(prompt, signal) {
      const cts = tokenFor(signal);
      try {
        // The API of VS Code 1.90 has no system role: the instructions open the one user message.
        const messages = [vscode.LanguageModelChatMessage.User(`${prompt.system}\n\n${prompt.user}`)];
        let response: vscode.LanguageModelChatResponse;
        try {
          response = await model.sendRequest(messages, { justification: JUSTIFICATION }, cts.token);
        } catch (err) {
          throw readFailure(err);
        }
        try {
          for await (const part of response.text) yield part;
        } catch (err) {
          throw readFailure(err);
        }
      } finally {
        // Stopped early (the answer cap, an abort, a failure): VS Code's request stops too.
        cts.cancel();
        cts.dispose();
      }
    },
  };
}

function tokenFor(signal: AbortSignal): vscode.CancellationTokenSource {
  const cts = new vscode.CancellationTokenSource();
  if (signal.aborted) cts.cancel();
  else signal.addEventListener('abort', () => cts.cancel(), { once: true });
  return cts;
}

async function withToken<T>(signal: AbortSignal, run: (token: vscode.CancellationToken) => Promise<T>): Promise<T> {
  const cts = tokenFor(signal);
  try {
    return await run(cts.token);
  } catch (err) {
    throw readFailure(err);
  } finally {
    cts.dispose();
  }
}

/** VS Code's LanguageModelError codes, and a provider's quota message, as the engine's failures. */
function readFailure(err: unknown): unknown {
  if (err instanceof ChatModelError || (err instanceof Error && err.name === 'AbortError')) return err;
  if (err instanceof vscode.CancellationError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const code = err instanceof vscode.LanguageModelError ? err.code : '';
  let failure: ChatModelFailure = 'other';
  if (code === 'NoPermissions') failure = 'no-permission';
  else if (code === 'Blocked') failure = 'blocked';
  else if (code === 'NotFound') failure = 'not-found';
  if (failure === 'other' && /\bquota\b|exhausted/i.test(message)) failure = 'quota';
  else if (failure === 'other' && /rate.?limit|too many requests/i.test(message)) failure = 'blocked';
  return new ChatModelError(failure, message || code || 'the request failed');
}
