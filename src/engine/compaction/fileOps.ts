import { isRecord } from '../session/jsonObject';
import type { AgentMessage } from '../session/types';

/** Paths touched by the `read`, `write` and `edit` tools (spec 4.6). */
export interface FileOps {
  read: Set<string>;
  written: Set<string>;
  edited: Set<string>;
}

export function createFileOps(): FileOps {
  return { read: new Set(), written: new Set(), edited: new Set() };
}

function addFileOp(name: unknown, args: unknown, ops: FileOps): void {
  const path = isRecord(args) ? args.path : undefined;
  if (typeof path !== 'string' || !path) return;
  if (name === 'read') ops.read.add(path);
  else if (name === 'write') ops.written.add(path);
  else if (name === 'edit') ops.edited.add(path);
}

/** Adds the file operations of an assistant message's tool calls (and a tool result's nested calls). */
export function addMessageFileOps(message: AgentMessage, ops: FileOps): void {
  if (message.role === 'toolResult') {
    const nested = message.nestedCalls;
    const calls: unknown[] = isRecord(nested) && Array.isArray(nested.calls) ? nested.calls : [];
    for (const call of calls) if (isRecord(call)) addFileOp(call.name, call.arguments, ops);
    return;
  }
  if (message.role !== 'assistant' || !Array.isArray(message.content)) return;
  for (const block of message.content) {
    if (block && typeof block === 'object' && block.type === 'toolCall') addFileOp(block.name, block.arguments, ops);
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
