/**
 * What a session tells about the files its tools touched. Contents are
 * judged conservatively: `known` only when the session shows the whole text
 * (a write, an exactly replayed edit on known text, a full untruncated read).
 */

/** One `{oldText, newText}` replacement of Pi's edit tool. */
export interface TextReplacement {
  oldText: string;
  newText: string;
  /** Every occurrence is replaced (Claude Code's `replace_all`); otherwise oldText must occur exactly once. */
  replaceAll?: boolean;
}

/**
 * A file's content at one point of a path:
 * - `known`: the session determines it;
 * - `assumed`: derived from the session's own changes, but a command the session cannot see into (bash, an
 *   unknown tool) ran since, so it is not verified; `reason` says which;
 * - `unknown`: the session does not determine it; `reason` says why, `afterEntryId` from which entry on;
 * - `absent`: the file was not there (only used for files the session itself created on another branch).
 */
export type FileContent =
  | { state: 'known'; text: string }
  | { state: 'assumed'; text: string; reason: string; afterEntryId: string }
  | { state: 'unknown'; reason: string; afterEntryId?: string }
  | { state: 'absent'; reason: string };

export type FileChangeKind = 'write' | 'edit';

/** One successful write or edit. */
export interface FileChange {
  /** The assistant entry holding the tool call (the row the user sees). */
  entryId: string;
  /** The tool result entry that reported success. */
  resultEntryId: string;
  toolCallId: string;
  kind: FileChangeKind;
  /** The exact change: a write's whole content, or an edit's replacements. */
  content?: string;
  edits?: TextReplacement[];
  before: FileContent;
  after: FileContent;
}

/** What a change did, in words: `write`, `edit`, or `delete` (a patch's deletion is a write that leaves no file). */
export function changeWord(c: Pick<FileChange, 'kind' | 'after'>): 'write' | 'edit' | 'delete' {
  return c.kind === 'write' && c.after.state === 'absent' ? 'delete' : c.kind;
}

/** Everything a path says about one file. */
export interface FileHistory {
  /** Absolute, normalized (the session's cwd joined with the tool's path). */
  absPath: string;
  /** Relative to the session's cwd when inside it (forward slashes), else the absolute path. */
  path: string;
  insideCwd: boolean;
  changes: FileChange[];
  /** Content after the last entry of the path. */
  final: FileContent;
  /** The session's first contact with the file was a successful write (it may have created the file). */
  firstSeenByWrite?: { entryId: string };
}

/** The start state of a file, before the first entry of a path (see sessionFiles.ts `pristineContents`). */
export type InitialContents = ReadonlyMap<string, FileContent>;
