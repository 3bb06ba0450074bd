import type { AgentMessage, AssistantMessage } from '../../session/types';
import { clip, code, firstLine, sentences, squash, unique } from './text';
import { constraintSentences } from './userText';
import { isTextBlock, textOfContent } from '../../session/contentBlocks';
import { detachedText } from '../../text/detachedText';
import { decisionOf, type Decision } from './decisions';
export type { Decision } from './decisions';

/**
 * What the offline summarizer reads out of a span of messages, turn by turn:
 * the requests, what each turn changed and ran and answered, the errors that
 * no later step resolved, the user's constraints and the assistant's choices.
 * One pass over the messages (plus maps), linear in their size; what it
 * keeps of a call is its name, target and path and a short result (never
 * the call's arguments or a long output), so a 1 GB span can stream through.
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
  order: number;
  messageIndex: number;
}

export interface Turn {
  /** The user's request (full text), or null for work before the first request of the span. */
  request: string | null;
  /** Index (in the messages read) of the request's message, or -1. */
  requestIndex: number;
  calls: Call[];
  /** `output` is the user's command output when it is short (SHORT_RESULT_CHARS), else empty (like a call's result). */
  userRuns: { command: string; exitCode: number | null | undefined; output: string; cancelled: boolean }[];
  /** The assistant's final text when the turn ended with an answer ('' when read without answers: ExtractOptions.answers). */
  answer: string | null;
  /** How the last assistant message of the turn stopped. */
  lastStop: AssistantMessage['stopReason'] | 'none';
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
}

export interface Extraction {
  turns: Turn[];
  constraints: string[];
  decisions: Decision[];
  problems: Problem[];
  filesModified: string[];
  /** Summaries inside the span (compaction / branch summary messages). */
  embedded: string[];
  /** Calls still waiting for a result at the end of the span. */
  pending: Call[];
  /** Number of messages read. */
  messageCount: number;
}

const PATH_ARGS = ['path', 'file_path', 'filePath', 'file', 'filename'];
const TARGET_ARGS = ['command', 'cmd', 'pattern', 'query', 'url', 'glob'];
const MODIFYING_TOOLS = new Set(['write', 'edit', 'multiedit', 'multi_edit', 'create', 'apply_patch', 'str_replace', 'patch']);
const SHELL_TOOLS = new Set(['bash', 'shell', 'exec']);

