import { entryPreview, type EntryKind } from '../../engine/tree/entryPreview';
import { ONE_LINE_MAX } from '../../engine/tree/oneLine';
import { rowPreview } from '../../engine/tree/rowPreview';
import { detachedText } from '../../engine/text/detachedText';
import { countEntryTokens, entryTokens } from '../../engine/context/entryTokens';
import { estimatorByName, type EstimatorName } from '../../engine/tokens/estimators';
import type { EntryPreview } from '../../engine/tree/entryPreview';
import type { EntryVisitor } from '../../engine/session/lineReader';
import type { SessionIndex } from '../../engine/session/sessionIndex';
import type { SessionEntry } from '../../engine/session/types';
import { shortField } from '../output';

/** What `arbor tree` shows of one entry besides its place in the tree. */
export interface Row {
  kind: EntryKind;
  /** The preview as the row keeps it: as shown (drawn rows), or whole (JSON). */
  text: string;
  tokens: number;
}

/** How rows are made: the estimator, and whether a row keeps its whole preview (JSON). */
export interface RowStyle {
  estimator: EstimatorName;
  /** Drawn rows keep their preview as shown (70 columns); JSON keeps entryPreview's text. */
  json: boolean;
}

const SHOWN = 70;

/** Entry i's row from its preview (a longer preview than shown for drawn rows: shortField cuts it as shown, never inside an escape or a pair). */
function rowText(style: RowStyle, pv: EntryPreview): string {
  return style.json ? pv.text : shortField(pv.text, SHOWN);
}

function previewMax(style: RowStyle): number {
  return style.json ? ONE_LINE_MAX : 200;
}

/** The row of an entry in hand (as the load parses it). */
function describeRow(entry: SessionEntry, style: RowStyle): Row {
  const pv = entryPreview(entry, previewMax(style));
  return { kind: pv.kind, text: rowText(style, pv), tokens: countEntryTokens(entry, estimatorByName(style.estimator)) };
}

/** The row of entry i read from the index (a line the load did not describe: too long to parse, or a line that looked right but did not parse). */
export function rowFromIndex(index: SessionIndex, i: number, style: RowStyle): Row {
  const pv = rowPreview(index, i, previewMax(style));
  return { kind: pv.kind, text: rowText(style, pv), tokens: entryTokens(index, i, style.estimator) };
}

/**
 * Rows made while the load parses each entry (`visit` is the load's
 * EntryVisitor), so each line is parsed once whatever order the tree shows
 * its rows in. A row keeps only its short text (detachedText: never the
 * entry it was made from).
 */
export class RowFacts {
  private readonly kinds: (EntryKind | undefined)[] = [];
  private readonly texts: string[] = [];
  private readonly tokens: number[] = [];

  constructor(private readonly style: RowStyle) {}

  readonly visit: EntryVisitor = (i: number, entry: SessionEntry): void => {
    const row = describeRow(entry, this.style);
    this.kinds[i] = row.kind;
    this.texts[i] = detachedText(row.text);
    this.tokens[i] = row.tokens;
  };

  hasRow(i: number): boolean {
    return this.kinds[i] !== undefined;
  }

  row(index: SessionIndex, i: number): Row {
    const kind = this.kinds[i];
    return kind === undefined ? rowFromIndex(index, i, this.style) : { kind, text: this.texts[i], tokens: this.tokens[i] };
  }

  /** Lets a row's text go once it is written. */
  forget(i: number): void {
    this.kinds[i] = undefined;
    this.texts[i] = '';
  }
}
