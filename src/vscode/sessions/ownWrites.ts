import type { SessionIndex } from '../../engine/session/sessionIndex';

/** Another writer appended under the leaf Arbor had just written after: it did not see Arbor's entry. */
export interface Divergence {
  ownEntryId: string;
  piEntryId: string;
  parentId: string | null;
}

/**
 * Which appended entries are Arbor's own (their arrival is not another writer's activity), and Arbor's last
 * append to each file itself (not through Pi), until the next entry someone else appends.
 */
export class OwnWrites {
  private readonly ids = new Set<string>();
  private readonly fileWrites = new Map<string, { ids: Set<string>; leafBefore: string | null }>();

  /** Records entries Arbor wrote. */
  note(ids: readonly string[]): void {
    for (const id of ids) this.ids.add(id);
  }

  /** Notes an append Arbor made to the file itself: a foreign entry under the old leaf after it is a divergence. */
  noteFileWrite(file: string, ids: readonly string[], leafBefore: string | null): void {
    if (ids.length > 0) this.fileWrites.set(file, { ids: new Set(ids), leafBefore });
  }

  /** Sorts the entries from `before` on: whether any is another writer's, and the divergence its first one shows, if any. */
  sort(file: string, index: SessionIndex, before: number): { foreign: boolean; divergence: Divergence | undefined } {
    let foreign = false;
    let divergence: Divergence | undefined;
    for (let i = before; i < index.entryCount; i++) {
      const id = index.record(i).id;
      if (this.ids.has(id)) this.ids.delete(id);
      else {
        if (!foreign) divergence = this.divergence(file, index, i);
        foreign = true;
      }
    }
    return { foreign, divergence };
  }

  /**
   * The first entry another process appended after Arbor's own append to the file: when its parent is
   * the leaf Arbor attached to (not Arbor's entry or anything after it), that writer did not see Arbor's
   * entry: a running Pi without the bridge, continuing from its own leaf.
   */
  private divergence(file: string, index: SessionIndex, i: number): Divergence | undefined {
    const own = this.fileWrites.get(file);
    if (!own) return undefined;
    this.fileWrites.delete(file);
    let p = index.parentIndex(i);
    while (p >= 0) {
      if (own.ids.has(index.record(p).id)) return undefined; // it continues from Arbor's entry: Pi saw it
      p = index.parentIndex(p);
    }
    const parentId = index.record(i).parentId;
    if (parentId !== own.leafBefore) return undefined;
    return { ownEntryId: [...own.ids][0], piEntryId: index.record(i).id, parentId };
  }
}
