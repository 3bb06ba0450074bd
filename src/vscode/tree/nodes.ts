/** Elements of the Sessions tree. Ids are stable: a session by file, an entry by file + line offset + id. */
export type ArborNode = SessionNode | EntryNode | BranchNode | NoticeNode | MoreNode;

export interface SessionNode {
  type: 'session';
  file: string;
}

export interface EntryNode {
  type: 'entry';
  file: string;
  /** Position of the entry in the index the node was made from (a preview's positions differ from the full index's). */
  index: number;
  entryId: string;
  /** Byte offset of its line in the file: with the id, what identifies the row (the same in a preview and the full index). */
  offset: number;
}

export interface BranchNode {
  type: 'branch';
  file: string;
  /** Position of the first entry of the side branch (in the index the node was made from). */
  start: number;
  startId: string;
  /** Byte offset of that entry's line in the file. */
  offset: number;
}

/** A row that only says something (load error, empty session). */
export interface NoticeNode {
  type: 'notice';
  file: string;
  message: string;
  severity: 'info' | 'error';
}

/**
 * The first (or last) row of a long line (the session's main line, or a side
 * branch) standing for the entries before (or after) the window of the line
 * the tree shows (see pages.ts); clicking it shows a page more.
 */
export interface MoreNode {
  type: 'more';
  file: string;
  /** -1 for the session's main line, else the first entry (index) of the side branch. */
  line: number;
  direction: 'earlier' | 'later';
  /** For a side branch: its first entry's id and line offset (the position may come from a preview). */
  lineId?: string;
  lineOffset?: number;
}

export function nodeKey(node: ArborNode): string {
  switch (node.type) {
    case 'session':
      return `s:${node.file}`;
    case 'entry':
      return `e:${node.file}@${node.offset}:${node.entryId}`;
    case 'branch':
      return `b:${node.file}@${node.offset}:${node.startId}`;
    case 'notice':
      return `n:${node.file}:${node.message}`;
    case 'more':
      return node.line < 0 ? `m:${node.file}#main:${node.direction}` : `m:${node.file}@${node.lineOffset}:${node.lineId}:${node.direction}`;
  }
}
