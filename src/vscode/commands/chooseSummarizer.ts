import * as vscode from 'vscode';
import type { ArborServices } from '../services';
import { readConfig, type ArborConfig } from '../platform/settings';
import { DEFAULT_SUMMARY_MODELS } from '../../engine/summarize/providers/createSummarizer';
import {
  CLI_PROVIDERS,
  HTTP_PROVIDER_LABELS,
  isHttpProvider,
  isProviderIn,
  type CliProvider,
  type HttpProvider,
} from '../../engine/summarize/providers/providerNames';
import { orList } from '../../engine/text/orList';
import { customBaseURL } from '../platform/summarizers';
import { languageModelChoice, offeredLanguageModels, pickLanguageModel } from '../platform/languageModels';
import { showInfo } from '../platform/notify';
import { log } from '../platform/logging';

/**
 * Arbor: Choose Summarizer Model. Lists who can write summaries — the
 * offline summarizer, the language models VS Code offers now, OpenAI and
 * Anthropic — says which is in use, and sets `arbor.summarizer.*` where
 * the value in effect comes from (the workspace's, else the user's). A choice can be passed (tests, keybindings): "offline",
 * "vscode" or "vscode:vendor/id", "openai", "anthropic".
 */

type Choice = { provider: CliProvider } | { provider: 'vscode'; languageModel: string };

interface ChoiceItem extends vscode.QuickPickItem {
  choice?: Choice;
}

export async function chooseSummarizerCommand(arbor: ArborServices, given?: string): Promise<string | undefined> {
  const config = readConfig();
  const models = await offeredLanguageModels();
  let choice = given !== undefined ? parseChoice(given) : undefined;
  if (given !== undefined && !choice)
    throw new Error(`unknown summarizer "${given}" (${orList([...CLI_PROVIDERS, 'vscode[:vendor/id]'])})`);
  if (!choice) {
    const picked = await vscode.window.showQuickPick(await items(arbor, config, models), {
      title: 'Arbor: who writes summaries',
      placeHolder: `In use: ${inUse(config, models)}`,
      matchOnDescription: true,
    });
    if (!picked?.choice) return undefined;
    choice = picked.choice;
  }
  const c = vscode.workspace.getConfiguration('arbor');
  log().info(`choosing summarizer ${JSON.stringify(choice)}`);
  // Another provider's model id would be sent to this one (gpt-4.1-mini to Anthropic): the provider's default instead.
  if (choice.provider !== config.provider && c.get<string>('summarizer.model', '').trim())
    await c.update('summarizer.model', undefined, targetOf(c, 'summarizer.model'));
  await c.update('summarizer.provider', choice.provider, targetOf(c, 'summarizer.provider'));
  if (choice.provider === 'vscode')
    await c.update('summarizer.languageModel', choice.languageModel || undefined, targetOf(c, 'summarizer.languageModel'));
  const now = inUse(readConfig(), models);
  log().info(`summarizer chosen: ${JSON.stringify(choice)}; in use: ${now}`);
  if (given === undefined) {
    if (isHttpProvider(choice.provider) && !(await arbor.keys.has(choice.provider)) && !customBaseURL(choice.provider, config)) {
      const set = await vscode.window.showInformationMessage(`Arbor: summaries by ${now}. It needs an API key.`, 'Set API Key');
      if (set) await vscode.commands.executeCommand('arbor.setApiKey', choice.provider);
    } else void showInfo(`Arbor: summaries are now written by ${now}.`);
  }
  return now;
}

/** Where a setting is written: where its effective value comes from (a workspace's value overrides the user's), else the user's. */
function targetOf(c: vscode.WorkspaceConfiguration, key: string): vscode.ConfigurationTarget {
  const i = c.inspect(key);
  if (i?.workspaceFolderValue !== undefined) return vscode.ConfigurationTarget.WorkspaceFolder;
  if (i?.workspaceValue !== undefined) return vscode.ConfigurationTarget.Workspace;
  return vscode.ConfigurationTarget.Global;
}

function parseChoice(s: string): Choice | undefined {
  const t = s.trim();
  if (isProviderIn(CLI_PROVIDERS, t)) return { provider: t };
  if (t === 'vscode') return { provider: 'vscode', languageModel: '' };
  if (t.startsWith('vscode:')) return { provider: 'vscode', languageModel: t.slice('vscode:'.length).trim() };
  return undefined;
}

/** The summarizer in use, as the picker and the messages name it. */
export function inUse(config: ArborConfig, models: readonly vscode.LanguageModelChat[]): string {
  switch (config.provider) {
    case 'vscode': {
      const m = pickLanguageModel(models, config.languageModel);
      if (m) return `${m.name} (VS Code language model ${languageModelChoice(m)})`;
      return `VS Code language model ${config.languageModel || '(the first offered)'}, not offered now`;
    }
    case 'openai':
    case 'anthropic':
      return `${config.provider}/${config.model || DEFAULT_SUMMARY_MODELS[config.provider]}`;
    case 'pi':
      return "Pi's own model (through the running Pi's bridge)";
    default:
      return 'the offline summarizer';
  }
}

async function items(arbor: ArborServices, config: ArborConfig, models: readonly vscode.LanguageModelChat[]): Promise<ChoiceItem[]> {
  const current = (c: Choice) =>
    c.provider === config.provider &&
    (c.provider !== 'vscode' || pickLanguageModel(models, config.languageModel) === pickLanguageModel(models, c.languageModel));
  const mark = (item: ChoiceItem): ChoiceItem =>
    item.choice && current(item.choice)
      ? { ...item, label: `$(check) ${item.label}`, description: `${item.description ?? ''} · in use` }
      : item;
  const out: ChoiceItem[] = [
    mark({ label: 'Offline summarizer', description: 'built in: no network, no key', choice: { provider: 'offline' } }),
    { label: "VS Code's language models", kind: vscode.QuickPickItemKind.Separator },
  ];
  if (models.length)
    for (const m of models)
      out.push(
        mark({
          label: m.name,
          description: languageModelChoice(m),
          detail: `${m.maxInputTokens.toLocaleString('en-US')} input tokens · no key (VS Code may ask your consent on first use)`,
          choice: { provider: 'vscode', languageModel: languageModelChoice(m) },
        }),
      );
  else out.push({ label: 'None offered now', description: 'install or sign in to a model provider (GitHub Copilot, for one)' });
  out.push({ label: 'Pi', kind: vscode.QuickPickItemKind.Separator });
  // The Pi that holds the active session, when one does: its model is the one that would write.
  const active = arbor.activeFile;
  const live = active ? arbor.livePi.stateOf(active) : undefined;
  out.push(
    mark({
      label: "Pi's own model",
      description: live?.model
        ? `${live.model.provider}/${live.model.id} · the running Pi (pid ${live.pid}) holds this session`
        : "while Pi runs with Arbor's bridge",
      detail: "summaries by the model and credentials Pi is set up with (they stay in Pi), with Pi's own summary prompts",
      choice: { provider: 'pi' },
    }),
  );
  out.push({ label: 'API providers', kind: vscode.QuickPickItemKind.Separator });
  for (const [provider, label] of Object.entries(HTTP_PROVIDER_LABELS) as [HttpProvider, string][]) {
    const model = config.provider === provider && config.model ? config.model : DEFAULT_SUMMARY_MODELS[provider];
    const key = (await arbor.keys.has(provider)) ? 'key stored' : 'needs an API key';
    out.push(mark({ label, description: `${provider}/${model} · ${key}`, choice: { provider } }));
  }
  return out;
}
