/**
 * Counts occurrences of `needle` in `text` (up to `cap`), with the first
 * match's position, in O(text + needle) time (Knuth–Morris–Pratt): no input
 * can make it quadratic. Overlapping occurrences count, as in Pi's check.
 */
export function findOccurrences(text: string, needle: string, cap = 2): { count: number; first: number } {
  const m = needle.length;
  if (m === 0 || m > text.length) return { count: 0, first: -1 };
  const fail = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && needle.charCodeAt(i) !== needle.charCodeAt(k)) k = fail[k - 1];
    if (needle.charCodeAt(i) === needle.charCodeAt(k)) k++;
    fail[i] = k;
  }
  let count = 0;
  let first = -1;
  for (let i = 0, k = 0; i < text.length; i++) {
    while (k > 0 && text.charCodeAt(i) !== needle.charCodeAt(k)) k = fail[k - 1];
    if (text.charCodeAt(i) === needle.charCodeAt(k)) k++;
    if (k === m) {
      if (count === 0) first = i - m + 1;
      if (++count >= cap) break;
      k = fail[k - 1];
    }
  }
  return { count, first };
}
