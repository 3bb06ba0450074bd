import type { Usage } from '../../session/types';
import type { HttpProvider } from './providerNames';

/**
 * Context windows, output limits and list prices of current OpenAI and
 * Anthropic models. Prices are USD per million tokens, as published when
 * this table was written; the recorded cost is an estimate. Unknown models
 * get FALLBACK_MODEL_INFO (no price: cost 0); callers may override limits.
 */

export interface ModelPricing {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

export interface ModelInfo {
  contextWindow: number;
  maxOutputTokens: number;
  pricing?: ModelPricing;
}

export type ModelProvider = HttpProvider;

export interface ModelTableEntry extends ModelInfo {
  provider: ModelProvider;
}

export const FALLBACK_MODEL_INFO: Readonly<ModelInfo> = Object.freeze({ contextWindow: 128000, maxOutputTokens: 8192 });

const openai = (contextWindow: number, maxOutputTokens: number, input: number, output: number, cacheRead: number): ModelTableEntry => ({
  provider: 'openai',
  contextWindow,
  maxOutputTokens,
  pricing: { input, output, cacheRead },
});
const anthropic = (maxOutputTokens: number, input: number, output: number): ModelTableEntry => ({
  provider: 'anthropic',
  contextWindow: 200000,
  maxOutputTokens,
  // Anthropic: cache reads at 10% of the input price, 5-minute cache writes at 125%.
  pricing: { input, output, cacheRead: round(input * 0.1), cacheWrite: round(input * 1.25) },
});

function round(n: number): number {
  return Math.round(n * 1e12) / 1e12;
}

/** Keys are model ids; a dated or tagged id (`gpt-4o-2024-08-06`, `claude-sonnet-4-20250514`) matches its base id. */
export const MODEL_TABLE: Readonly<Record<string, ModelTableEntry>> = Object.freeze({
  // OpenAI
  'gpt-4o': openai(128000, 16384, 2.5, 10, 1.25),
  'gpt-4o-mini': openai(128000, 16384, 0.15, 0.6, 0.075),
  'gpt-4.1': openai(1047576, 32768, 2, 8, 0.5),
  'gpt-4.1-mini': openai(1047576, 32768, 0.4, 1.6, 0.1),
  'gpt-4.1-nano': openai(1047576, 32768, 0.1, 0.4, 0.025),
  'gpt-5': openai(400000, 128000, 1.25, 10, 0.125),
  'gpt-5-mini': openai(400000, 128000, 0.25, 2, 0.025),
  'gpt-5-nano': openai(400000, 128000, 0.05, 0.4, 0.005),
  'gpt-5-chat-latest': openai(128000, 16384, 1.25, 10, 0.125),
  'gpt-5-codex': openai(400000, 128000, 1.25, 10, 0.125),
  'gpt-5.1': openai(400000, 128000, 1.25, 10, 0.125),
  o3: openai(200000, 100000, 2, 8, 0.5),
  'o3-mini': openai(200000, 100000, 1.1, 4.4, 0.55),
  'o4-mini': openai(200000, 100000, 1.1, 4.4, 0.275),
  // Anthropic
  'claude-opus-4-5': anthropic(64000, 5, 25),
  'claude-opus-4-1': anthropic(32000, 15, 75),
  'claude-opus-4': anthropic(32000, 15, 75),
  'claude-sonnet-4-5': anthropic(64000, 3, 15),
  'claude-sonnet-4': anthropic(64000, 3, 15),
  'claude-haiku-4-5': anthropic(64000, 1, 5),
  'claude-3-7-sonnet': anthropic(64000, 3, 15),
  'claude-3-5-sonnet': anthropic(8192, 3, 15),
  'claude-3-5-haiku': anthropic(8192, 0.8, 4),
});

/** What may follow a table key in a model id: a date, `latest`, or a `:tag`. */
const SUFFIX = /^(?:[-@](?:\d{4}(?:-\d{2}-\d{2})?|\d{8}|latest|preview)|:.*)?$/;

/** Looks a model up: exact id, else the longest table key it extends with a date/tag suffix. A `vendor/` prefix is ignored. */
export function lookupModel(model: string): ModelTableEntry | undefined {
  const id = model.trim().toLowerCase().replace(/^.*\//, '');
  if (MODEL_TABLE[id]) return MODEL_TABLE[id];
  let best: string | undefined;
  for (const key of Object.keys(MODEL_TABLE)) {
    if (id.startsWith(key) && SUFFIX.test(id.slice(key.length)) && (!best || key.length > best.length)) best = key;
  }
  return best ? MODEL_TABLE[best] : undefined;
}

export interface ResolvedModelInfo extends ModelInfo {
  /** False when the model is not in the table and the fallback limits apply. */
  known: boolean;
}

/** The model's limits (overrides win), with the fallback for unknown models. Every Claude model has a 200k window. */
export function resolveModelInfo(model: string, overrides: { contextWindow?: number; maxOutputTokens?: number } = {}): ResolvedModelInfo {
  const entry = lookupModel(model);
  const base: ModelInfo =
    entry ??
    (/^(?:.*\/)?claude-/i.test(model)
      ? { contextWindow: 200000, maxOutputTokens: FALLBACK_MODEL_INFO.maxOutputTokens }
      : FALLBACK_MODEL_INFO);
  const positive = (n: number | undefined) => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined);
  const info: ResolvedModelInfo = {
    contextWindow: positive(overrides.contextWindow) ?? base.contextWindow,
    maxOutputTokens: positive(overrides.maxOutputTokens) ?? base.maxOutputTokens,
    known: !!entry,
  };
  if (base.pricing) info.pricing = base.pricing;
  return info;
}

/** Where a context window can come from, strongest first (the one precedence for CLI and extension). */
export interface ContextWindowSources {
  /** An explicit window: the CLI's --context-window, the extension's arbor.contextWindow (0 / undefined: none). */
  explicit?: number;
  /** What the explicit window is called in messages ('--context-window', 'arbor.contextWindow'). */
  explicitName?: string;
  /** Per-model windows keyed `provider/modelId` or `modelId` (the extension's arbor.modelContextWindows). */
  perModel?: Readonly<Record<string, unknown>>;
  /** The window the session itself reports (Codex's `token_count` events: `model_context_window`). */
  recorded?: number;
  /** Pi's own model configuration (models.json in Pi's agent folder), keyed `provider/modelId`. */
  piModels?: { file: string; windows: ReadonlyMap<string, number> };
  /** The session's model (from its model_change entries), or null. */
  model: { provider: string; modelId: string } | null;
}

/** A window and where it came from, as every view names it. */
export interface ResolvedContextWindow {
  contextWindow: number;
  /** E.g. "--context-window", "arbor.modelContextWindows", "Pi's models.json", "Arbor's model table", "default". */
  source: string;
}

/** The window used when nothing else knows one (no model, or a model not in the table): FALLBACK_MODEL_INFO's. */
export const DEFAULT_CONTEXT_WINDOW = FALLBACK_MODEL_INFO.contextWindow;

/**
 * The context window of a session and its source, for the CLI and the
 * extension alike: explicit > per-model setting > Pi's models.json > the
 * model table for the session's model (any Claude: 200k) > DEFAULT_CONTEXT_WINDOW.
 */
export function resolveContextWindowSource(sources: ContextWindowSources): ResolvedContextWindow {
  const positive = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined);
  const explicit = positive(sources.explicit);
  if (explicit) return { contextWindow: explicit, source: sources.explicitName ?? 'explicit' };
  const { model, perModel, piModels } = sources;
  if (!model && positive(sources.recorded))
    return { contextWindow: positive(sources.recorded)!, source: 'the session (Codex token_count)' };
  if (!model) return { contextWindow: DEFAULT_CONTEXT_WINDOW, source: 'default (no model in the session)' };
  const configured = perModel && (positive(perModel[`${model.provider}/${model.modelId}`]) ?? positive(perModel[model.modelId]));
  if (configured) return { contextWindow: configured, source: 'arbor.modelContextWindows' };
  const recorded = positive(sources.recorded);
  if (recorded) return { contextWindow: recorded, source: 'the session (Codex token_count)' };
  const pi = positive(piModels?.windows.get(`${model.provider}/${model.modelId}`));
  if (pi) return { contextWindow: pi, source: "Pi's models.json" };
  const info = resolveModelInfo(model.modelId);
  return {
    contextWindow: info.contextWindow,
    source: info.known || info.contextWindow !== DEFAULT_CONTEXT_WINDOW ? "Arbor's model table" : 'default (model not known)',
  };
}

/** The window alone (resolveContextWindowSource). */
export function resolveContextWindow(sources: ContextWindowSources): number {
  return resolveContextWindowSource(sources).contextWindow;
}

/** Fills `usage.cost` from a price table entry (all zero without one). */
export function withCost(usage: Usage, pricing: ModelPricing | undefined): Usage {
  const per = (tokens: number, price: number | undefined) => round(((price ?? 0) * tokens) / 1e6);
  const cost = {
    input: per(usage.input, pricing?.input),
    output: per(usage.output, pricing?.output),
    cacheRead: per(usage.cacheRead, pricing?.cacheRead ?? pricing?.input),
    cacheWrite: per(usage.cacheWrite, pricing?.cacheWrite ?? pricing?.input),
    total: 0,
  };
  cost.total = round(cost.input + cost.output + cost.cacheRead + cost.cacheWrite);
  return { ...usage, cost };
}
