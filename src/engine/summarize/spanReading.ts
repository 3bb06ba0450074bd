import type { Projection } from '../context/projection';
import { spanMessagesWalk, spanLength, type SpanMessage } from '../context/messageSpan';
import type { EntryWalk } from '../session/entryWalk';
import { createExtractor, extract, type ExtractOptions, type Extraction } from './offline/extract';
import { collectConversation, type SerializeOptions } from './serialize';

/**
 * What a summary and its retention check read of a summarized span, made in
 * one pass oldest first (the offline extraction) with the entry each message
 * came from recorded as it goes: the summarizer and the facts take this, not
 * the span, so nothing reads the span again.
 */
export interface SpanReading {
  /** How many messages were read. */
  length: number;
  extraction: Extraction;
  /** The id of the entry message `i` came from, or null. */
  entryIdAt(i: number): string | null;
}

/** The reading of messages in hand (a branch summary's prepared messages). */
export function readingOf(items: readonly SpanMessage[], options: ExtractOptions = {}): SpanReading {
  return {
    length: items.length,
    extraction: extract(
      items.map((m) => m.message),
      options,
    ),
    entryIdAt: (i) => (i >= 0 && i < items.length ? items[i].entryId : null),
  };
}

/**
 * The reading of projected `positions` as a walk (session/entryWalk.ts): the
 * run step loads the span a batch at a time; what stays is the extraction
 * and one entry index per message. `visit` sees each message too (a file
 * list made in the same pass).
 */
export function* spanReadingWalk(
  p: Projection,
  positions: readonly number[],
  options: ExtractOptions,
  visit?: (message: SpanMessage['message']) => void,
): EntryWalk<SpanReading> {
  const extractor = createExtractor(options);
  // One entry index per message (1e6 on a 1 GB span), in a typed array outside the JS heap.
  let at = new Int32Array(1024);
  let length = 0;
  yield* spanMessagesWalk(p, positions, 1, (m, entryIndex) => {
    extractor.add(m);
    visit?.(m);
    if (length === at.length) {
      const bigger = new Int32Array(at.length * 2);
      bigger.set(at);
      at = bigger;
    }
    at[length++] = entryIndex;
  });
  // Cut to its length (the closure below keeps `at` itself, so the grown array is replaced, not kept beside a copy).
  at = at.slice(0, length);
  return {
    length,
    extraction: extractor.finish(),
    entryIdAt: (i) => (i >= 0 && i < length ? p.index.record(at[i]).id : null),
  };
}

/**
 * The serialized conversation of projected `positions` as a walk, newest
 * first, stopping where the budget is reached (serialize.ts
 * collectConversation): only what fits is read.
 */
export function* conversationWalk(
  p: Projection,
  positions: readonly number[],
  options: SerializeOptions & { maxChars: number },
): EntryWalk<string> {
  const collector = collectConversation(options);
  yield* spanMessagesWalk(p, positions, -1, (m) => collector.add(m));
  return collector.finish(spanLength(p, positions));
}
