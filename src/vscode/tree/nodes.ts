/** Elements of the Sessions tree. Ids are stable: a session by file, an entry by file + position + id. */
export type ArborNode = SessionNode | EntryNode | BranchNode | NoticeNode | MoreNode;

export interface SessionNode {
  type: 'session';
  file: string;
}

export interface EntryNode {
  type: 'entry';
  file: string;
  /** Position of the entry in the file (entries are append-only, so this is stable). */
  index: number;
  entryId: string;
}

export interface BranchNode {
  type: 'branch';
  file: string;
  /** Position of the first entry of the side branch. */
  start: number;
  startId: string;
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
}

export function nodeKey(node: ArborNode): string {
  switch (node.type) {
    case 'session':
      return `s:${node.file}`;
    case 'entry':
      return `e:${node.file}#${node.index}:${node.entryId}`;
    case 'branch':
      return `b:${node.file}#${node.start}:${node.startId}`;
    case 'notice':
      return `n:${node.file}:${node.message}`;
    case 'more':
      return `m:${node.file}#${node.line}:${node.direction}`;
  }
}
