import { readRegularTextFile } from '../session/sessionFile';
import { ArborUsageError } from '../session/diagnostics';
import { piAgentDir } from '../session/piAgentDir';
import * as path from 'node:path';

export interface TokenOverrides {
  reserveTokens?: number;
  keepRecentTokens?: number;
}

export interface PiSettings {
  compaction: {
    enabled: boolean;
    reserveTokens: number;
    keepRecentTokens: number;
    modelOverrides: Record<string, TokenOverrides>;
  };
  branchSummary: {
    reserveTokens: number;
    skipPrompt: boolean;
  };
}

export const DEFAULT_PI_SETTINGS: PiSettings = {
  compaction: { enabled: true, reserveTokens: 16384, keepRecentTokens: 20000, modelOverrides: {} },
  branchSummary: { reserveTokens: 16384, skipPrompt: false },
};

/** The compaction numbers when Pi's settings cannot be read: Pi's defaults (one home: DEFAULT_PI_SETTINGS). */
export function defaultCompactionSettings(): { enabled: boolean; reserveTokens: number; keepRecentTokens: number } {
  const { enabled, reserveTokens, keepRecentTokens } = DEFAULT_PI_SETTINGS.compaction;
  return { enabled, reserveTokens, keepRecentTokens };
}

/** A settings file that cannot be used: names the file and the key (or line). */
export class SettingsError extends Error {
  readonly file: string;
  readonly key: string | undefined;
  constructor(file: string, key: string | undefined, message: string) {
    super(key ? `${file}: "${key}" ${message}` : `${file}: ${message}`);
    this.name = 'SettingsError';
    this.file = file;
    this.key = key;
  }
}

export function settingsFiles(cwd: string, env: NodeJS.ProcessEnv = process.env): { global: string; project: string } {
  return { global: path.join(piAgentDir(env), 'settings.json'), project: path.join(cwd, '.pi', 'settings.json') };
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Recursive merge: objects merge key by key, anything else from `over` replaces. */
export function deepMerge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = isObject(v) && isObject(out[k]) ? deepMerge(out[k] as Json, v) : v;
  return out;
}

function lineOf(text: string, err: unknown): string {
  const m = /position (\d+)/.exec(String((err as Error)?.message));
  if (!m) return '';
  return ` (line ${text.slice(0, Number(m[1])).split('\n').length})`;
}

/** The largest settings file Arbor reads. */
const SETTINGS_MAX_BYTES = 4 * 1024 * 1024;

async function readJsonFile(file: string): Promise<Json | undefined> {
  let text: string;
  try {
    // Only a regular file, and not a huge one: a FIFO would hang the read, a device (/dev/zero) never end.
    text = await readRegularTextFile(file, SETTINGS_MAX_BYTES);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if (err instanceof ArborUsageError) throw new SettingsError(file, undefined, (err as Error).message.replace(`${file}: `, ''));
    throw new SettingsError(file, undefined, `cannot be read: ${(err as Error).message}`);
  }
  if (!text.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new SettingsError(file, undefined, `is not valid JSON${lineOf(text, err)}: ${(err as Error).message}`);
  }
  if (!isObject(value)) throw new SettingsError(file, undefined, 'must hold a JSON object');
  return value;
}

function tokenValue(file: string, key: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw new SettingsError(file, key, `must be a non-negative whole number of tokens, got ${JSON.stringify(v)}`);
  }
  return v;
}

function boolValue(file: string, key: string, v: unknown): boolean {
  if (typeof v !== 'boolean') throw new SettingsError(file, key, `must be true or false, got ${JSON.stringify(v)}`);
  return v;
}

