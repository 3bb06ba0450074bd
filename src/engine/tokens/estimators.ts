import { IMAGE_TOKENS, messageParts } from './messageText';
import { countTextTokens } from './countText';
import type { AgentMessage } from '../session/types';

export type EstimatorName = 'chars' | 'tokenizer';

export interface TokenEstimator {
  readonly name: EstimatorName;
  /** Tokens one context message adds. */
  estimate(message: AgentMessage): number;
}

/** Pi's estimate, for exact parity: characters / 4, rounded up, per message. */
export const charsEstimator: TokenEstimator = {
  name: 'chars',
  estimate(message) {
    const parts = messageParts(message);
    let chars = parts.images * IMAGE_TOKENS * 4;
    for (const t of parts.texts) chars += t.length;
    return Math.ceil(chars / 4);
  },
};

type CountTokens = (text: string, options?: { disallowedSpecial?: Set<string> }) => number;
let countTokensFn: CountTokens | undefined;
/** Special-token text such as `<|endoftext|>` in a session is counted as ordinary text (the default throws). */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** gpt-tokenizer's encoder tables take a while to load (about 0.4 s): only when a count is first needed, or preloaded. */
function loadTokenizer(): CountTokens {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  countTokensFn ??= (require('gpt-tokenizer') as { countTokens: CountTokens }).countTokens;
  return countTokensFn;
}

function countPiece(text: string): number {
  return (countTokensFn ?? loadTokenizer())(text, AS_TEXT);
}

/** Tokens of one text: linear in its length whatever it holds (see countText.ts). */
export function countTokens(text: string): number {
  return countTextTokens(text, countPiece);
}

/**
 * Loads the tokenizer now (a host with idle time, like the editor after it
 * starts, calls this so that the first count a user waits for is fast).
 * Returns whether it was loaded by this call.
 */
export function tokenizerLoaded(): boolean {
  return countTokensFn !== undefined;
}

export function preloadTokenizer(): boolean {
  if (countTokensFn) return false;
  loadTokenizer();
  return true;
}

/** A real BPE count (gpt-tokenizer, o200k) of the same pieces, for accuracy; bounded on pathological text (countText.ts). */
export const tokenizerEstimator: TokenEstimator = {
  name: 'tokenizer',
  estimate(message) {
    const parts = messageParts(message);
    let tokens = parts.images * IMAGE_TOKENS;
    for (const t of parts.texts) if (t) tokens += countTokens(t);
    return tokens;
  },
};

export function estimatorByName(name: EstimatorName | string | undefined): TokenEstimator {
  if (name === undefined || name === 'tokenizer') return tokenizerEstimator;
  if (name === 'chars') return charsEstimator;
  throw new Error(`unknown estimator "${name}" (use chars or tokenizer)`);
}
