/**
 * One-line shortening of any text shown in a single row (tree rows, pickers,
 * CLI lines): whitespace runs become one space, Markdown bold markers are
 * dropped, and text over `max` characters ends with "…". Linear in the input.
 */
export const ONE_LINE_MAX = 140;

export function oneLine(text: string, max = ONE_LINE_MAX): string {
  // `.+?` cannot cross a line break and stops at the first closing marker: linear.
  const flat = text.replace(/\*\*(.+?)\*\*|__(.+?)__/g, '$1$2').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, Math.max(0, max - 1))}…` : flat;
}
