import type { SessionIndex } from '../session/sessionIndex';

/**
 * How a session tree is shown (no vscode import: unit-testable).
 *
 * A conversation is a chain of thousands of entries; nesting one level per
 * entry would be unusable. As Pi's /tree does, the tree is cut into *lines*:
 * a line starts at some entry and follows one child at a time. The main line
 * is the active path (root to current leaf), shown flat under the session.
 * An entry with more than one child is a branch point: the children that do
 * not continue its line each start a *branch*, shown as an expandable node
 * under that entry, holding the branch's own flat line (which follows, at
 * each step, the child with the most recent activity).
 *
 * Every entry is on exactly one line, so an entry's id is a stable tree id.
 */
export type LayoutNode =
  | { kind: 'entry'; index: number }
  /** A side branch starting at entry `start` (a child of a branch point, or an extra root). */
  | { kind: 'branch'; start: number };

export class SessionLayout {
  readonly index: SessionIndex;
  private leaf: number;
  private main: number[];
  /** Roots other than the active path's root (orphans): side branches at session level. */
  readonly extraRoots: readonly number[];
  /** Entries laid out (the index may have grown since: see extend()). */
  private count: number;
  private next: Int32Array;
  private latest: Int32Array;
  private onMain: Uint8Array;
  /**
   * Whether the side branches are laid out (latest activity, and the line
   * each off-path entry continues). Only the active path is laid out at
   * first: that is all the first rows need, and a 100 MB session opens faster.
   */
  private full = false;

  constructor(index: SessionIndex, leafIndex: number = index.leafIndex) {
    this.index = index;
    this.leaf = leafIndex;
    const n = index.entryCount;
    this.count = n;
    this.latest = new Int32Array(n);
    this.next = new Int32Array(n).fill(-1);
    this.onMain = new Uint8Array(n);
    const path = leafIndex >= 0 ? index.pathTo(leafIndex) : [];
    for (let k = 0; k < path.length; k++) {
      this.onMain[path[k]] = 1;
      if (k + 1 < path.length) this.next[path[k]] = path[k + 1];
    }
    const roots = index.roots();
    const mainRoot = path.length ? path[0] : roots.length ? roots[0] : -1;
    // Without a leaf, the main line follows the most recent activity from the first root.
    if (!path.length) this.layOutBranches();
    this.main = mainRoot >= 0 ? this.lineFrom(mainRoot) : [];
    this.extraRoots = roots.filter((r) => r !== mainRoot);
  }

  /** Lays out the side branches: each entry off the active path continues with its child of most recent activity. */
  private layOutBranches(): void {
    if (this.full) return;
    this.full = true;
    const index = this.index;
    // The index may already hold entries extend() has not taken in yet: size for them.
    this.grow(index.entryCount);
    this.latest.set(latestDescendants(index));
    for (let i = 0; i < this.count; i++) {
      if (this.next[i] >= 0 || (this.onMain[i] && i === this.leaf)) continue;
      let best = -1;
      for (const c of index.children(i)) if (best < 0 || this.latest[c] > this.latest[best]) best = c;
      this.next[i] = best;
    }
  }

  get leafIndex(): number {
    return this.leaf;
  }

  /** Entry indexes shown flat directly under the session (the active path, then its continuation). */
  get mainLine(): readonly number[] {
    return this.main;
  }

  /**
   * Takes in entries appended to the index since the layout was made, when
   * they simply continue the current leaf (what Pi does: each new entry is a
   * child of the previous one, and the last is the new leaf): O(new entries +
   * depth) instead of a rebuild. Returns false when the appended entries do
   * anything else (a jump, a new branch, a duplicate id); then build a new
   * layout.
   */
  extend(): boolean {
    const index = this.index;
    const from = this.count;
    const n = index.entryCount;
    if (n === from) return true;
    const oldLeaf = this.leaf;
    if (from === 0 || oldLeaf !== from - 1 || this.main[this.main.length - 1] !== oldLeaf) return false;
    for (let i = from; i < n; i++) {
      if (index.parentIndex(i) !== i - 1) return false;
      const kids = index.children(i);
      if (i < n - 1 ? kids.length !== 1 || kids[0] !== i + 1 : kids.length !== 0) return false;
    }
    const leafKids = index.children(oldLeaf);
    if (leafKids.length !== 1 || leafKids[0] !== from) return false;
    this.grow(n);
    for (let i = from; i < n; i++) {
      this.next[i - 1] = i;
      this.next[i] = -1;
      this.onMain[i] = 1;
      this.latest[i] = n - 1;
      this.main.push(i);
    }
    // Every ancestor's newest descendant is now the new leaf (laid out side branches only need that).
    if (this.full) for (let p = oldLeaf; p >= 0; p = index.parentIndex(p)) this.latest[p] = n - 1;
    this.leaf = n - 1;
    this.count = n;
    return true;
  }

