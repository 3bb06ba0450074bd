/**
 * Which part of a long line the tree shows (no vscode import: unit-testable).
 * VS Code resolves every child a tree hands it, so a line of 50,000 entries
 * is shown as a window: by default its newest `pageSize` entries, with a row
 * for the earlier ones. "Show earlier" / "show later" grow the window a page
 * at a time; revealing an entry outside it moves the window there. The window
 * is remembered by entry (not position), so entries appended at the end of a
 * window that reaches the end add rows instead of pushing the top ones out;
 * a line that changed under it (a jump moved the leaf) starts again from its
 * newest page.
 */
export const PAGE_SIZE = 200;

/** Revealing an entry this close to a window that runs to the end just extends the window. */
const MAX_EXTEND = 1000;
/** Entries shown above a revealed one. */
const CONTEXT = 10;

interface Window {
  /** First entry shown. */
  first: number;
  /** Last entry shown; undefined: down to the end of the line (and whatever is appended). */
  last: number | undefined;
}

export interface Page {
  hiddenBefore: number;
  hiddenAfter: number;
  shown: readonly number[];
}

export class LinePages {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly pageSize = PAGE_SIZE) {}

  private key(file: string, line: number): string {
    return `${file}#${line}`;
  }

  /** Positions in `entries` of the first and last entry shown. */
  private range(file: string, line: number, entries: readonly number[]): [number, number] {
    const end = entries.length - 1;
    if (entries.length <= this.pageSize) return [0, end];
    const key = this.key(file, line);
    const w = this.windows.get(key);
    let from = w ? entries.indexOf(w.first) : -1;
    let to = w?.last === undefined ? end : entries.indexOf(w.last);
    if (from < 0 || to < from) {
      from = entries.length - this.pageSize;
      to = end;
      this.windows.set(key, { first: entries[from], last: undefined });
    }
    return [from, to];
  }

  private set(file: string, line: number, entries: readonly number[], from: number, to: number): void {
    const end = entries.length - 1;
    this.windows.set(this.key(file, line), { first: entries[Math.max(0, from)], last: to >= end ? undefined : entries[to] });
  }

  /** Forgets every window (the rows of every line changed: another filter). */
  forgetAll(): void {
    this.windows.clear();
  }

  /** Forgets the windows of a session's lines (its positions changed: a preview gave way to the full index). */
  forget(file: string): void {
    for (const key of [...this.windows.keys()]) if (key.startsWith(`${file}#`)) this.windows.delete(key);
  }

  page(file: string, line: number, entries: readonly number[]): Page {
    const [from, to] = this.range(file, line, entries);
    const all = from === 0 && to === entries.length - 1;
    return { hiddenBefore: from, hiddenAfter: entries.length - 1 - to, shown: all ? entries : entries.slice(from, to + 1) };
  }

  /** Shows a page more before (earlier) or after (later) the window. Returns false when there is nothing more. */
  showMore(file: string, line: number, entries: readonly number[], direction: 'earlier' | 'later'): boolean {
    const [from, to] = this.range(file, line, entries);
    if (direction === 'earlier') {
      if (from === 0) return false;
      this.set(file, line, entries, Math.max(0, from - this.pageSize), to);
    } else {
      if (to === entries.length - 1) return false;
      this.set(file, line, entries, from, Math.min(entries.length - 1, to + this.pageSize));
    }
    return true;
  }

  /** Shows the first page of the line ("Go to Start"). */
  showStart(file: string, line: number, entries: readonly number[]): void {
    if (entries.length > this.pageSize) this.set(file, line, entries, 0, this.pageSize - 1);
  }

  /** Shows the whole line (every row of it). */
  showAll(file: string, line: number, entries: readonly number[]): void {
    if (entries.length > 0) this.set(file, line, entries, 0, entries.length - 1);
  }

  /** Makes the window include `entry`. Returns whether the window changed. */
  include(file: string, line: number, entries: readonly number[], entry: number): boolean {
    const [from, to] = this.range(file, line, entries);
    const at = entries.indexOf(entry);
    if (at < 0 || (at >= from && at <= to)) return false;
    const end = entries.length - 1;
    if (at < from && to === end && end - at <= MAX_EXTEND) this.set(file, line, entries, at - CONTEXT, end);
    else {
      const start = Math.max(0, at - CONTEXT);
      this.set(file, line, entries, start, Math.min(end, start + this.pageSize - 1));
    }
    return true;
  }
}
