import { isRecord } from '../session/jsonObject';
import type { AgentMessage } from '../session/types';
import type { AgentKind } from '../session/agents/agentKind';
import { piToolCall } from '../session/agents/toolCalls';

/** Paths touched by the `read`, `write` and `edit` tools (spec 4.6). */
export interface FileOps {
  read: Set<string>;
  written: Set<string>;
  edited: Set<string>;
}

export function createFileOps(): FileOps {
  return { read: new Set(), written: new Set(), edited: new Set() };
}

function addFileOp(agent: AgentKind, rawName: unknown, rawArgs: unknown, ops: FileOps): void {
  // Another agent's tools in Pi's terms (Claude Code's Read/Write/Edit and `file_path`).
  const call = agent === 'pi' || typeof rawName !== 'string' || !isRecord(rawArgs) ? undefined : piToolCall(agent, rawName, rawArgs);
  const name = call ? call.name : rawName;
  const args = call ? call.args : rawArgs;
  const path = isRecord(args) ? args.path : undefined;
  if (typeof path !== 'string' || !path) return;
  if (name === 'read') ops.read.add(path);
  else if (name === 'write') ops.written.add(path);
  else if (name === 'edit') ops.edited.add(path);
}

/** Adds the file operations of an assistant message's tool calls (and a tool result's nested calls) of a session of `agent`. */
export function addMessageFileOps(message: AgentMessage, ops: FileOps, agent: AgentKind = 'pi'): void {
  if (message.role === 'toolResult') {
    const nested = message.nestedCalls;
    const calls: unknown[] = isRecord(nested) && Array.isArray(nested.calls) ? nested.calls : [];
    for (const call of calls) if (isRecord(call)) addFileOp(agent, call.name, call.arguments, ops);
    return;
  }
  if (message.role !== 'assistant' || !Array.isArray(message.content)) return;
  for (const block of message.content) {
    if (block && typeof block === 'object' && block.type === 'toolCall') addFileOp(agent, block.name, block.arguments, ops);
  }
}

/** Adds the lists a previous summary recorded in its `details`. */
export function addDetailsFileOps(details: unknown, ops: FileOps): void {
  if (!isRecord(details)) return;
  const d = details;
  if (Array.isArray(d.readFiles)) for (const f of d.readFiles) if (typeof f === 'string') ops.read.add(f);
  if (Array.isArray(d.modifiedFiles)) for (const f of d.modifiedFiles) if (typeof f === 'string') ops.edited.add(f);
}

export interface FileLists {
  readFiles: string[];
  modifiedFiles: string[];
}

/** modifiedFiles = written or edited; readFiles = read and not modified; both sorted. */
export function fileLists(ops: FileOps): FileLists {
  const modified = new Set([...ops.edited, ...ops.written]);
  return {
    readFiles: [...ops.read].filter((f) => !modified.has(f)).sort(),
    modifiedFiles: [...modified].sort(),
  };
}

/** The `<read-files>` / `<modified-files>` blocks appended to a summary (spec 4.7). */
export function formatFileLists(lists: FileLists): string {
  const blocks: string[] = [];
  if (lists.readFiles.length) blocks.push(`<read-files>\n${lists.readFiles.join('\n')}\n</read-files>`);
  if (lists.modifiedFiles.length) blocks.push(`<modified-files>\n${lists.modifiedFiles.join('\n')}\n</modified-files>`);
  return blocks.length ? `\n\n${blocks.join('\n\n')}` : '';
}

export interface WrittenFileListsOptions {
  /** The operations the lists came from (a path nothing was written to but that was read is listed as read). */
  ops: FileOps;
  /** Whether every write or edit of `path` in the summarized messages failed. */
  unwritten: (path: string) => boolean;
  /** Paths an earlier checkpoint recorded as modified (they stay: nothing here says otherwise). */
  earlier?: ReadonlySet<string>;
}

/**
 * The lists a summary Arbor writes records, in its text's blocks and in its
 * `details` (issue 32: a failed write modified nothing): `lists` (Pi's, every
 * path a write or edit was called on, which the plan keeps as Pi prepares it)
 * without the paths nothing was written to, unless an earlier checkpoint
 * listed them; such a path that was read is listed as read.
 */
export function writtenFileLists(lists: FileLists, options: WrittenFileListsOptions): FileLists {
  const dropped = lists.modifiedFiles.filter((f) => options.unwritten(f) && !options.earlier?.has(f));
  if (!dropped.length) return lists;
  const gone = new Set(dropped);
  const read = dropped.filter((f) => options.ops.read.has(f));
  return {
    readFiles: read.length ? [...lists.readFiles, ...read].sort() : lists.readFiles,
    modifiedFiles: lists.modifiedFiles.filter((f) => !gone.has(f)),
  };
}
