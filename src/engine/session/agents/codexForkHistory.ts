import { isRecord } from '../jsonObject';
import { codexRolloutById } from './discovery';
import type { SourceLine } from './foreignEntries';

/**
 * A `codex exec fork` rollout's history: its `session_meta` names the rollout it was forked from
 * (`forked_from_id`) and where (`forked_from_ordinal_exclusive`: the parent's lines before that ordinal), and
 * Codex sends the parent's history up to there ahead of the fork's own. The fork's lines are given with the
 * parent's lines up to the fork point after its `session_meta` (their ids prefixed `parent:`; the parent's
 * `session_meta` left out), read from the parent's file (read only) when it is in the same sessions folder.
 * A parent that is itself a fork brings its own parent's history the same way (`readLines` decides how deep).
 */

export interface ForkHistoryOptions {
  /** The fork's file. */
  file: string;
  /** The fork's lines. */
  lines: AsyncIterable<SourceLine>;
  /** Reads another rollout's lines (its diagnostics name that file). */
  readLines: (file: string) => { iterate(): AsyncIterable<SourceLine>; close(): Promise<void> };
  /** Hears of the parent's file when it is found (the header links it). */
  onParent: (parent: string) => void;
  signal?: AbortSignal;
}

export const PARENT_ID_PREFIX = 'parent:';

export async function* withForkHistory({ file, lines, readLines, onParent, signal }: ForkHistoryOptions): AsyncGenerator<SourceLine> {
  const it = lines[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return;
  yield first.value;
  const fork = forkPoint(first.value.value);
  const parent = fork ? await codexRolloutById(file, fork.id, signal) : undefined;
  if (fork && parent !== undefined) {
    onParent(parent);
    if (fork.before !== undefined) {
      const source = readLines(parent);
      try {
        for await (const src of source.iterate()) {
          const ordinal = typeof src.value.ordinal === 'number' ? src.value.ordinal : src.line - 1;
          if (ordinal >= fork.before) break;
          if (src.value.type === 'session_meta') continue;
          yield { ...src, idPrefix: PARENT_ID_PREFIX + (src.idPrefix ?? '') };
        }
      } finally {
        await source.close();
      }
    }
  }
  for (let next = await it.next(); !next.done; next = await it.next()) yield next.value;
}

/** The parent's id and the ordinal the fork's history stops before (undefined: the fork does not say). */
function forkPoint(record: Record<string, unknown>): { id: string; before: number | undefined } | undefined {
  const p = record.type === 'session_meta' && isRecord(record.payload) ? record.payload : undefined;
  const id = typeof p?.forked_from_id === 'string' ? p.forked_from_id : undefined;
  if (id === undefined) return undefined;
  const before = p?.forked_from_ordinal_exclusive;
  return { id, before: typeof before === 'number' && Number.isInteger(before) && before >= 0 ? before : undefined };
}
