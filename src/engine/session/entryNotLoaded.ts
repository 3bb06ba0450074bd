/**
 * A caller asked the index for an entry whose line is on disk and was not
 * loaded (SessionIndex.load): a programming error in the caller, which must
 * load what a pure function reads before calling it. Never a user error.
 */
export class EntryNotLoadedError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly id: string,
    what = 'entry',
  ) {
    super(
      `${what} "${id}" (line ${line} of ${file}) is not loaded: its line is on disk, and the caller must await ` +
        `SessionIndex.load() (or decideFileOpHints) for it before a pure function reads it`,
    );
    this.name = 'EntryNotLoadedError';
  }
}
