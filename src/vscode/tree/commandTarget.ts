import type { ArborNode, BranchNode, EntryNode, MoreNode, NoticeNode, SessionNode } from './nodes';

/**
 * What a command acts on, parsed from the `unknown` VS Code hands a command:
 * a Sessions view row (tree node), a session file's URI or path, nothing
 * (palette, keybinding), or an object `{ file, entryId? }` from a test or
 * another extension. The one place command arguments are read (no vscode
 * import: unit-tested with hostile values).
 */
export type CommandTarget =
  | { kind: 'none' }
  | { kind: 'session'; file: string; node?: SessionNode }
  | { kind: 'entry'; file: string; entryId: string; node?: EntryNode }
  | { kind: 'branch'; file: string; node: BranchNode }
  | { kind: 'row'; file: string; node: NoticeNode | MoreNode };

/** A command was given an argument of the wrong shape (the message says what was expected and what came). */
export class CommandTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandTargetError';
  }
}

/** Longest path accepted (longer is no file name any system opens). */
const MAX_PATH_CHARS = 4096;
/** Longest entry id accepted (Pi's are 8 hex characters). */
const MAX_ID_CHARS = 200;

const EXPECTED = 'a session or an entry (a Sessions view row, a session file path or URI, or { file, entryId })';

type Fields = Record<string, unknown>;

const ROW_TYPES = ['session', 'entry', 'branch', 'notice', 'more'] as const;

function isObject(v: unknown): v is Fields {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What a value is, for an error message (never its contents: they may be huge or hostile). */
export function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'object') return 'an object';
  return typeof v === 'undefined' ? 'nothing' : `a ${typeof v}`;
}

function path(v: unknown, what: string): string {
  if (typeof v !== 'string') throw new CommandTargetError(`${what} must be a string (a session file path), got ${describeValue(v)}`);
  if (!v.trim()) throw new CommandTargetError(`${what} is empty (expected a session file path)`);
  if (v.length > MAX_PATH_CHARS) throw new CommandTargetError(`${what} is ${v.length} characters long (at most ${MAX_PATH_CHARS})`);
  if (v.includes('\0')) throw new CommandTargetError(`${what} contains a NUL character`);
  return v;
}

function id(v: unknown, what: string): string {
  if (typeof v !== 'string') throw new CommandTargetError(`${what} must be a string (an entry id), got ${describeValue(v)}`);
  if (!v || v.length > MAX_ID_CHARS) throw new CommandTargetError(`${what} must be 1 to ${MAX_ID_CHARS} characters (got ${v.length})`);
  return v;
}

function offset(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw new CommandTargetError(`${what} must be a byte offset (a whole number, 0 or more), got ${describeValue(v)}`);
  return v;
}

/** A vscode.Uri (or an object shaped like one): told by its string `scheme` and `fsPath`. */
function isUriLike(v: Fields): v is Fields & { scheme: string; fsPath: string } {
  return typeof v.scheme === 'string' && typeof v.fsPath === 'string';
}

function whole(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v))
    throw new CommandTargetError(`${what} must be a whole number, got ${describeValue(v)}`);
  return v;
}

/** A more row's side branch: its first entry's id and line offset, both or neither. */
function moreLine(v: Fields): { lineId?: string; lineOffset?: number } {
  if (v.lineId === undefined && v.lineOffset === undefined) return {};
  return { lineId: id(v.lineId, "a more row's lineId"), lineOffset: offset(v.lineOffset, "a more row's lineOffset") };
}

/**
 * A Sessions view row, checked field by field and copied (another extension
 * may hand over anything with a `type`; only the checked fields go on).
 */
function treeNode(v: Fields): CommandTarget {
  const kind = ROW_TYPES.find((t) => t === v.type);
  if (!kind) throw new CommandTargetError(`expected ${EXPECTED}; got a row of unknown type (${describeValue(v.type)})`);
  const file = path(v.file, `a ${kind} row's file`);
  switch (kind) {
    case 'session':
      return { kind: 'session', file, node: { type: 'session', file } };
    case 'entry': {
      const entryId = id(v.entryId, "an entry row's entryId");
      // A row the tree made has its position and line offset; an object naming an entry may have either or neither.
      const index = v.index === undefined ? undefined : whole(v.index, "an entry row's index");
      const at = v.offset === undefined ? undefined : offset(v.offset, "an entry row's offset");
      if (index === undefined || at === undefined) return { kind: 'entry', file, entryId };
      const node: EntryNode = { type: 'entry', file, entryId, index, offset: at };
      return { kind: 'entry', file, entryId, node };
    }
    case 'branch': {
      const node: BranchNode = {
        type: 'branch',
        file,
        start: whole(v.start, "a branch row's start"),
        startId: id(v.startId, "a branch row's startId"),
        offset: offset(v.offset, "a branch row's offset"),
      };
      return { kind: 'branch', file, node };
    }
    case 'notice': {
      if (typeof v.message !== 'string')
        throw new CommandTargetError(`a notice row's message must be a string, got ${describeValue(v.message)}`);
      const severity = v.severity === 'error' ? 'error' : 'info';
      return { kind: 'row', file, node: { type: 'notice', file, message: v.message, severity } };
    }
    case 'more': {
      if (v.direction !== 'earlier' && v.direction !== 'later')
        throw new CommandTargetError("a more row's direction must be 'earlier' or 'later'");
      const node: MoreNode = { type: 'more', file, line: whole(v.line, "a more row's line"), direction: v.direction, ...moreLine(v) };
      return { kind: 'row', file, node };
    }
  }
}

/**
 * Parses a command's target argument. Nothing (undefined or null) is
 * `none`; a value of the wrong shape throws CommandTargetError.
 */
export function parseCommandTarget(value: unknown): CommandTarget {
  if (value === undefined || value === null) return { kind: 'none' };
  if (typeof value === 'string') return { kind: 'session', file: path(value, 'the session file path') };
  if (!isObject(value)) throw new CommandTargetError(`expected ${EXPECTED}; got ${describeValue(value)}`);
  if (isUriLike(value)) return { kind: 'session', file: path(value.fsPath, "the URI's path") };
  if (value.type !== undefined) return treeNode(value);
  if (!('file' in value)) throw new CommandTargetError(`expected ${EXPECTED}; got an object without a file`);
  const file = path(value.file, 'file');
  if (value.entryId === undefined) return { kind: 'session', file };
  return { kind: 'entry', file, entryId: id(value.entryId, 'entryId') };
}

/**
 * Arguments given as (sessionFile, entryId), as the tree's click and
 * `arbor.showEntry` pass them; a single argument (a row, an object) is
 * parsed as any target.
 */
export function parseEntryArgs(file: unknown, entryId: unknown): CommandTarget {
  if (entryId === undefined) return parseCommandTarget(file);
  return { kind: 'entry', file: path(file, 'the session file path'), entryId: id(entryId, 'the entry id') };
}

/** The session file a target names (undefined: none given). */
export function targetFile(target: CommandTarget): string | undefined {
  return target.kind === 'none' ? undefined : target.file;
}

/** The entry a target names, if it names one. */
export function targetEntry(target: CommandTarget): { file: string; entryId: string } | undefined {
  return target.kind === 'entry' ? { file: target.file, entryId: target.entryId } : undefined;
}

/** The Sessions view row a target came as, if it came as one. */
export function targetNode(target: CommandTarget): ArborNode | undefined {
  return target.kind === 'none' ? undefined : target.node;
}
