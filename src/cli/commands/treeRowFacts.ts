import { entryPreview, type EntryKind, type EntryPreview } from '../../engine/tree/entryPreview';
import { rowPreview } from '../../engine/tree/rowPreview';
import { detachedText } from '../../engine/tree/detachedText';
import { countEntryTokens, entryTokens } from '../../engine/tokens/entryTokens';
import type { EntryVisitor } from '../../engine/session/lineReader';
import type { SessionIndex } from '../../engine/session/sessionIndex';
import type { SessionEntry } from '../../engine/session/types';
import type { TokenEstimator } from '../../engine/tokens/estimators';

export interface RowFactsOptions {
  estimator: TokenEstimator;
  /** Characters of preview made (entryPreview's max). */
  previewMax: number;
  /** The text a row keeps of its preview (what it shows of it). */
  shown: (preview: EntryPreview) => string;
}

/**
 * What `arbor tree` shows of each entry (its kind, its preview as shown and
 * its tokens), made while the load parses the entry (`visit` is the load's
 * EntryVisitor), so each line is parsed once however the tree orders its
 * rows. An entry the load did not parse (a line too long to parse, or one
 * that looked right but did not parse) is described from the index when
 * asked, as every other command describes it. Each row keeps only its short
 * texts (detachedText: never the entry it was made from).
 */
export class RowFacts {
  private readonly kinds: (EntryKind | undefined)[] = [];
  private readonly texts: string[] = [];
  private readonly tokenCounts: number[] = [];

  constructor(private readonly o: RowFactsOptions) {}

  readonly visit: EntryVisitor = (i: number, entry: SessionEntry): void => {
    const pv = entryPreview(entry, this.o.previewMax);
    this.kinds[i] = pv.kind;
    this.texts[i] = detachedText(this.o.shown(pv));
    this.tokenCounts[i] = countEntryTokens(entry, this.o.estimator);
  };

  /** Entry i's kind, shown text and tokens. */
  row(index: SessionIndex, i: number): { kind: EntryKind; text: string; tokens: number } {
    const kind = this.kinds[i];
    if (kind !== undefined) return { kind, text: this.texts[i], tokens: this.tokenCounts[i] };
    const pv = rowPreview(index, i, this.o.previewMax);
    return { kind: pv.kind, text: this.o.shown(pv), tokens: entryTokens(index, i, this.o.estimator) };
  }

  /** Lets a row's texts go once it is written. */
  forget(i: number): void {
    this.kinds[i] = undefined;
    this.texts[i] = '';
  }
}
