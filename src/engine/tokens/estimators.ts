import { IMAGE_TOKENS, messageParts } from './messageText';
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

type CountTokens = (text: string) => number;
let countTokensFn: CountTokens | undefined;

/** gpt-tokenizer's encoder tables take a while to load: only when a count is first needed. */
function countTokens(text: string): number {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  countTokensFn ??= (require('gpt-tokenizer') as { countTokens: CountTokens }).countTokens;
  return countTokensFn(text);
}

/** A real BPE count (gpt-tokenizer, o200k) of the same pieces, for accuracy. */
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
