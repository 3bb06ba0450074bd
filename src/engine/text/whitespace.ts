/**
 * JavaScript's whitespace (`\s`, and what `trim()` removes), tested a
 * character code at a time: the one definition for the code that reads text
 * without regex passes (oneLine, the token counter's segmenting, previews).
 */
export function isWhitespace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** Whether the text is empty or all whitespace (`!text.trim()`, without the copy). */
export function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (!isWhitespace(text.charCodeAt(i))) return false;
  return true;
}
