/** What the panel says instead of call sizes and cost when the offline summarizer (no model) wrote a summary. */
export function offlineSummaryNote(messagesRead: number): string {
  return `offline summary: ${messagesRead} message${messagesRead === 1 ? '' : 's'} read, no model call`;
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
