import { mentionsFocus, pickPositions, type Focus } from './instructions';
import { normalizeText } from '../../text/normalize';
import { trimEndChars } from './text';

/**
 * The items of a summary section without repeats, and the pick of those that
 * fit, over items made on demand (issue 20 item 5): a 1 GB span has tens of
 * thousands of Done items and objectives, and holding them with their keys
 * for every render of the summary grew the heap by about 100 MB of lists
 * that died right after. Here each item is made once to read its key's hash
 * (and whether it mentions the focus), and again only where two hashes
 * meet, to compare the keys themselves (an item compared with is made once more): the result is exactly that of the
 * lists (`unique`, `withoutRepeats`, `pick`), in memory of a few numbers per
 * item. Linear, plus one more making of an item per repeat.
 */

/** A key under which two items say the same ("Read docs/a.md." and "Read `docs/a.md`"). */
export function sameSaying(item: string): string {
  return trimEndChars(normalizeText(item), '.;:!');
}

/** Items made on demand, by position. */
export interface ItemSource {
  readonly length: number;
  at(i: number): string;
}

export interface DistinctOptions {
  /** Two items say the same when their keys are equal. */
  key: (item: string) => string;
  /**
   * Also leave out an item that is only the head of another one ("Read a.md"
   * beside "Read a.md: it covers ..."): an item whose key, without ": ", is
   * the part before the first ": " of some item's key.
   */
  dropHeads?: boolean;
  /** Note which items mention the focus (for pickDistinct). */
  focus?: Focus;
  /** Tests only: the keys' hash (a weak one makes keys collide). */
  hash?: (key: string) => number;
}

export interface DistinctItems {
  /** The positions of the items kept, in order. */
  positions: Int32Array;
  /** For each kept item (same order): 1 when it mentions the focus. */
  focused: Uint8Array;
}

/** Two 32-bit FNV-1a lanes from different bases, as one 53-bit number. */
export function keyHash(key: string): number {
  let a = 0x811c9dc5;
  let b = 0x2f3d5a7b;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (b & 0x1fffff) * 0x100000000 + (a >>> 0);
}

/** Adds `value` to the list under `hash`. */
function addTo(map: Map<number, number[]>, hash: number, value: number): void {
  const list = map.get(hash);
  if (list) list.push(value);
  else map.set(hash, [value]);
}

/** The kept positions: `unique(items, key)`, or `withoutRepeats` with dropHeads. */
export function distinctItems(items: ItemSource, options: DistinctOptions): DistinctItems {
  const n = items.length;
  const hash = options.hash ?? keyHash;
  const hasFocus = !!options.focus?.terms.length;
  const hashes = new Float64Array(n);
  // Bit 1: the key holds ": "; bit 2: the item mentions the focus.
  const flags = new Uint8Array(n);
  // Hash of a head -> items whose keys have that head, one per distinct head.
  const heads = new Map<number, number[]>();
  const keyAt = (i: number) => options.key(items.at(i));
  const headOf = (key: string) => {
    const colon = key.indexOf(': ');
    return colon > 0 ? key.slice(0, colon) : undefined;
  };
  // Keys and heads of items another one was compared with, kept once made: a key repeated thousands of times is made again once.
  const compared = new Map<number, string>();
  const comparedKey = (j: number) => {
    let key = compared.get(j);
    if (key === undefined) compared.set(j, (key = keyAt(j)));
    return key;
  };
  for (let i = 0; i < n; i++) {
    const text = items.at(i);
    const key = options.key(text);
    hashes[i] = hash(key);
    if (key.includes(': ')) flags[i] |= 1;
    if (hasFocus && mentionsFocus(text, options.focus!)) flags[i] |= 2;
    const head = options.dropHeads ? headOf(key) : undefined;
    if (head === undefined) continue;
    const h = hash(head);
    const owners = heads.get(h);
    if (!owners) heads.set(h, [i]);
    else if (!owners.some((j) => headOf(comparedKey(j)) === head)) owners.push(i);
  }
  // Hash of a key -> kept items with that hash (their keys all differ).
  const seen = new Map<number, number[]>();
  const kept: number[] = [];
  for (let i = 0; i < n; i++) {
    const h = hashes[i];
    const same = seen.get(h);
    const headOwners = options.dropHeads && !(flags[i] & 1) ? heads.get(h) : undefined;
    if (same || headOwners) {
      const key = keyAt(i);
      if (same?.some((j) => comparedKey(j) === key)) continue;
      if (headOwners?.some((j) => headOf(comparedKey(j)) === key)) continue;
    }
    addTo(seen, h, i);
    kept.push(i);
  }
  const focused = new Uint8Array(kept.length);
  for (let k = 0; k < kept.length; k++) focused[k] = (flags[kept[k]] >> 1) & 1;
  return { positions: Int32Array.from(kept), focused };
}

/**
 * `pick` over kept items: at most `n` of them, those mentioning the focus
 * first (the newest of them), then the newest others, in their order; or,
 * with `newestFirst`, the same over the items in reverse order, given back
 * in reverse order (what `pick([...items].reverse(), ...).reverse()` gives).
 * Returns the items' positions.
 */
export function pickDistinct(items: DistinctItems, n: number, options: { focus: boolean; newestFirst?: boolean }): number[] {
  const count = items.positions.length;
  // Position k of the list pick reads -> index into the kept items.
  const at = (k: number) => (options.newestFirst ? count - 1 - k : k);
  const chosen = pickPositions(count, n, options.focus ? (k) => items.focused[at(k)] === 1 : undefined).map((k) => items.positions[at(k)]);
  return options.newestFirst ? chosen.reverse() : chosen;
}
