import type { Projection } from './projection';
import type { AgentMessage } from '../session/types';

/**
 * The messages of a summarized span, read on demand: a 1 GB span is never
 * held whole. Iterating reads them oldest first, `backward()` newest first
 * (what a bounded summarizer prompt keeps); `entryIdAt` names the entry a
 * message came from. Each read parses the entries again (the projection's
 * cache is bounded), so a consumer keeps only what it extracts.
 */
export interface MessageSpan extends Iterable<AgentMessage> {
  readonly length: number;
  backward(): Iterable<AgentMessage>;
  /** The id of the entry message `i` came from, or null. */
  entryIdAt(i: number): string | null;
}

/** Messages as a summarizer or an extractor reads them: an array, or a span read on demand. */
export type Messages = readonly AgentMessage[] | MessageSpan;

/** A message with the entry it came from. */
export interface SpanMessage {
  entryId: string | null;
  message: AgentMessage;
}

function* reversed<T>(items: readonly T[]): Generator<T> {
  for (let i = items.length - 1; i >= 0; i--) yield items[i];
}

/** The messages newest first. */
export function backwardOf(messages: Messages): Iterable<AgentMessage> {
  return Array.isArray(messages) ? reversed(messages as readonly AgentMessage[]) : (messages as MessageSpan).backward();
}

/** A span over messages already in memory (with their entries). */
export function arraySpan(items: readonly SpanMessage[]): MessageSpan {
  return {
    length: items.length,
    *[Symbol.iterator]() {
      for (const m of items) yield m.message;
    },
    *backward() {
      for (let i = items.length - 1; i >= 0; i--) yield items[i].message;
    },
    entryIdAt: (i) => (i >= 0 && i < items.length ? items[i].entryId : null),
  };
}

/**
 * The messages of projected `positions` (system prompts left out), read from
 * the projection each time they are walked. Holds one position number per
 * message (noted on the first walk), not the messages.
 */
export function projectionSpan(p: Projection, positions: readonly number[]): MessageSpan {
  let at: number[] | null = null;
  let count: number | undefined;
  const own = (pos: number) => p.transientMessages(pos).filter((m) => m.role !== 'system');
  function* forward(note: number[] | null): Generator<AgentMessage> {
    for (const pos of positions) {
      for (const m of own(pos)) {
        note?.push(pos);
        yield m;
      }
    }
    if (note) at = note;
  }
  const positionsOf = (): number[] => {
    if (!at) {
      const walk = forward([]);
      while (!walk.next().done);
    }
    return at!;
  };
  return {
    // From the roles (no message body is parsed), or from a walk when one was made.
    get length() {
      if (!at && count === undefined) count = positions.reduce((n, pos) => n + p.roles(pos).filter((r) => r !== 'system').length, 0);
      return at ? at.length : count!;
    },
    [Symbol.iterator]: () => forward(at ? null : []),
    *backward() {
      for (let k = positions.length - 1; k >= 0; k--) yield* reversed(own(positions[k]));
    },
    entryIdAt: (i) => {
      const list = positionsOf();
      return i >= 0 && i < list.length ? p.index.record(p.entries[list[i]]).id : null;
    },
  };
}
