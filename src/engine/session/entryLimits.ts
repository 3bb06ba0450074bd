/**
 * The longest entry line Arbor parses (16 MB). A longer line (a pasted
 * binary, a runaway tool output) is indexed when its fields can be read
 * without parsing it (Pi's key order) and otherwise skipped with a
 * diagnostic; its content is never parsed: it shows as an empty entry, and
 * its tokens are estimated from its byte length (context/entryTokens.ts).
 * Parsing it would take seconds and gigabytes (one 500 MB entry kills V8).
 * Streamed loads and large appends pass over such a line in bounded memory
 * (longLine.ts): only its first bytes are kept, never the line.
 */
export const MAX_PARSED_ENTRY_BYTES = 16 * 1024 * 1024;

export function oversizedLineMessage(bytes: number): string {
  return `the line is ${(bytes / 1048576).toFixed(0)} MB, larger than the ${MAX_PARSED_ENTRY_BYTES / 1048576} MB Arbor parses`;
}

/** What a load reports about a last line too long to parse with no line break after it (left for a later read). */
export function incompleteLongLineMessage(bytes: number): string {
  return `the last line is incomplete (a writer stopped mid-line); ${oversizedLineMessage(bytes)}; skipped`;
}

/** What a load reports about a line too long to parse that was indexed from its leading fields. */
export function oversizedEntryMessage(bytes: number): string {
  return `${oversizedLineMessage(bytes)}; indexed from its leading fields, content not read (shown empty, tokens estimated from its size)`;
}
