/** What the panel says instead of call sizes and cost when the offline summarizer (no model) wrote a summary. */
export function offlineSummaryNote(messagesRead: number): string {
  return `offline summary: ${messagesRead} message${messagesRead === 1 ? '' : 's'} read, no model call`;
}
