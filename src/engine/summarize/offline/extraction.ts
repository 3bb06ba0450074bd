import type { AssistantMessage } from '../../session/types';
import { clip, squash } from './text';
import { errorLineOf } from '../../text/lines';
import { detachedText } from '../../text/detachedText';
import type { Decision } from './decisions';

/**
 * What the offline extraction makes of a span (extract.ts reads it): calls,
 * turns with their trigger and outcome, problems, and the tool vocabulary
 * that decides which calls read, change or run.
 */

export interface Call {
  /** The tool's name as the call wrote it. */
  name: string;
  /** The path argument, when there is one. */
  path: string | undefined;
  tool: string;
  target: string | undefined;
  /** `text` is the output when it is short (SHORT_RESULT_CHARS), else empty. */
  result?: { isError: boolean; text: string };
  /** A read file's title (its first line when that is a Markdown heading). */
  title: string | undefined;
  order: number;
  messageIndex: number;
}

/**
 * What started a turn: the user's message, an extension's custom message the
 * model answered, the user's own `!command`, or nothing in the span (the
 * request is outside it).
 */
export type TriggerKind = 'user' | 'custom' | 'bash' | 'outside';

/** How a turn ended. */
export type TurnOutcome = 'answered' | 'aborted' | 'length' | 'refused' | 'error' | 'open';

export interface Turn {
  /** The user's request (full text), or null for a turn another trigger started or work before the first request of the span. */
  request: string | null;
  trigger: { kind: TriggerKind; text: string; customType?: string };
  /** Index (in the messages read) of the trigger's message, or -1. */
  requestIndex: number;
  calls: Call[];
  /** `output` is the user's command output when it is short (SHORT_RESULT_CHARS), else empty (like a call's result). */
  userRuns: { command: string; exitCode: number | null | undefined; output: string; cancelled: boolean }[];
  /** The assistant's final text when the turn ended with an answer ('' when read without answers: ExtractOptions.answers). */
  answer: string | null;
  /** How the last assistant message of the turn stopped. */
  lastStop: AssistantMessage['stopReason'] | 'none';
  /** How the turn ended (set when the turn closes; 'open' while it is the newest). */
  outcome: TurnOutcome;
  /** The last failed model request's message, when the turn ended with one. */
  errorMessage?: string;
  /** The start of an answer that was interrupted or cut off. */
  partial?: string;
  /** A failed model request the turn got past (a retry that answered). */
  retried?: string;
  /** The answer proposed a plan or asked before doing it ("Shall I go ahead?"), and the turn changed and ran nothing. */
  proposal?: boolean;
  /** What the user's next message said when it redirected this turn ("Instead, use a Map"). */
  redirectedBy?: string;
  /** Short outputs of the turn's successful commands (newest last), which an answer may point at. */
  outputs: string[];
  /** `file:line` locations a search in the turn found. */
  found: string[];
  /** Identifiers the turn's successful changes introduced (error strings, test names, versions, a small file's content). */
  introduced: string[];
  /** Files the turn wrote that the span had not read or changed before (created, as far as the span shows). */
  created: string[];
}

export interface Problem {
  /** What failed, e.g. "`edit` on `src/a.ts` failed". */
  what: string;
  /** The exact first line of the error. */
  error: string;
  resolved: boolean;
  order: number;
  /** Index of the message that reported it. */
  messageIndex: number;
  /** What the user said when declining the offer to fix it ("Not now"): still open, but not the next thing to do. */
  postponed?: string;
}

export interface Extraction {
  turns: Turn[];
  constraints: string[];
  decisions: Decision[];
  problems: Problem[];
  filesModified: string[];
  /** Summaries inside the span (compaction / branch summary messages). */
  embedded: string[];
  /** Which of `embedded` are branch summaries (the rest are compaction summaries). */
  embeddedKinds: ('branch' | 'compaction')[];
  /** Messages from extensions and hooks that the model saw (custom messages), newest last. */
  notes: { customType: string; text: string }[];
  /** Calls still waiting for a result at the end of the span. */
  pending: Call[];
  /** Number of messages read. */
  messageCount: number;
}

export const PATH_ARGS = ['path', 'file_path', 'filePath', 'file', 'filename'];
export const TARGET_ARGS = ['command', 'cmd', 'pattern', 'query', 'url', 'glob'];
export const MODIFYING_TOOLS = new Set(['write', 'edit', 'multiedit', 'multi_edit', 'create', 'apply_patch', 'str_replace', 'patch']);
export const SHELL_TOOLS = new Set(['bash', 'shell', 'exec']);

export function argString(args: Record<string, unknown> | undefined, keys: readonly string[]): string | undefined {
  if (!args || typeof args !== 'object') return undefined;
  for (const k of keys) {
    const v = args[k];
    if (typeof v === 'string' && v.trim()) return v.trim();
  }
  return undefined;
}

export function isShell(tool: string): boolean {
  return SHELL_TOOLS.has(tool);
}

export function isModifying(tool: string): boolean {
  return MODIFYING_TOOLS.has(tool);
}

export function callPath(call: Call): string | undefined {
  return call.path;
}

/** Longest tool output a call keeps (longer ones are never quoted: see the offline summarizer's shortOutput). */
export const SHORT_RESULT_CHARS = 600;

/** The results of calls whose output is not kept (most of a long span's), one object each for all of them. */
export const NO_TEXT_OK = Object.freeze({ isError: false, text: '' });
export const NO_TEXT_ERROR = Object.freeze({ isError: true, text: '' });
/** What a finished turn holds when it ran nothing (shared: only the open turn is ever added to). */
export const NONE: never[] = Object.freeze([]) as unknown as never[];

export function errorLine(text: string): string {
  // Detached: a line cut from a tool's output would keep the whole output alive (engine/text/detachedText.ts).
  return detachedText(clip(errorLineOf(text) || squash(text), 200)) || 'an error without a message';
}

/**
 * A tool target as the same file or command however it was written: a path
 * relative to `cwd` or absolute under it, with or without `./`.
 */
export function sameTarget(target: string | undefined, cwd: string | undefined): string {
  if (target === undefined) return '';
  let t = target.trim();
  const base = cwd ? cwd.replace(/\/+$/, '') + '/' : '';
  if (base.length > 1 && t.startsWith(base)) t = t.slice(base.length);
  while (t.startsWith('./')) t = t.slice(2);
  return t;
}
