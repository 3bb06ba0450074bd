import * as fs from 'node:fs';
import * as path from 'node:path';
import { isRecord } from '../session/jsonObject';
import { piAgentDir } from '../session/piAgentDir';
import { SettingsError } from './piSettings';

/**
 * Pi's own model configuration: `models.json` in Pi's agent folder
 * (docs/models-configuration.md of Pi 1.6). Arbor reads only the context
 * windows from it: `providers[P].models[].contextWindow` (a model declared
 * there without one gets Pi's default, 128,000) and
 * `providers[P].modelOverrides[M].contextWindow`, keyed `P/M`.
 */
export interface PiModelWindows {
  file: string;
  /** `provider/modelId` -> context window in tokens. */
  windows: ReadonlyMap<string, number>;
}

/** Pi's window for a model it declares in models.json without one. */
export const PI_MODELS_JSON_DEFAULT_WINDOW = 128000;
/** A models.json larger than this is not read (an error naming it): Pi's own files are a few KB. */
const MAX_MODELS_JSON_BYTES = 4 * 1024 * 1024;

export function piModelsFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(piAgentDir(env), 'models.json');
}

function positive(n: unknown): number | undefined {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined;
}

/** The windows a parsed models.json gives; fields of the wrong type or shape are left out, as Pi would refuse them. */
export function modelWindowsOf(json: unknown): Map<string, number> {
  const out = new Map<string, number>();
  const providers = isRecord(json) && isRecord(json.providers) ? json.providers : {};
  for (const [provider, p] of Object.entries(providers)) {
    if (!isRecord(p)) continue;
    if (Array.isArray(p.models)) {
      for (const m of p.models) {
        if (!isRecord(m) || typeof m.id !== 'string' || !m.id) continue;
        out.set(
          `${provider}/${m.id}`,
          m.contextWindow === undefined ? PI_MODELS_JSON_DEFAULT_WINDOW : (positive(m.contextWindow) ?? PI_MODELS_JSON_DEFAULT_WINDOW),
        );
      }
    }
    if (isRecord(p.modelOverrides)) {
      for (const [id, o] of Object.entries(p.modelOverrides)) {
        const w = isRecord(o) ? positive(o.contextWindow) : undefined;
        // A declared model's own entry wins over an override of the same id (the override is for built-in models).
        if (w !== undefined && !out.has(`${provider}/${id}`)) out.set(`${provider}/${id}`, w);
      }
    }
  }
  return out;
}

const cache = new Map<string, { mtimeMs: number; size: number; value: PiModelWindows }>();

/**
 * Pi's models.json windows, read again only when the file changed (a stat
 * per call). No file: no windows. A file that is not JSON, or too large, is
 * a SettingsError naming it.
 */
export function readPiModelWindows(env: NodeJS.ProcessEnv = process.env): PiModelWindows {
  const file = piModelsFile(env);
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    cache.delete(file);
    return { file, windows: new Map() };
  }
  if (!st.isFile()) throw new SettingsError(file, undefined, 'is not a regular file');
  if (st.size > MAX_MODELS_JSON_BYTES)
    throw new SettingsError(file, undefined, `is ${st.size} bytes; Pi's models.json is read up to ${MAX_MODELS_JSON_BYTES}`);
  const hit = cache.get(file);
  if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.value;
  const text = fs.readFileSync(file, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    throw new SettingsError(file, undefined, `is not valid JSON (${(err as Error).message})`);
  }
  const value = { file, windows: modelWindowsOf(json) };
  cache.set(file, { mtimeMs: st.mtimeMs, size: st.size, value });
  return value;
}
