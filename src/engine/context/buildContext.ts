import { Projection } from './projection';
import type { SessionIndex } from '../session/sessionIndex';
import type { AgentMessage } from '../session/types';
import { entryRead, walkInMemory, type EntryWalk } from '../session/entryWalk';

export interface ModelRef {
  provider: string;
  modelId: string;
}

export interface SessionContext {
  leafId: string | null;
  projection: Projection;
  messages: { entryIndex: number; message: AgentMessage }[];
  model: ModelRef | null;
  thinkingLevel: string;
}

/** What the LLM sees at `leafIndex` (spec 2). */
export function buildContext(index: SessionIndex, leafIndex: number = index.leafIndex): SessionContext {
  const projection = new Projection(index, leafIndex);
  return {
    leafId: leafIndex >= 0 ? index.record(leafIndex).id : null,
    projection,
    messages: projection.allMessages(),
    ...contextSettings(index, projection.path),
  };
}

/**
 * The model in effect is the last model_change or assistant message on the
 * path; the thinking level the last thinking_level_change ('off' if none).
 * Walks backwards so only the newest candidates are parsed.
 */
export function contextSettings(index: SessionIndex, path: readonly number[]): { model: ModelRef | null; thinkingLevel: string } {
  return walkInMemory(contextSettingsWalk(index, path));
}

/** contextSettings as a walk (session/entryWalk.ts): it reads the newest assistant message on the path. */
export function* contextSettingsWalk(
  index: SessionIndex,
  path: readonly number[],
): EntryWalk<{ model: ModelRef | null; thinkingLevel: string }> {
  let model: ModelRef | null | undefined;
  let thinkingLevel: string | undefined;
  for (let k = path.length - 1; k >= 0 && (model === undefined || thinkingLevel === undefined); k--) {
    const rec = index.record(path[k]);
    if (thinkingLevel === undefined && rec.type === 'thinking_level_change') {
      thinkingLevel = String(index.entryOfType(path[k], 'thinking_level_change')?.thinkingLevel);
    } else if (model === undefined && rec.type === 'model_change') {
      const e = index.entryOfType(path[k], 'model_change');
      model = { provider: String(e?.provider), modelId: String(e?.modelId) };
    } else if (model === undefined && rec.type === 'message' && rec.role === 'assistant') {
      yield entryRead(path, k, -1);
      const m = index.entryOfType(path[k], 'message')?.message;
      const assistant = m?.role === 'assistant' ? m : undefined;
      model = { provider: String(assistant?.provider), modelId: String(assistant?.model) };
    }
  }
  return { model: model ?? null, thinkingLevel: thinkingLevel ?? 'off' };
}
