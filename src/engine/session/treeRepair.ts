import type { Diagnostic } from './diagnostics';
import type { RecordColumns } from './recordTable';

/** What SessionIndex does with a tree that is not one (duplicate ids, parentId cycles): reported by file and line, then repaired as Pi shows it. */

/** Reports each entry whose id an earlier entry already had (rare: found in one pass). */
export function reportDuplicates(records: RecordColumns, duplicates: number[], file: string, diagnostics: Diagnostic[]): void {
  const wanted = new Set(duplicates);
  const seen = new Map<string, number>();
  for (let i = 0; i < records.length; i++) {
    const id = records.id(i);
    const previous = seen.get(id);
    if (previous !== undefined && wanted.has(i)) {
      diagnostics.push({
        file,
        line: records.line(i),
        message: `duplicate entry id "${id}" (also on line ${records.line(previous)}); the later entry wins, as in Pi`,
      });
    }
    seen.set(id, i);
  }
}

/** A parentId cycle would make every path walk endless: cut each cycle at the entry the walk first meets again. */
export function breakCycles(parents: Int32Array, from: number, records: RecordColumns, file: string, diagnostics: Diagnostic[]): void {
  const n = parents.length;
  const state = new Uint8Array(n); // 0 unseen, 1 on the current walk, 2 known to reach a root
  for (let i = 0; i < from; i++) state[i] = 2;
  // The walk's entries, chain[0, top): one array for every walk (emptying an array frees its store: a million walks made a million arrays).
  const chain = new Int32Array(n - from);
  for (let i = from; i < n; i++) {
    if (state[i]) continue;
    let top = 0;
    let c = i;
    while (c >= 0 && state[c] === 0) {
      state[c] = 1;
      chain[top++] = c;
      c = parents[c];
    }
    if (c >= 0 && state[c] === 1) {
      diagnostics.push({
        file,
        line: records.line(c),
        message: `entry "${records.id(c)}" is part of a parentId cycle; shown as a root`,
      });
      parents[c] = -1;
    }
    for (let k = 0; k < top; k++) state[chain[k]] = 2;
  }
}
