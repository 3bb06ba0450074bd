/**
 * The pin marks (issue 9): which labels pin an entry, and the tags a summary's Pinned part is written with. No
 * imports: the panel's page reads pinned parts too (compaction/pinnedParts.ts).
 */

export const PIN_EMOJI = '📌';
export const PINNED_HEADING = '### Pinned';
export const OPEN_TAG = '<pinned';
export const CLOSE_TAG = '</pinned>';

/** A pinned entry: as collected for a summary, and as a summary's `<pinned>` block holds it. */
export interface PinnedEntry {
  id: string;
  label: string;
  /** What the entry is: user, assistant, toolResult, bashExecution, custom_message, branch_summary, compaction... */
  kind: string;
  text: string;
}

export function isPinLabel(label: string | undefined | null): boolean {
  if (typeof label !== 'string') return false;
  const l = label.trim().toLowerCase();
  return l === 'pin' || l === 'pinned' || l.startsWith('pin:') || l.startsWith(PIN_EMOJI);
}

/** The label that pins an entry, keeping its current (non-pin) label after the pin mark. */
export function pinLabel(current: string | undefined): string {
  const c = (current ?? '').trim();
  if (isPinLabel(c)) return c;
  return c ? `${PIN_EMOJI} ${c}` : PIN_EMOJI;
}

/** The label after unpinning: the rest of a `📌 name` / `pin: name` label, or nothing. */
export function unpinLabel(current: string | undefined): string {
  const c = (current ?? '').trim();
  if (!isPinLabel(c)) return c;
  if (c.startsWith(PIN_EMOJI)) return c.slice(PIN_EMOJI.length).trim();
  if (c.toLowerCase().startsWith('pin:')) return c.slice(4).trim();
  return '';
}
