import type { Projection } from './projection';
import type { AgentMessage } from '../session/types';
import { entryRead, walkInMemory, type EntryWalk } from '../session/entryWalk';

/** A message with the entry it came from. */
export interface SpanMessage {
  entryId: string | null;
  message: AgentMessage;
}

/**
 * A walk (session/entryWalk.ts) over the messages of projected `positions`
 * (system prompts left out): oldest first (step 1) or newest first (-1),
 * each handed to `visit` with the entry it came from; a visit that returns
 * false ends the walk. Nothing is kept: a 1 GB span is read a batch at a time
 * by the run step, and a fold (the offline extractor, the conversation
 * collector) keeps what it needs.
 */
export function* spanMessagesWalk(
  p: Projection,
  positions: readonly number[],
  step: 1 | -1,
  visit: (message: AgentMessage, entryIndex: number) => boolean | void,
): EntryWalk<void> {
  const order = positions.map((pos) => p.entries[pos]);
  for (let k = step > 0 ? 0 : order.length - 1; k >= 0 && k < order.length; k += step) {
    if (!p.isCached(positions[k])) yield entryRead(order, k, step);
    const own = p.transientMessages(positions[k]).filter((m) => m.role !== 'system');
    for (let j = step > 0 ? 0 : own.length - 1; j >= 0 && j < own.length; j += step) if (visit(own[j], order[k]) === false) return;
  }
}

/** How many messages the span holds, from the roles (no message body is parsed). */
export function spanLength(p: Projection, positions: readonly number[]): number {
  return positions.reduce((n, pos) => n + p.roles(pos).filter((r) => r !== 'system').length, 0);
}

/** The messages of `positions` as an array, oldest first, from entries in memory (tests, and small spans in hand). */
export function messagesAt(p: Projection, positions: readonly number[]): AgentMessage[] {
  const out: AgentMessage[] = [];
  walkInMemory(spanMessagesWalk(p, positions, 1, (m) => void out.push(m)));
  return out;
}
