/**
 * Which of many patterns occur in a text, in one pass (Aho-Corasick): linear
 * in the text plus the patterns' total length, whatever their number. A
 * pattern that starts (ends) with a word character only counts where the text
 * has no word character just before (after) it, so `a.ts` is not found in
 * `data.ts`.
 */

interface Node {
  next: Map<string, number>;
  fail: number;
  /** Pattern ids ending at this node. */
  out: number[];
  /** Nearest node on the fail chain (this one included) with an output, or -1. */
  dict: number;
}

const isWord = (ch: string | undefined) => ch !== undefined && /[\p{L}\p{N}_]/u.test(ch);

export function findPatterns(text: string, patterns: readonly string[]): boolean[] {
  return findPatternsIn([text], patterns).map((at) => at >= 0);
}

/**
 * For each pattern, the index of the first of `texts` it occurs in (at word
 * boundaries, as findPatterns), or -1: one pass over all the texts, linear
 * in their length plus the patterns'.
 */
export function findPatternsIn(texts: readonly string[], patterns: readonly string[]): number[] {
  const foundIn = patterns.map(() => -1);
  const found = patterns.map(() => false);
  const nodes: Node[] = [{ next: new Map(), fail: 0, out: [], dict: -1 }];
  patterns.forEach((p, id) => {
    if (!p) {
      found[id] = true;
      foundIn[id] = texts.length ? 0 : -1;
      return;
    }
    let n = 0;
    for (const ch of p) {
      let to = nodes[n].next.get(ch);
      if (to === undefined) {
        to = nodes.length;
        nodes.push({ next: new Map(), fail: 0, out: [], dict: -1 });
        nodes[n].next.set(ch, to);
      }
      n = to;
    }
    nodes[n].out.push(id);
  });
  // Breadth-first failure links.
  const queue: number[] = [];
  for (const to of nodes[0].next.values()) queue.push(to);
  for (let q = 0; q < queue.length; q++) {
    const u = queue[q];
    const node = nodes[u];
    node.dict = node.out.length ? u : nodes[node.fail].dict;
    for (const [ch, v] of node.next) {
      let f = node.fail;
      while (f !== 0 && !nodes[f].next.has(ch)) f = nodes[f].fail;
      const target = nodes[f].next.get(ch);
      nodes[v].fail = target !== undefined && target !== v ? target : 0;
      queue.push(v);
    }
  }
  // A node whose patterns are all found is skipped for good (dict links are compressed past it); the
  // rest of a chain is at most as long as the longest pattern, so each position costs a bounded walk.
  const done = new Uint8Array(nodes.length);
  const liveDict = (start: number): number => {
    let d = start;
    const seen: number[] = [];
    while (d > 0 && done[d]) {
      seen.push(d);
      d = nodes[nodes[d].fail].dict;
    }
    for (const s of seen) nodes[s].dict = d; // path compression
    return d;
  };
  const lengths = patterns.map((p) => [...p].length);
  for (let t = 0; t < texts.length; t++) {
    const chars = [...texts[t]];
    let state = 0;
    // Positions in code points; word-boundary checks look at the neighbours.
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i];
      while (state !== 0 && !nodes[state].next.has(ch)) state = nodes[state].fail;
      state = nodes[state].next.get(ch) ?? 0;
      for (let d = liveDict(nodes[state].dict); d > 0; d = liveDict(nodes[nodes[d].fail].dict)) {
        let allFound = true;
        for (const id of nodes[d].out) {
          if (found[id]) continue;
          const p = patterns[id];
          const start = i - lengths[id] + 1;
          const okStart = !isWord(p[0]) || !isWord(chars[start - 1]);
          const okEnd = !isWord(chars[i]) || !isWord(chars[i + 1]);
          if (okStart && okEnd) {
            found[id] = true;
            foundIn[id] = t;
          } else allFound = false;
        }
        if (allFound) done[d] = 1;
      }
    }
  }
  return foundIn;
}
