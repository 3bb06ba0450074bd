import * as vscode from 'vscode';
import { DEFAULT_BACKUP_RETENTION, type BackupRetention } from '../../engine/files/backupRetention';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_ESTIMATOR, type EstimatorName } from '../../engine/tokens/estimators';
import { DEFAULT_SUMMARIZER_PROVIDER, type ExtensionProvider } from '../../engine/summarize/providers/providerNames';
import { DEFAULT_DEADLINE_SECONDS, DEFAULT_MAX_ANSWER_CHARS } from '../../engine/summarize/providers/limits';
import { resolveContextWindowSource, type ResolvedContextWindow } from '../../engine/summarize/providers/models';
import { readPiModelWindows, type PiModelWindows } from '../../engine/settings/piModels';
import { DEFAULT_INCOMPLETE_LINE_QUIET_MS, quietMsFromSeconds } from '../../engine/session/incompleteLine';

/**
 * Arbor's own settings (`arbor.*`). Pi's settings files
 * (~/.pi/agent/settings.json, then <project>/.pi/settings.json) still supply
 * the compaction and branch-summary numbers; these settings only choose the
 * summarizer, the estimator, where Pi's files are, and the extension's own
 * behaviour.
 */
/** Who writes summaries in the extension: the engine's providers, VS Code's language models, and a running Pi's own model. */
export type ExtensionSummarizerProvider = ExtensionProvider;

export interface ArborConfig {
  provider: ExtensionSummarizerProvider;
  model: string;
  /** `arbor.summarizer.languageModel`: which of VS Code's models ("vendor/id", "vendor/family", "vendor"; empty: the first offered). */
  languageModel: string;
  /** As set (blank: none); chosenBaseURL (engine/summarize/providers/limits.ts) reads it, as the CLI's --base-url. */
  baseURL: string;
  estimator: EstimatorName;
  includeThinking: boolean;
  /** 0: none set (the model's window applies). */
  contextWindow: number;
  deadlineSeconds: number;
  maxAnswerChars: number;
  modelContextWindows: Record<string, number>;
  autoCompact: boolean;
  autoCompactIdleSeconds: number;
  liveWriteSeconds: number;
  /** See DEFAULT_INCOMPLETE_LINE_QUIET_MS (engine/session/incompleteLine.ts). */
  incompleteLineQuietMs: number;
  piAgentDir: string;
  sessionDir: string;
  piPath: string;
  /** How long restores' backups are kept (engine/files/backupRetention.ts holds the default). */
  restoreBackups: BackupRetention;
}

/**
 * Settings that choose a host, an executable or a directory to read. They are
 * machine-scoped in package.json (a workspace's .vscode/settings.json cannot
 * set them: opening a repository must not send the stored API key to another
 * host or run another program); read here from the user's settings or the
 * default only, so a workspace value is ignored even if VS Code passed it on.
 */
export const MACHINE_SETTINGS = ['summarizer.baseURL', 'piPath', 'piAgentDir', 'sessionDir'] as const;
type MachineSetting = (typeof MACHINE_SETTINGS)[number];

function userValue(c: vscode.WorkspaceConfiguration, key: MachineSetting, fallback: string): string {
  const i = c.inspect<unknown>(key);
  const v = i?.globalValue ?? i?.defaultValue;
  return typeof v === 'string' ? v : fallback;
}

export function readConfig(): ArborConfig {
  const c = vscode.workspace.getConfiguration('arbor');
  return {
    provider: c.get<ExtensionSummarizerProvider>('summarizer.provider', DEFAULT_SUMMARIZER_PROVIDER),
    model: c.get<string>('summarizer.model', '').trim(),
    languageModel: c.get<string>('summarizer.languageModel', '').trim(),
    baseURL: userValue(c, 'summarizer.baseURL', ''),
    estimator: c.get<EstimatorName>('tokenEstimator', DEFAULT_ESTIMATOR),
    includeThinking: c.get<boolean>('summarizer.includeThinking', true),
    contextWindow: positive(c.get<number>('contextWindow', 0), 0),
    deadlineSeconds: positive(c.get<number>('summarizer.deadlineSeconds'), DEFAULT_DEADLINE_SECONDS),
    maxAnswerChars: positive(c.get<number>('summarizer.maxAnswerChars'), DEFAULT_MAX_ANSWER_CHARS),
    modelContextWindows: c.get<Record<string, number>>('modelContextWindows', {}) ?? {},
    autoCompact: c.get<boolean>('autoCompact', false),
    autoCompactIdleSeconds: positive(c.get<number>('autoCompactIdleSeconds', 30), 30),
    liveWriteSeconds: positive(c.get<number>('liveWriteSeconds', 10), 10),
    incompleteLineQuietMs: quietMsFromSeconds(c.get<number>('incompleteLineQuietSeconds')) ?? DEFAULT_INCOMPLETE_LINE_QUIET_MS,
    piAgentDir: resolveFolderSetting(userValue(c, 'piAgentDir', '')),
    sessionDir: resolveFolderSetting(userValue(c, 'sessionDir', '')),
    piPath: userValue(c, 'piPath', 'pi').trim() || 'pi',
    restoreBackups: {
      count: wholeOr(c.get<number>('restore.keepBackups'), DEFAULT_BACKUP_RETENTION.count),
      days: wholeOr(c.get<number>('restore.keepBackupDays'), DEFAULT_BACKUP_RETENTION.days),
    },
  };
}

function wholeOr(v: number | undefined, fallback: number): number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : fallback;
}

function positive(v: number | undefined, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : fallback;
}

/** `~`, `${workspaceFolder}` and paths relative to the first workspace folder. */
export function resolveFolderSetting(value: string | undefined): string {
  // Only ASCII blanks around it are typing slips: a no-break space (which trim() also drops) can end a folder's name.
  let p = (value ?? '').replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
  if (!p) return '';
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
  p = p.replace(/\$\{workspaceFolder\}/g, folder ?? '');
  if (p === '~' || p.startsWith('~/')) p = os.homedir() + p.slice(1);
  if (!path.isAbsolute(p) && folder) p = path.join(folder, p);
  return path.normalize(p);
}

/** The environment handed to the engine: Arbor's settings override PI_CODING_AGENT_DIR / PI_CODING_AGENT_SESSION_DIR. */
export function engineEnv(config: ArborConfig = readConfig()): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (config.piAgentDir) env.PI_CODING_AGENT_DIR = config.piAgentDir;
  if (config.sessionDir) env.PI_CODING_AGENT_SESSION_DIR = config.sessionDir;
  return env;
}

/**
 * Context window for a model and its source, by the shared resolver: `arbor.contextWindow` >
 * `arbor.modelContextWindows` > Pi's models.json (in the agent folder Arbor reads) > the model table > 128k.
 * A models.json Arbor cannot read is reported as `error` and left out.
 */
export function contextWindowFor(
  model: { provider: string; modelId: string } | null,
  config: ArborConfig = readConfig(),
  recorded?: number,
): ResolvedContextWindow & { error?: string } {
  let piModels: PiModelWindows | undefined;
  let error: string | undefined;
  try {
    piModels = readPiModelWindows(engineEnv(config));
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  return {
    ...resolveContextWindowSource({
      explicit: config.contextWindow,
      explicitName: 'arbor.contextWindow',
      perModel: config.modelContextWindows,
      piModels,
      model,
      recorded,
    }),
    ...(error ? { error } : {}),
  };
}
