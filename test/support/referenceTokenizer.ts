/**
 * The o200k_base oracle of the token-count tests and benches: OpenAI's
 * reference tokenizer (tiktoken, a devDependency; its WASM and data load from
 * node_modules, offline). Arbor's counter (src/engine/tokens/bpeCount.ts) must
 * give exactly its counts; special-token text is ordinary text to both.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const tiktoken = require('tiktoken') as {
  get_encoding(name: 'o200k_base'): { encode_ordinary(text: string): Uint32Array; encode(text: string): Uint32Array };
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const data = require('tiktoken/encoders/o200k_base.json') as { pat_str: string; bpe_ranks: string };

const encoding = tiktoken.get_encoding('o200k_base');

/** The reference count of `text` (encode_ordinary: special-token text counted as text). */
export function referenceCount(text: string): number {
  return encoding.encode_ordinary(text).length;
}

/** The reference's encode with its default, which refuses special-token text. */
export function referenceEncodeStrict(text: string): Uint32Array {
  return encoding.encode(text);
}

/** The encoding's split pattern as tiktoken has it (Rust regex syntax). */
export const REFERENCE_PATTERN = data.pat_str;

/** Every token's bytes, by rank (from the same data the build writes dist/o200k.bin from). */
export function referenceRanks(): Buffer[] {
  const [, , ...encoded] = data.bpe_ranks.trim().split(' ');
  return encoded.map((b64) => Buffer.from(b64, 'base64'));
}
