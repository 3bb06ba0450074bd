/**
 * A copy of `text` that holds no reference to a longer string it was cut
 * from, for text kept after its source is done with (the row of every entry
 * of a million-entry session, made while the entry is loaded).
 *
 * V8 makes a slice of 13 or more characters a view of its whole parent: a
 * 70-character preview of a 50 MB tool result would keep the 50 MB alive.
 * A concatenation is copied into one flat string the first time one of its
 * characters is read, and then refers to nothing else; so the text is
 * joined from two pieces and read once. (test/unit/engine/detachedText.test.ts
 * checks that the parent is collected.)
 */
const SLICE_MIN = 13;

export function detachedText(text: string): string {
  if (text.length < SLICE_MIN) return text; // short slices are copies already
  const joined = `${text.slice(0, 1)}${text.slice(1)}`;
  joined.charCodeAt(0);
  return joined;
}
