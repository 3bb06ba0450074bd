import { isRecord } from '../jsonObject';
import type { ToolResultMessage, UserContentBlock } from '../types';
import { msTime, num, text, userBlocks } from './foreignEntries';

/**
 * A call's output: a string, `{content, success}`, or content items. `done` is Codex's own record of the
 * finished call (`item_completed`): a non-zero `exit_code` or a failed status is an error, and a patch's
 * file changes go with the result (its `details.fileChanges`).
 */
export function toolResult(
  output: unknown,
  toolCallId: string,
  toolName: string,
  timestamp: string,
  done?: Record<string, unknown>,
): ToolResultMessage {
  let content: UserContentBlock[] = [];
  let isError = false;
  if (typeof output === 'string') {
    content = [text(output)];
    isError = shellFailed(output) || exitedWithError(output);
  } else if (Array.isArray(output)) content = userBlocks(output);
  else if (isRecord(output)) {
    content = typeof output.content === 'string' ? [text(output.content)] : userBlocks(output.content);
    isError = output.success === false;
  }
  const exit = num(done?.exit_code);
  if ((exit !== undefined && exit !== 0) || done?.status === 'failed') isError = true;
  const result: ToolResultMessage = { role: 'toolResult', toolCallId, toolName, content, isError, timestamp: msTime(timestamp) };
  if (done?.type === 'FileChange' && isRecord(done.changes) && !isError) result.details = { fileChanges: done.changes };
  return result;
}

/** Codex's unified-exec output header: `Process exited with code N` among its first lines (before `Output:`). */
function exitedWithError(output: string): boolean {
  const head = output.slice(0, 400);
  const end = head.indexOf('\nOutput:');
  const m = /(?:^|\n)Process exited with code (-?\d+)(?:\n|$)/.exec(end < 0 ? head : head.slice(0, end + 1));
  return m !== null && Number(m[1]) !== 0;
}

/** A shell output Codex wrote as `{"output":..., "metadata":{"exit_code":N}}` with N not 0 (read from its end: the output is not parsed again). */
function shellFailed(output: string): boolean {
  if (!output.startsWith('{"output"') || !output.endsWith('}')) return false;
  const at = output.lastIndexOf('"exit_code":');
  if (at < 0 || output.lastIndexOf('"metadata":') < 0) return false;
  const m = /^"exit_code":\s*(-?\d+)/.exec(output.slice(at, at + 40));
  return m !== null && Number(m[1]) !== 0;
}
