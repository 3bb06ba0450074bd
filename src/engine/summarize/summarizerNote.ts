/** What the panel says instead of call sizes and cost when the offline summarizer (no model) wrote a summary. */
export function offlineSummaryNote(messagesRead: number): string {
  return `offline summary: ${messagesRead} message${messagesRead === 1 ? '' : 's'} read, no model call`;
}

/** Said where usage is shown for a summary a host's chat model wrote (VS Code's API reports no token usage). */
export const CHAT_MODEL_USAGE_NOTE = "VS Code's Language Model API reports no token usage; none is recorded";

/**
 * The note shown instead of usage when a summary records none, by who wrote it (`provider/model`, or unknown for an
 * entry read from the file): the offline summarizer calls no model; VS Code's language models report no usage.
 */
export function noUsageNote(author: string | undefined, messagesRead: number): string {
  if (author?.startsWith('vscode/')) return CHAT_MODEL_USAGE_NOTE;
  if (author?.startsWith('offline')) return offlineSummaryNote(messagesRead);
  return "no token usage recorded (the offline summarizer and VS Code's language models record none)";
}

/**
 * What a summarizer does with custom instructions, for the prompt that asks
 * for them (issue 19: instructions are honoured or not asked for).
 */
export function instructionsNote(provider: string, mode: 'focus' | 'replace' = 'focus'): string {
  if (provider === 'offline') {
    return mode === 'replace'
      ? 'The offline summarizer has no instructions to replace: it uses the words as a focus (matching items are kept ' +
          'first when it must cut; "keep exact paths", "keep commands" or "keep errors" add those lists).'
      : 'The offline summarizer keeps items that mention these words first when it must cut, and "keep exact paths", ' +
          '"keep commands" or "keep errors" add those lists; other wishes it cannot follow.';
  }
  return mode === 'replace' ? 'Sent to the model instead of the default instructions.' : 'Sent to the model as an additional focus.';
}