  private grow(n: number): void {
    if (n <= this.next.length) return;
    const cap = Math.max(n, Math.ceil(this.next.length * 1.5) + 64);
    const next = new Int32Array(cap).fill(-1);
    next.set(this.next.subarray(0, this.count));
    const latest = new Int32Array(cap);
    latest.set(this.latest.subarray(0, this.count));
    const onMain = new Uint8Array(cap);
    onMain.set(this.onMain.subarray(0, this.count));
    this.next = next;
    this.latest = latest;
    this.onMain = onMain;
  }

  /** Entries of the line starting at `start`, in order. */
  lineFrom(start: number): number[] {
    if (!this.onMain[start]) this.layOutBranches();
    const out: number[] = [];
    for (let i = start; i >= 0; i = this.next[i]) {
      out.push(i);
      if (out.length > this.count) break; // defensive: never loop
    }
    return out;
  }

  isOnActivePath(index: number): boolean {
    return this.onMain[index] === 1;
  }

  /** Children of `index` that start side branches (everything but the child continuing its line). */
  branchesAt(index: number): number[] {
    if (!this.onMain[index]) this.layOutBranches();
    const cont = this.next[index];
    return this.index.children(index).filter((c) => c !== cont);
  }

  /** First entry of the line `index` is on. */
  lineStart(index: number): number {
    if (!this.onMain[index]) this.layOutBranches();
    let cur = index;
    for (;;) {
      const p = this.index.parentIndex(cur);
      if (p < 0 || this.next[p] !== cur) return cur;
      cur = p;
    }
  }

  /** The node that holds `node` in the tree, or null when it sits directly under the session. */
  parentOf(node: LayoutNode): LayoutNode | null {
    if (node.kind === 'entry') {
      const start = this.lineStart(node.index);
      if (start === this.mainLine[0]) return null;
      return { kind: 'branch', start };
    }
    const p = this.index.parentIndex(node.start);
    return p < 0 ? null : { kind: 'entry', index: p };
  }

  /** Number of entries in the whole subtree below (and including) `start`. */
  subtreeSize(start: number): number {
    let count = 0;
    const stack = [start];
    while (stack.length) {
      const i = stack.pop()!;
      count++;
      for (const c of this.index.children(i)) stack.push(c);
      if (count > this.index.entryCount) break;
    }
    return count;
  }

  /** Entry index with the most recent activity under `start` (file order). */
  latestUnder(start: number): number {
    this.layOutBranches();
    return this.latest[start];
  }

  /** The chain of layout nodes from the session down to `index` (for reveal). */
  ancestry(index: number): LayoutNode[] {
    const chain: LayoutNode[] = [{ kind: 'entry', index }];
    let cur: LayoutNode | null = chain[0];
    while ((cur = this.parentOf(cur)) && chain.length <= this.index.entryCount * 2) chain.unshift(cur);
    return chain;
  }
}

/** For every entry, the largest file index in its subtree (robust to children listed before parents). */
function latestDescendants(index: SessionIndex): Int32Array {
  const n = index.entryCount;
  const latest = new Int32Array(n);
  for (let i = 0; i < n; i++) latest[i] = i;
  // Post-order over each root's subtree with an explicit stack.
  const visited = new Uint8Array(n);
  for (const root of index.roots()) {
    const stack: [number, number][] = [[root, 0]];
    while (stack.length) {
      const top = stack[stack.length - 1];
      const kids = index.children(top[0]);
      if (top[1] < kids.length) {
        const c = kids[top[1]++];
        if (!visited[c]) stack.push([c, 0]);
        continue;
      }
      visited[top[0]] = 1;
      stack.pop();
      let best = latest[top[0]];
      for (const c of kids) if (latest[c] > best) best = latest[c];
      latest[top[0]] = best;
    }
  }
  return latest;
}