function argString(args: Record<string, unknown> | undefined, keys: readonly string[]): string | undefined {
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
const SHORT_RESULT_CHARS = 200;

/** The results of calls whose output is not kept (most of a long span's), one object each for all of them. */
const NO_TEXT_OK = Object.freeze({ isError: false, text: '' });
const NO_TEXT_ERROR = Object.freeze({ isError: true, text: '' });
/** What a finished turn holds when it ran nothing (shared: only the open turn is ever added to). */
const NONE: never[] = Object.freeze([]) as unknown as never[];

export function errorLine(text: string): string {
  // Detached: a line cut from a tool's output would keep the whole output alive (engine/text/detachedText.ts).
  return detachedText(clip(firstLine(text) || squash(text), 200)) || 'an error without a message';
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

export interface ExtractOptions {
  /** The session's working directory: paths under it count as the same as their relative form. */
  cwd?: string;
  /**
   * Keep the text of each turn's final answer (default true). The retention
   * facts only ask whether a turn was answered: without, an answered turn's
   * `answer` is '' (a 1 GB span's answers are tens of MB).
   */
  answers?: boolean;
}

export function extract(messages: Iterable<AgentMessage>, options: ExtractOptions = {}): Extraction {
  const extractor = createExtractor(options);
  for (const m of messages) extractor.add(m);
  return extractor.finish();
}

/** An extraction made message by message, oldest first (a reader that loads a span in batches feeds it as it goes). */
export interface Extractor {
  add(message: AgentMessage): void;
  /** The extraction of the messages added; the extractor takes no more after it. */
  finish(): Extraction;
}

export function createExtractor(options: ExtractOptions = {}): Extractor {
  const x: Extraction = {
    turns: [],
    constraints: [],
    decisions: [],
    problems: [],
    filesModified: [],
    embedded: [],
    pending: [],
    messageCount: 0,
  };
  // Calls waiting for their result, by call id (answered ones leave: a 1 GB span has a few hundred thousand calls).
  // Made anew when it empties: a Map's table once in V8's old generation is rehashed there, and a set and a delete per
  // call would fill the old generation with dead tables.
  let byId = new Map<string, Call>();
  const keepAnswers = options.answers ?? true;
  // A 1 GB span calls the same tools on the same files thousands of times: their names and paths are kept once.
  const strings = new Map<string, string>();
  const once = (text: string | undefined): string | undefined => {
    if (text === undefined) return undefined;
    const known = strings.get(text);
    if (known !== undefined) return known;
    strings.set(text, text);
    return text;
  };
  // The calls of the last assistant message that made any (what can still be pending at the end).
  let lastCalls: Call[] = [];
  let turn: Turn | null = null;
  let order = 0;
  const modelErrors: { problem: Problem; index: number }[] = [];
  let lastGoodAssistant = -1;
  // Unresolved failures by what would resolve them (tool family + target): each is resolved at most once.
  const failures = new Map<string, Problem[]>();
  const familyKey = (tool: string, target: string | undefined) =>
    `${MODIFYING_TOOLS.has(tool) ? 'modify' : SHELL_TOOLS.has(tool) ? 'shell' : tool}\u0000${sameTarget(target, options.cwd)}`;
  const fail = (key: string, p: Problem) => {
    x.problems.push(p);
    const list = failures.get(key);
    if (list) list.push(p);
    else failures.set(key, [p]);
  };
  const succeed = (key: string) => {
    const list = failures.get(key);
    if (!list) return;
    for (const p of list) p.resolved = true;
    failures.delete(key);
  };
  const open = (request: string | null, requestIndex = -1): Turn => {
    if (turn) close(turn);
    const t: Turn = { request, requestIndex, calls: [], userRuns: [], answer: null, lastStop: 'none' };
    x.turns.push(t);
    return t;
  };
  // A finished turn's lists in arrays of their size (a growing array keeps room for more).
  const close = (t: Turn) => {
    t.calls = t.calls.length ? t.calls.slice() : NONE;
    t.userRuns = t.userRuns.length ? t.userRuns.slice() : NONE;
  };

  let index = -1;
  let finished = false;
  const add = (m: AgentMessage): void => {
    if (finished) throw new Error('the extraction is finished');
    index++;
    switch (m.role) {
      case 'user': {
        const text = textOfContent(m.content);
        if (!text.trim()) break;
        turn = open(text.length > 20_000 ? detachedText(text.slice(0, 20_000)) : text, index);
        x.constraints.push(...constraintSentences(turn.request!).map((s) => detachedText(clip(s, 240))));
        break;
      }
      case 'bashExecution': {
        if (m.excludeFromContext) break;
        turn ??= open(null);
        const output = typeof m.output === 'string' ? m.output : '';
        const kept = output.trim().length > SHORT_RESULT_CHARS ? '' : output;
        turn.userRuns.push({ command: m.command, exitCode: m.exitCode, output: kept, cancelled: !!m.cancelled });
        if (!m.cancelled && typeof m.exitCode === 'number' && m.exitCode !== 0) {
          const lines = output
            .trim()
            .split('\n')
            .filter((l) => l.trim());
          fail(familyKey('bash', m.command.trim()), {
            what: `${code(clip(m.command, 100))} (run by the user) exited with code ${m.exitCode}`,
            error: lines.length ? detachedText(clip(lines[lines.length - 1], 200)) : `exit code ${m.exitCode}`,
            resolved: false,
            order: order++,
            messageIndex: index,
          });
        } else if (!m.cancelled) {
          // A command that now succeeds resolves its earlier failures.
          succeed(familyKey('bash', m.command.trim()));
        }
        break;
      }
      case 'branchSummary':
      case 'compactionSummary':
        if (typeof m.summary === 'string') x.embedded.push(m.summary);
        break;
      case 'assistant': {
        turn ??= open(null);
        const blocks = Array.isArray(m.content) ? m.content : [];
        let hasCalls = false;
        for (const b of blocks) {
          if (!b || typeof b !== 'object') continue;
          if (b.type === 'toolCall') {
            hasCalls = true;
            const tool = once(String(b.name).toLowerCase())!;
            const path = once(argString(b.arguments, PATH_ARGS));
            const target = path ?? once(argString(b.arguments, TARGET_ARGS));
            const name = typeof b.name === 'string' ? once(b.name)! : b.name;
            // `result` is there from the start: set later, it would give every call an out-of-object property store.
            const call: Call = { name, path, tool, target, result: undefined, order: order++, messageIndex: index };
            turn.calls.push(call);
            if (lastCalls.length && lastCalls[0].messageIndex !== index) lastCalls = [];
            lastCalls.push(call);
            if (typeof b.id === 'string') byId.set(b.id, call);
            if (path && MODIFYING_TOOLS.has(tool)) x.filesModified.push(sameTarget(path, options.cwd));
          } else if (b.type === 'text' && typeof b.text === 'string') {
            for (const s of sentences(b.text, 60)) {
              const d = decisionOf(s);
              if (d) x.decisions.push({ ...d, messageIndex: index });
            }
          }
        }
        turn.lastStop = m.stopReason ?? 'stop';
        if (m.stopReason === 'error') {
          const problem: Problem = {
            what: 'The model request failed',
            error: m.errorMessage ? errorLine(m.errorMessage) : 'no error message',
            resolved: false,
            order: order++,
            messageIndex: index,
          };
          x.problems.push(problem);
          modelErrors.push({ problem, index });
        } else if (m.stopReason !== 'aborted') {
          lastGoodAssistant = index;
        }
        const reply = blocks
          .filter(isTextBlock)
          .map((b) => b.text)
          .join('\n');
        if ((m.stopReason === 'stop' || m.stopReason === undefined) && !hasCalls && reply.trim()) turn.answer = keepAnswers ? reply : '';
        else if (hasCalls) turn.answer = null;
        break;
      }
      case 'toolResult': {
        const call = byId.get(m.toolCallId);
        // The first result answers a call (a repeated one is not read again).
        if (call && byId.delete(m.toolCallId) && byId.size === 0) byId = new Map();
        const text = textOfContent(m.content);
        if (!call) break;
        const kept = text.trim().length > SHORT_RESULT_CHARS ? '' : text;
        call.result = kept ? { isError: !!m.isError, text: kept } : m.isError ? NO_TEXT_ERROR : NO_TEXT_OK;
        const key = familyKey(call.tool, call.target);
        if (m.isError) {
          const what = `${code(call.name)}${call.target ? ` on ${code(clip(call.target, 100))}` : ''} failed`;
          fail(key, { what, error: errorLine(text), resolved: false, order: call.order, messageIndex: index });
        } else {
          // A later success on the same target resolves earlier failures there (an edit after a failed edit, a command that now passes).
          succeed(key);
        }
        break;
      }
      default:
        break;
    }
  };
  const finish = (): Extraction => {
    if (finished) throw new Error('the extraction is finished');
    finished = true;
    if (turn) close(turn);
    x.messageCount = index + 1;
    // A failed model request is resolved by any later assistant message that did not fail.
    for (const e of modelErrors) if (lastGoodAssistant > e.index) e.problem.resolved = true;
    // Calls of the last assistant message still waiting for a result.
    const lastIndex = lastCalls.length ? lastCalls[0].messageIndex : -1;
    x.pending = lastCalls.filter((c) => !c.result && lastIndex >= lastGoodAssistant);
    // Branch summaries carry no tool results: a call the assistant moved on from is not pending.
    x.constraints = unique(x.constraints, (c) => c.toLowerCase());
    x.decisions = unique(x.decisions, (d) => d.title.toLowerCase());
    x.filesModified = unique(x.filesModified);
    return x;
  };
  return { add, finish };
}
