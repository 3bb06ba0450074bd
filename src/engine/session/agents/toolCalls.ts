import { isRecord } from '../jsonObject';
import type { AgentKind } from './agentKind';

/** A tool call as Arbor's file history reads it: Pi's tool names and argument names. */
export interface PiToolCall {
  name: string;
  args: Record<string, unknown>;
}

/** Tools of other agents that read, search or plan and never change a file (Pi's `ls` stands for them). */
const READ_ONLY_TOOLS = new Set([
  'Glob',
  'Grep',
  'LS',
  'WebFetch',
  'WebSearch',
  'TodoWrite',
  'TodoRead',
  'ExitPlanMode',
  'update_plan',
  'view_image',
]);

/**
 * Another agent's file tool call in Pi's terms, so one file history serves
 * every agent: Claude Code's Read/Write/Edit/MultiEdit/Bash (`file_path`,
 * `old_string`/`new_string`, `replace_all` as a replacement of every
 * occurrence), Codex's shell calls (`command` as argv or a string) and
 * `apply_patch` (`patch`: its result carries the files it changed).
 * Any other tool stays as it is (an opaque event that may change files).
 */
export function piToolCall(agent: AgentKind, name: string, args: Record<string, unknown>): PiToolCall {
  if (agent === 'pi') return { name, args };
  if (READ_ONLY_TOOLS.has(name)) return { name: 'ls', args: {} };
  const path = args.file_path;
  switch (name) {
    case 'Read':
      return { name: 'read', args: { path, offset: args.offset, limit: args.limit } };
    case 'Write':
      return { name: 'write', args: { path, content: args.content } };
    case 'Edit':
      return { name: 'edit', args: { path, edits: [replacement(args)] } };
    case 'MultiEdit': {
      const edits = Array.isArray(args.edits) ? args.edits : [];
      if (edits.some((e) => !isRecord(e))) return { name, args };
      return { name: 'edit', args: { path, edits: (edits as Record<string, unknown>[]).map(replacement) } };
    }
    case 'apply_patch':
      // Codex's patch: the files it changed come with its result (see fileHistory.ts).
      return { name: 'patch', args };
    case 'Bash':
      return { name: 'bash', args: { command: args.command } };
    case 'shell':
    case 'local_shell':
    case 'container.exec':
    case 'exec_command':
      return { name: 'bash', args: { command: shellCommand(args.command ?? args.cmd) } };
  }
  return { name, args };
}

/** One Claude Code replacement (`old_string`/`new_string`, `replace_all`) in Pi's terms. */
function replacement(e: Record<string, unknown>): Record<string, unknown> {
  return { oldText: e.old_string, newText: e.new_string, ...(e.replace_all === true ? { replaceAll: true } : {}) };
}

/** A Codex command (argv, `bash -lc SCRIPT` read as its script) as one line. */
function shellCommand(command: unknown): string {
  if (typeof command === 'string') return command;
  if (!Array.isArray(command) || !command.every((w) => typeof w === 'string')) return '';
  const argv = command as string[];
  if (argv.length === 3 && /(^|\/)(ba|z)?sh$/.test(argv[0]) && (argv[1] === '-lc' || argv[1] === '-c')) return argv[2];
  return argv.join(' ');
}

/** The whole text of a file a Claude Code Read showed (kept by the converter from the record's `toolUseResult`). */
export function wholeFileText(details: unknown): string | undefined {
  return isRecord(details) && typeof details.wholeFileText === 'string' ? details.wholeFileText : undefined;
}
