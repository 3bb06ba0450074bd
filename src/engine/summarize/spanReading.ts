import type { Projection } from '../context/projection';
import { spanMessagesWalk, spanLength, type SpanMessage } from '../context/messageSpan';
import type { EntryWalk } from '../session/entryWalk';
import { createExtractor, type ExtractOptions, type Extraction } from './offline/extract';
import { createFactReader, type FactReading } from './retention/reader';
import { relativePath } from './retention/text';
import { collectConversation, type SerializeOptions } from './serialize';

/**
 * What a summary and its retention check read of a summarized span, made in
 * one pass oldest first with the entry each message came from recorded as it
 * goes: the offline summarizer's extraction (when a summarizer reads it) and
 * the retention check's own fact reading (retention/reader.ts, independent of
 * that extraction). The summarizer and the facts take this, not the span, so
 * nothing reads the span again.
 */
export interface SpanReading {
  /** How many messages were read. */
  length: number;
  /** The offline extraction (absent when it was not asked for: no summarizer reads it). */
  extraction?: Extraction;
  /** The retention check's reading of the span. */
  facts: FactReading;
  /** The id of the entry message `i` came from, or null. */
  entryIdAt(i: number): string | null;
  /** The span's tokens by `SpanReadingOptions.estimate` (0 without it): what a summary of it replaces. */
  tokens: number;
}

export interface SpanReadingOptions extends ExtractOptions {
  /** Make the offline extraction too (default true). */
  extraction?: boolean;
  /** Count each message's tokens as it is read (the compaction's estimator). */
  estimate?: (message: SpanMessage['message']) => number;
}

/** The reading of messages in hand (a branch summary's prepared messages). */
export function readingOf(items: readonly SpanMessage[], options: SpanReadingOptions = {}): SpanReading {
  const extractor = options.extraction === false ? null : createExtractor(options);
  const reader = createFactReader({ cwd: options.cwd });
  let tokens = 0;
  for (const m of items) {
    if (options.estimate) tokens += options.estimate(m.message);
    extractor?.add(m.message);
    reader.add(m.message, m.entryId);
  }
  return {
    length: items.length,
    ...(extractor ? { extraction: extractor.finish() } : {}),
    facts: reader.finish(),
    entryIdAt: (i) => (i >= 0 && i < items.length ? items[i].entryId : null),
    tokens,
  };
}

/**
 * The reading of projected `positions` as a walk (session/entryWalk.ts): the
 * run step loads the span a batch at a time; what stays is the extraction,
 * the fact reading and one entry index per message. `visit` sees each
 * message too (a file list made in the same pass).
 */
export function* spanReadingWalk(
  p: Projection,
  positions: readonly number[],
  options: SpanReadingOptions,
  visit?: (message: SpanMessage['message']) => void,
): EntryWalk<SpanReading> {
  const extractor = options.extraction === false ? null : createExtractor(options);
  const reader = createFactReader({ cwd: options.cwd });
  // One entry index per message (1e6 on a 1 GB span), in a typed array outside the JS heap.
  let at = new Int32Array(1024);
  let length = 0;
  let tokens = 0;
  yield* spanMessagesWalk(p, positions, 1, (m, entryIndex) => {
    if (options.estimate) tokens += options.estimate(m);
    extractor?.add(m);
    reader.add(m, p.index.record(entryIndex).id);
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
    ...(extractor ? { extraction: extractor.finish() } : {}),
    facts: reader.finish(),
    entryIdAt: (i) => (i >= 0 && i < length ? p.index.record(at[i]).id : null),
    tokens,
  };
}

/**
 * Whether every write or edit of a path in the read spans failed (a failed
 * write in one part and a successful one in another modified it), the path
 * as a tool call named it.
 */
export function unwrittenIn(readings: readonly SpanReading[], cwd: string | undefined): (path: string) => boolean {
  const failed = new Set(readings.flatMap((r) => r.facts.failedWrites));
  for (const r of readings) for (const m of r.facts.modified) failed.delete(m.text);
  return (path) => failed.size > 0 && failed.has(relativePath(path, cwd));
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
