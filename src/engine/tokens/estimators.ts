import { IMAGE_TOKENS, measureMessage, type MessageMeasure } from './messageText';
import { countTextTokens } from './countText';
import { BpeCounter } from './bpeCount';
import { loadRankTable } from './o200kTable';
import type { AgentMessage } from '../session/types';
import { orList } from '../text/orList';

/** The estimators by name: the CLI's --estimator and arbor.tokenEstimator (its enum in package.json is checked against it). */
export const ESTIMATOR_NAMES = ['chars', 'tokenizer'] as const;
export type EstimatorName = (typeof ESTIMATOR_NAMES)[number];

/** The estimator when none is chosen, everywhere (CLI, extension, operations): the o200k tokenizer. */
export const DEFAULT_ESTIMATOR: EstimatorName = 'tokenizer';

export function isEstimatorName(name: unknown): name is EstimatorName {
  return typeof name === 'string' && (ESTIMATOR_NAMES as readonly string[]).includes(name);
}

export interface TokenEstimator {
  readonly name: EstimatorName;
  /** Tokens one context message adds. */
  estimate(message: AgentMessage): number;
}

/** Characters, an image as 4800 (Pi's estimate counts each image as 1200 tokens). */
const CHARACTERS: MessageMeasure = { text: (t) => t.length, image: IMAGE_TOKENS * 4 };

/** Pi's estimate, for exact parity: characters / 4, rounded up, per message. */
export const charsEstimator: TokenEstimator = {
  name: 'chars',
  estimate: (message) => Math.ceil(measureMessage(message, CHARACTERS) / 4),
};

let counter: BpeCounter | undefined;

/** The o200k table is read when a count is first needed, or preloaded (a few milliseconds). */
function loadTokenizer(): BpeCounter {
  counter ??= new BpeCounter(loadRankTable());
  return counter;
}

/** Exactly the reference tokenizer's (tiktoken's) count of o200k tokens, special-token text such as `<|endoftext|>` counted as ordinary text (bpeCount.ts). */
function countPiece(text: string): number {
  return (counter ?? loadTokenizer()).count(text);
}

/** Tokens of one text: linear in its length whatever it holds (see countText.ts). */
export function countTokens(text: string): number {
  return countTextTokens(text, countPiece);
}

export function tokenizerLoaded(): boolean {
  return counter !== undefined;
}

/**
 * Loads the tokenizer now (a host with idle time, like the editor after it
 * starts, calls this so that the first count a user waits for is fast).
 * Returns whether it was loaded by this call.
 */
export function preloadTokenizer(): boolean {
  if (counter) return false;
  loadTokenizer();
  return true;
}

/** o200k tokens, an image as Pi counts it. */
const TOKENS: MessageMeasure = { text: (t) => (t ? countTokens(t) : 0), image: IMAGE_TOKENS };

/** A real BPE count (o200k, the same counts as OpenAI's tiktoken) of the same pieces, for accuracy; bounded on pathological text (countText.ts). */
export const tokenizerEstimator: TokenEstimator = {
  name: 'tokenizer',
  estimate: (message) => measureMessage(message, TOKENS),
};

const ESTIMATORS: Readonly<Record<EstimatorName, TokenEstimator>> = Object.freeze({ chars: charsEstimator, tokenizer: tokenizerEstimator });

/** The estimator of a name (undefined: DEFAULT_ESTIMATOR); another name is an error listing the names. */
export function estimatorByName(name: EstimatorName | string | undefined): TokenEstimator {
  const chosen = name ?? DEFAULT_ESTIMATOR;
  if (isEstimatorName(chosen)) return ESTIMATORS[chosen];
  throw new Error(`unknown estimator "${chosen}" (use ${orList(ESTIMATOR_NAMES)})`);
}