/** Checks the keys Arbor uses in one file's raw JSON; other keys are Pi's business and left alone. */
export function validateSettingsJson(file: string, raw: Json): void {
  const c = raw.compaction;
  if (c !== undefined) {
    if (!isObject(c)) throw new SettingsError(file, 'compaction', 'must be an object');
    if (c.enabled !== undefined) boolValue(file, 'compaction.enabled', c.enabled);
    if (c.reserveTokens !== undefined) tokenValue(file, 'compaction.reserveTokens', c.reserveTokens);
    if (c.keepRecentTokens !== undefined) tokenValue(file, 'compaction.keepRecentTokens', c.keepRecentTokens);
    if (c.modelOverrides !== undefined) {
      if (!isObject(c.modelOverrides)) throw new SettingsError(file, 'compaction.modelOverrides', 'must be an object');
      for (const [model, o] of Object.entries(c.modelOverrides)) {
        const key = `compaction.modelOverrides["${model}"]`;
        if (!isObject(o)) throw new SettingsError(file, key, 'must be an object');
        if (o.reserveTokens !== undefined) tokenValue(file, `${key}.reserveTokens`, o.reserveTokens);
        if (o.keepRecentTokens !== undefined) tokenValue(file, `${key}.keepRecentTokens`, o.keepRecentTokens);
      }
    }
  }
  const b = raw.branchSummary;
  if (b !== undefined) {
    if (!isObject(b)) throw new SettingsError(file, 'branchSummary', 'must be an object');
    if (b.reserveTokens !== undefined) tokenValue(file, 'branchSummary.reserveTokens', b.reserveTokens);
    if (b.skipPrompt !== undefined) boolValue(file, 'branchSummary.skipPrompt', b.skipPrompt);
  }
}

export interface LoadedPiSettings {
  settings: PiSettings;
  /** The files that existed and were merged, global first. */
  sources: string[];
}

/** Spec 9: Pi's global and project settings, merged recursively (the project wins), validated. */
export async function loadPiSettings(options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<LoadedPiSettings> {
  const files = settingsFiles(options.cwd, options.env);
  let merged: Json = { ...DEFAULT_PI_SETTINGS };
  const sources: string[] = [];
  for (const file of [files.global, files.project]) {
    const raw = await readJsonFile(file);
    if (!raw) continue;
    validateSettingsJson(file, raw);
    merged = deepMerge(merged, raw);
    sources.push(file);
  }
  if (!hasSettingsShape(merged)) throw new Error('merged Pi settings lost their shape (a bug: every file was validated)');
  return { settings: merged, sources };
}

/**
 * Pi's settings as a running Pi reports them (its effective settings: it applied its own project trust and
 * merging), with Arbor's defaults under them. Validated like a file; `source` names where they came from.
 */
export function piSettingsFromObject(raw: unknown, source: string): PiSettings {
  if (!isObject(raw)) throw new SettingsError(source, undefined, 'settings must be an object');
  const picked: Json = {};
  if (raw.compaction !== undefined) picked.compaction = raw.compaction;
  if (raw.branchSummary !== undefined) picked.branchSummary = raw.branchSummary;
  validateSettingsJson(source, picked);
  const merged = deepMerge({ ...DEFAULT_PI_SETTINGS }, picked);
  if (!hasSettingsShape(merged)) throw new Error('merged Pi settings lost their shape (a bug: they were validated)');
  return merged;
}

/** The defaults merged with validated files: every key Arbor reads, of its type. */
function hasSettingsShape(v: Json): v is Json & PiSettings {
  const c = v.compaction;
  const b = v.branchSummary;
  return (
    isObject(c) &&
    typeof c.enabled === 'boolean' &&
    typeof c.reserveTokens === 'number' &&
    typeof c.keepRecentTokens === 'number' &&
    isObject(c.modelOverrides) &&
    isObject(b) &&
    typeof b.reserveTokens === 'number' &&
    typeof b.skipPrompt === 'boolean'
  );
}

/** Compaction numbers in effect for a model, `modelOverrides["provider/modelId"]` applied. */
export function compactionSettingsFor(
  settings: PiSettings,
  model?: { provider: string; modelId: string } | null,
): PiSettings['compaction'] {
  const c = settings.compaction;
  const o = model ? c.modelOverrides[`${model.provider}/${model.modelId}`] : undefined;
  return { ...c, reserveTokens: o?.reserveTokens ?? c.reserveTokens, keepRecentTokens: o?.keepRecentTokens ?? c.keepRecentTokens };
}
