// Over 400 lines: the fact reader is one fold over the messages; its turns, calls and failures share one closure and its bounds.
import type { AgentMessage } from '../../session/types';
import { isRecord } from '../../session/jsonObject';
import { isImageBlock, textOfContent } from '../../session/contentBlocks';
import { detachedText } from '../../text/detachedText';
import { parseSummary } from '../parseSummary';
import { errorLineOf } from '../../text/lines';
import { anyOf, clip, firstLine, isQuestion, isWordCode, NumberSet, numbersOf, relativePath, sentencesOf, squash } from './text';
import { constraintSentences, isSocial } from './userText';
import { isNoMatchExit, isRevertCommand, isTestCommand, reportedExitCode, REVERT_WORDS, testOutcome } from './shell';

/**
 * The retention check's own reading of a summarized span (issue 32 item 8):
 * fed message by message, oldest first, in the pass that reads the span (one
 * reading for the summarizer and the check: summarize/spanReading.ts), and
 * independent of the offline summarizer's extraction, so a summary cannot
 * pass the check by construction. Linear in the messages; what it keeps is
 * bounded and detached from the messages (short texts, a few of each kind,
 * the numbers in a bounded set), so a 1 GB span streams through.
 *
 * Turns: a turn starts at a user message, a custom message that an
 * assistant reply follows, or the user's own shell command; the assistant's
 * final text answer belongs to the turn whose trigger precedes it. A turn is
 * answered, aborted (stopReason 'aborted'), cut off ('length'), refused
 * ('error' with a content-filter message), failed ('error' otherwise, unless
 * a later assistant message of the turn succeeded) or open (no answer at its
 * end). A failed tool call is resolved by a later successful call on the
 * same target, by a later successful call of the same turn that reached the
 * same goal (its arguments name the failed call's target), or by the turn
 * ending with an answer that reports no failure; `grep`, `rg`, `diff`,
 * `test`, `cmp` exiting 1 with no output found nothing: no failure. A write or
 * edit that failed modified nothing.
 */

export type TurnStatus = 'aborted' | 'cutOff' | 'refused' | 'failed' | 'open' | 'abandoned';

/** A text the reading keeps and the message (its index in the reading) it came from; -1 for none. */
export interface ReadItem {
  text: string;
  at: number;
}

export interface ReadStatus {
  status: TurnStatus;
  /** The request of the turn (or the goal of an abandoned branch), short. */
  subject: string;
  /** Why: the model's error, say ('' when there is nothing to add). */
  detail: string;
  at: number;
}

export interface ReadError {
  /** The error's first line. */
  error: string;
  /** What failed ("`edit` on `src/a.ts`"). */
  what: string;
  at: number;
}

export interface ReadResolved extends ReadError {
  /** How the span resolved it. */
  how: string;
  resolvedAt: number;
}

export interface ReadTestRun {
  command: string;
  passed: boolean;
  /** The output line that says so. */
  evidence: string;
  at: number;
}

export interface FactReading {
  /** Messages read. */
  messages: number;
  /** Turns started in the span, and how many of them were pleasantries ("Thanks, that's all."). */
  turns: number;
  socialTurns: number;
  /** Tool calls and the user's shell commands. */
  work: number;
  constraints: ReadItem[];
  /** The trigger of the span's last turn and whether it was answered. */
  lastRequest: { text: string; at: number; kind: 'user' | 'custom' | 'bash'; answered: boolean; social: boolean } | null;
  /** The open status of the last turn when it had no answer (a fact once something follows it: a split turn's history). */
  lastOpen: ReadStatus | null;
  /** Results of the newest answered turns: numbers and short sentences of the answers, the short outputs they point at. */
  results: ReadItem[];
  /** The newest turns that were not simply answered, and branches left behind. */
  statuses: ReadStatus[];
  openErrors: ReadError[];
  resolvedErrors: ReadResolved[];
  decisions: ReadItem[];
  /** Paths a write or edit modified (the first successful call). */
  modified: ReadItem[];
  /** Paths whose every write or edit in the span failed. */
  failedWrites: string[];
  /** The successful commands and used paths of the last two turns, oldest first. */
  recent: { commands: ReadItem[]; paths: ReadItem[] }[];
  /** The last run of each test command, oldest first. */
  testRuns: ReadTestRun[];
  /** The first sign that a change was undone (a revert command, an edit restoring an earlier text, words saying so). */
  revert: ReadItem | null;
  /** Every number the span's texts hold (user text, answers, thinking, tool arguments and outputs, summaries). */
  numbers: NumberSet;
}

export interface FactReader {
  /** The next message, oldest first; `entryId`: the entry it came from (its digits count as numbers the span holds). */
  add(message: AgentMessage, entryId?: string | null): void;
  /** The reading; the reader takes no more after it. */
  finish(): FactReading;
}

export interface FactReaderOptions {
  /** The session's cwd: a path under it is the same as the relative one. */
  cwd?: string;
}

/** How many answered turns give results, statuses, unresolved and resolved errors, decisions, constraints, test commands. */
const RESULT_TURNS = 6;
const STATUSES = 8;
const OPEN_ERRORS = 8;
const RESOLVED_ERRORS = 32;
const DECISIONS = 20;
const CONSTRAINTS = 100;
const TEST_COMMANDS = 16;
/** Bounds on what a hostile span can make the reader hold. */
const MAX_OPEN_KEYS = 2000;
const MAX_TURN_FAILURES = 200;
const MAX_PATHS = 5000;
const MAX_EDIT_HASHES = 20_000;

const PATH_ARGS = ['path', 'file_path', 'filePath', 'file', 'filename'];
const TARGET_ARGS = ['command', 'cmd', 'pattern', 'query', 'url', 'glob'];
const MODIFYING = new Set([
  'write',
  'edit',
  'multiedit',
  'multi_edit',
  'create',
  'apply_patch',
  'str_replace',
  'str_replace_editor',
  'patch',
]);
const SHELL = new Set(['bash', 'shell', 'exec', 'sh', 'terminal']);

/** An answer that reports a failure keeps the turn's failures open. */
const REPORTS_FAILURE =
  /\b(?:fail(?:s|ed|ing|ures?)?|errors?|could ?n[o']t|cannot|can't|unable|not found|denied|refused|did ?n[o']t work|broken|blocked|still)\b/i;
/** A model error that is a refusal. */
const REFUSAL = /content[_ -]?filter|content policy|safety (?:system|filter)|\brefus|blocked by|flagged/i;
/** An answer that points at the output above it ("those are the totals"). */
const POINTS_AT =
  /\b(?:th(?:ose|ese) are|here (?:are|is)|(?:shown|listed|printed) above|see above|the output (?:above|is|was)|as shown|that'?s the|those were|above)\b/i;
/** Sentences of an answer that carry nothing ("Sure!", "Let me know if you need anything"). */
const PADDING = anyOf(
  ['sure', 'of course', 'certainly', 'absolutely', 'great', 'okay', 'ok', 'done', 'hi', 'hello', 'hey', 'here (?:it is|you go)']
    .concat(['hope (?:this|that) helps', 'let me know\\b', 'feel free\\b', 'happy to help', 'glad to help', 'how can i help'])
    .concat(['what can i do', "you'?re welcome", 'anything else\\b', 'thanks?\\b']),
  'i',
  '^',
  "[\\s\\w,'’]*[.!?]?$",
);
/** A request that turns down what the answer before it proposed ("Instead, use a Map"), and an answer that proposes. */
const REDIRECTION = anyOf(
  ['instead\\b', 'no[,.!]', 'nope\\b', 'not now\\b', 'different idea\\b', "actually[,]?\\s+(?:let'?s|use|do|make)\\b", 'rather\\b'].concat([
    'scratch that\\b',
    'forget (?:that|it)\\b',
    "don'?t do that\\b",
  ]),
  'i',
  '^\\s*',
);
const PROPOSES = /\b(?:plan|propose|suggest|shall i|should i|would you like|i could|i can|option)\b/i;
/** How a choice with its reason is said. */
const CHOICE =
  /\b(?:decided|decide to|chose|choose|chosen|opted|opt for|going with|go with|instead of|rather than|switched to|switch to|settled on|picked)\b/i;
const INTENT = /\b(?:I'll|I will|I'm going to|let's|we'll|we will|I'd rather)\b/i;
const REASON = /\s(?:because|since|so that|to avoid|as it|given that|which keeps|which avoids)\s/i;

interface Failure {
  error: string;
  what: string;
  key: string;
  target: string;
  at: number;
  turn: number;
  resolved: boolean;
}

interface Call {
  tool: string;
  name: string;
  /** The path argument, relative to the cwd. */
  path: string | undefined;
  /** The path or the command / pattern / query. */
  target: string | undefined;
  /** What names the call's goal (its target and path), short, lower case: a failed call of the same turn named in it is reached. */
  goal: string;
  turn: Turn;
}

interface Turn {
  seq: number;
  at: number;
  kind: 'user' | 'custom' | 'bash' | 'none';
  /** Tool calls the turn made. */
  calls: number;
  request: string;
  social: boolean;
  answer: string | null;
  answerAt: number;
  assistant: number;
  lastStop: string;
  lastStopAt: number;
  lastError: string;
  modelFailure: { error: string; at: number } | null;
  failures: Failure[];
  outputs: string[];
  commands: ReadItem[];
  paths: ReadItem[];
}

function argString(args: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const k of keys) {
    const v = args[k];
    if (typeof v === 'string' && v.trim()) return v.trim();
  }
  return undefined;
}

/** Calls `visit` with the strings and numbers of a tool call's arguments (depth and count bounded). */
function forEachArgValue(v: unknown, visit: (s: string) => void, depth = 0, budget = { n: 2000 }): void {
  if (budget.n-- <= 0) return;
  if (typeof v === 'string') visit(v);
  else if (typeof v === 'number' && Number.isFinite(v)) visit(String(v));
  else if (depth < 4 && Array.isArray(v)) for (const x of v) forEachArgValue(x, visit, depth + 1, budget);
  else if (depth < 4 && isRecord(v)) for (const k of Object.keys(v)) forEachArgValue(v[k], visit, depth + 1, budget);
}

/** The (old, new) text pairs of an edit call's arguments. */
function editPairs(args: Record<string, unknown>): [string, string][] {
  const pair = (o: Record<string, unknown>): [string, string] | undefined => {
    const a = o.oldText ?? o.old_string ?? o.old_str;
    const b = o.newText ?? o.new_string ?? o.new_str;
    return typeof a === 'string' && typeof b === 'string' ? [a, b] : undefined;
  };
  const out: [string, string][] = [];
  const one = pair(args);
  if (one) out.push(one);
  if (Array.isArray(args.edits))
    for (const e of args.edits.slice(0, 100)) if (isRecord(e)) out.push(...[pair(e)].filter((p): p is [string, string] => !!p));
  return out;
}

function hashText(a: string, b: string): number {
  let h = 0x811c9dc5;
  const s = `${a}\u0000`;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Whether `needle` occurs in `hay` at word boundaries ("a.ts" is not in "data.ts"). */
function containsTerm(hay: string, needle: string): boolean {
  if (needle.length < 3) return false;
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + 1)) {
    const before = !isWordCode(needle, 0) || !isWordCode(hay, i - 1) || hay[i - 1] === '/';
    const after = !isWordCode(needle, needle.length - 1) || !isWordCode(hay, i + needle.length);
    if (before && after) return true;
  }
  return false;
}

/** The first goal of a summary in the span (a branch left behind), or its first line. */
function goalOf(summary: string): string {
  const text = summary.length > 20_000 ? summary.slice(0, 20_000) : summary;
  const goal = parseSummary(text).goal[0];
  return clip(goal ?? firstLine(text.replace(/^The user explored[^\n]*\n(?:Summary of that exploration:?\n)?/i, '')), 200);
}

/** The results of an answer: the whole answer when short, else its sentences with numbers (or its first), and the output it points at. */
function resultsOf(answer: string, outputs: readonly string[]): string[] {
  const said = sentencesOf(answer, 80).filter((s) => !PADDING.test(s));
  if (!said.length) return [];
  const whole = said.join(' ');
  const out: string[] = [];
  if (whole.length <= 200) out.push(clip(whole, 200));
  else {
    const withNumbers = said.filter((s) => numbersOf(s).length > 0).slice(0, 3);
    // A lead-in ("Plan:", "This is tiny-calc, a library:") says less than what follows it.
    const first = said.find((s) => !s.endsWith(':')) ?? said[0];
    for (const s of withNumbers.length ? withNumbers : [first]) out.push(clip(s, 200));
  }
  if (outputs.length && POINTS_AT.test(whole.length > 2000 ? whole.slice(0, 2000) : whole)) {
    const o = clip(outputs[outputs.length - 1], 200);
    if (o && !out.includes(o)) out.push(o);
  }
  return out;
}

/** The choice of a sentence stating one with its reason ("I decided to use X instead of Y, because ..."), or null. */
function decisionOf(sentence: string): string | null {
  if (isQuestion(sentence)) return null;
  const r = REASON.exec(sentence);
  if (!r || r.index === 0) return null;
  const choice = sentence.slice(0, r.index);
  if (!CHOICE.test(choice) && !INTENT.test(choice)) return null;
  let end = choice.length;
  while (end > 0 && ' ,;:.–—-'.includes(choice[end - 1])) end--;
  return end >= 8 ? clip(choice.slice(0, end), 160) : null;
}

const statusOfStop = (t: Turn): TurnStatus | null => {
  if (t.answer !== null) return null;
  if (t.kind === 'bash' && t.assistant === 0) return null;
  if (t.lastStop === 'aborted') return 'aborted';
  if (t.lastStop === 'length') return 'cutOff';
  if (t.lastStop === 'error') return REFUSAL.test(t.lastError) ? 'refused' : 'failed';
  return 'open';
};

export function createFactReader(options: FactReaderOptions = {}): FactReader {
  const cwd = options.cwd;
  const numbers = new NumberSet();
  const constraints = new Map<string, ReadItem>();
  const decisions: ReadItem[] = [];
  const resultTurns: ReadItem[][] = [];
  const statuses: ReadStatus[] = [];
  const resolved: ReadResolved[] = [];
  const open = new Map<string, Failure[]>();
  const modified = new Map<string, number>();
  const failedWrites = new Map<string, number>();
  const testRuns = new Map<string, ReadTestRun>();
  const recent: { commands: ReadItem[]; paths: ReadItem[] }[] = [];
  let editedTo = new Set<number>();
  let calls = new Map<string, Call>();
  let revert: ReadItem | null = null;
  let turn: Turn | null = null;
  let pendingCustom: ReadItem | null = null;
  let lastOpen: ReadStatus | null = null;
  let lastRequest: FactReading['lastRequest'] = null;
  let seq = 0;
  let index = -1;
  let turns = 0;
  let socialTurns = 0;
  let work = 0;
  let finished = false;

  const sawRevert = (text: string, at: number) => {
    if (!revert && REVERT_WORDS.test(text.length > 100_000 ? text.slice(0, 100_000) : text)) revert = { text: clip(text, 160), at };
  };
  const familyKey = (tool: string, target: string | undefined) =>
    `${MODIFYING.has(tool) ? 'modify' : SHELL.has(tool) ? 'shell' : tool}\u0000${target === undefined ? '' : target}`;
  const resolve = (f: Failure, how: string, at: number) => {
    if (f.resolved) return;
    f.resolved = true;
    resolved.push({ error: f.error, what: f.what, at: f.at, how, resolvedAt: at });
    if (resolved.length > RESOLVED_ERRORS * 2) resolved.splice(0, resolved.length - RESOLVED_ERRORS);
  };
  const fail = (t: Turn, f: Failure) => {
    const list = open.get(f.key);
    if (list) list.push(f);
    else {
      if (open.size >= MAX_OPEN_KEYS) open.delete(open.keys().next().value as string);
      open.set(f.key, [f]);
    }
    if (t.failures.length < MAX_TURN_FAILURES) t.failures.push(f);
  };
  const succeed = (key: string, at: number) => {
    const list = open.get(key);
    if (!list) return;
    for (const f of list) resolve(f, 'a later call on the same target succeeded', at);
    open.delete(key);
  };

  /** `redirectedBy`: the next request turns the answer down ("Instead, ..."): what it proposed was left. */
  const close = (t: Turn, last: boolean, redirectedBy?: string) => {
    const status = statusOfStop(t);
    if (status && !(t.kind === 'none' && status === 'open')) {
      const s: ReadStatus = {
        status,
        subject: t.request || '(the work of a turn that began before the span)',
        detail: status === 'refused' || status === 'failed' ? t.lastError : '',
        at: status === 'open' ? (t.at >= 0 ? t.at : t.lastStopAt) : t.lastStopAt,
      };
      if (last && status === 'open') lastOpen = s;
      else {
        statuses.push(s);
        if (statuses.length > STATUSES * 2) statuses.splice(0, statuses.length - STATUSES);
      }
    }
    if (t.answer !== null) {
      // An answer that reports no failure ends the turn's failures.
      const reports = REPORTS_FAILURE.test(t.answer);
      if (!reports) for (const f of t.failures) resolve(f, "the turn's answer reports no failure", t.answerAt);
      // What the answer proposed and the next request turned down was left; a turn that did work keeps its results.
      if (redirectedBy !== undefined && !t.social) {
        statuses.push({
          status: 'abandoned',
          subject: t.request || clip(t.answer, 200),
          detail: `redirected: ${clip(redirectedBy, 80)}`,
          at: t.answerAt,
        });
        if (statuses.length > STATUSES * 2) statuses.splice(0, statuses.length - STATUSES);
      }
      if (!t.social && (redirectedBy === undefined || t.calls > 0)) {
        const r = resultsOf(t.answer, t.outputs).map((text) => ({ text, at: t.answerAt }));
        if (r.length) {
          resultTurns.push(r);
          if (resultTurns.length > RESULT_TURNS) resultTurns.shift();
        }
      }
    }
    recent.push({ commands: t.commands, paths: t.paths });
    if (recent.length > 2) recent.shift();
    if (t.kind !== 'none') lastRequest = { text: t.request, at: t.at, kind: t.kind, answered: status === null, social: t.social };
  };
  const start = (kind: Turn['kind'], request: string, at: number): Turn => {
    if (turn) close(turn, false, kind === 'user' && REDIRECTION.test(request) && PROPOSES.test(turn.answer ?? '') ? request : undefined);
    lastOpen = null;
    const social = kind === 'user' && isSocial(request);
    if (kind !== 'none') {
      turns++;
      if (social) socialTurns++;
    }
    turn = {
      seq: seq++,
      at,
      kind,
      calls: 0,
      request,
      social,
      answer: null,
      answerAt: -1,
      assistant: 0,
      lastStop: 'none',
      lastStopAt: at,
      lastError: '',
      modelFailure: null,
      failures: [],
      outputs: [],
      commands: [],
      paths: [],
    };
    return turn;
  };
  /**
   * A custom message starts a turn when an assistant reply follows it, unless it came while the turn was working
   * (after tool calls, before their answer): then the reply still answers the turn's request.
   */
  const flushCustom = (assistantFollows: boolean) => {
    const c = pendingCustom;
    pendingCustom = null;
    if (c && assistantFollows && !(turn && turn.lastStop === 'toolUse')) start('custom', c.text, c.at);
  };

  const addRecent = (list: ReadItem[], text: string, at: number) => {
    if (list.length >= 32) list.shift();
    list.push({ text, at });
  };

  const onAssistant = (m: Extract<AgentMessage, { role: 'assistant' }>, at: number) => {
    flushCustom(true);
    const t = turn ?? start('none', '', at);
    t.assistant++;
    const blocks = Array.isArray(m.content) ? m.content : [];
    let hasCalls = false;
    let text = '';
    for (const b of blocks) {
      if (!b || typeof b !== 'object') continue;
      if (b.type === 'text' && typeof b.text === 'string') {
        text += (text ? '\n' : '') + b.text;
        numbers.addAll(b.text);
        for (const s of sentencesOf(b.text, 60)) {
          const d = decisionOf(s);
          if (d) decisions.push({ text: d, at });
        }
        if (decisions.length > DECISIONS * 2) decisions.splice(0, decisions.length - DECISIONS);
      } else if (b.type === 'thinking' && typeof b.thinking === 'string') {
        numbers.addAll(b.thinking);
        sawRevert(b.thinking, at);
      } else if (b.type === 'toolCall') {
        hasCalls = true;
        work++;
        t.calls++;
        const args = isRecord(b.arguments) ? b.arguments : {};
        forEachArgValue(args, (s) => numbers.addAll(s));
        const tool = String(b.name ?? '').toLowerCase();
        const rawPath = argString(args, PATH_ARGS);
        const path = rawPath !== undefined ? detachedText(relativePath(rawPath, cwd).slice(0, 500)) : undefined;
        const rawTarget = path ?? argString(args, TARGET_ARGS);
        const target = rawTarget !== undefined ? detachedText(rawTarget.slice(0, 2000)) : undefined;
        if (SHELL.has(tool) && target && !revert && isRevertCommand(target)) revert = { text: clip(target, 160), at };
        if (MODIFYING.has(tool) && path) {
          for (const [before, after] of editPairs(args)) {
            if (!revert && before !== after && editedTo.has(hashText(path, before)))
              revert = { text: `an edit of ${path} puts back its earlier text`, at };
            if (editedTo.size >= MAX_EDIT_HASHES) editedTo = new Set();
            editedTo.add(hashText(path, after));
          }
        }
        const goal = `${target ?? ''} ${path ?? ''}`.slice(0, 600).toLowerCase();
        const call: Call = { tool, name: detachedText(String(b.name ?? '').slice(0, 100)), path, target, goal, turn: t };
        if (typeof b.id === 'string') calls.set(b.id, call);
      }
    }
    if (text) sawRevert(text, at);
    const stop = typeof m.stopReason === 'string' ? m.stopReason : 'stop';
    if (typeof m.errorMessage === 'string') numbers.addAll(m.errorMessage);
    if (stop === 'error') {
      t.lastError = clip(firstLine(typeof m.errorMessage === 'string' ? m.errorMessage : '') || 'no error message', 200);
      t.modelFailure = { error: t.lastError, at };
    } else if (stop !== 'aborted' && t.modelFailure) {
      resolved.push({ ...t.modelFailure, what: 'The model request', how: 'a later model request of the turn succeeded', resolvedAt: at });
      t.modelFailure = null;
    }
    t.lastStop = stop;
    t.lastStopAt = at;
    if (stop === 'stop' && !hasCalls && text.trim()) {
      t.answer = detachedText(text.length > 8000 ? text.slice(0, 8000) : text);
      t.answerAt = at;
    } else t.answer = null;
  };

  const onToolResult = (m: Extract<AgentMessage, { role: 'toolResult' }>, at: number) => {
    const text = textOfContent(m.content);
    numbers.addAll(text);
    const id = typeof m.toolCallId === 'string' ? m.toolCallId : '';
    const call = calls.get(id);
    if (!call) return;
    calls.delete(id);
    if (calls.size === 0) calls = new Map();
    const t = call.turn;
    const shell = SHELL.has(call.tool);
    const isError = m.isError === true;
    const noMatch = shell && isError && isNoMatchExit(call.target ?? '', reportedExitCode(text), text);
    const failed = isError && !noMatch;
    if (shell && call.target && isTestCommand(call.target)) {
      const outcome = testOutcome(call.target, text, failed);
      if (outcome) {
        const command = clip(call.target, 200);
        testRuns.delete(command);
        if (testRuns.size >= TEST_COMMANDS) testRuns.delete(testRuns.keys().next().value as string);
        testRuns.set(command, { command, passed: outcome.passed, evidence: clip(outcome.evidence, 200), at });
      }
    }
    const key = familyKey(call.tool, call.target);
    if (failed) {
      const what = `\`${call.name}\`${call.target ? ` on \`${clip(call.target, 100)}\`` : ''}`;
      fail(t, {
        error: clip(errorLineOf(text) || squash(text) || 'an error without a message', 200),
        what,
        key,
        target: call.target ?? '',
        at,
        turn: t.seq,
        resolved: false,
      });
      if (MODIFYING.has(call.tool) && call.path && !modified.has(call.path) && failedWrites.size < MAX_PATHS)
        failedWrites.set(call.path, at);
      return;
    }
    succeed(key, at);
    // A later successful call of the same turn that names a failed call's target reached its goal.
    for (const f of t.failures)
      if (!f.resolved && f.key !== key && containsTerm(call.goal, f.target.toLowerCase()))
        resolve(f, 'a later call reached the same goal', at);
    if (MODIFYING.has(call.tool) && call.path) {
      if (!modified.has(call.path) && modified.size < MAX_PATHS) modified.set(call.path, at);
      failedWrites.delete(call.path);
    }
    if (shell && call.target) addRecent(t.commands, clip(call.target, 300), at);
    else if (call.path) addRecent(t.paths, call.path, at);
    const out = text.trim();
    if (!isError && out && out.length <= 300) {
      t.outputs.push(clip(out, 300));
      if (t.outputs.length > 3) t.outputs.shift();
    }
  };

  const onBash = (m: Extract<AgentMessage, { role: 'bashExecution' }>, at: number) => {
    if (m.excludeFromContext) return;
    flushCustom(false);
    const command = typeof m.command === 'string' ? m.command : '';
    const output = typeof m.output === 'string' ? m.output : '';
    numbers.addAll(command);
    numbers.addAll(output);
    work++;
    const t = start('bash', clip(`$ ${command}`, 2000), at);
    if (!revert && isRevertCommand(command)) revert = { text: clip(command, 160), at };
    const exit = typeof m.exitCode === 'number' ? m.exitCode : null;
    const failed = !m.cancelled && exit !== null && exit !== 0 && !isNoMatchExit(command, exit, output);
    if (isTestCommand(command) && !m.cancelled) {
      const outcome = testOutcome(command, output, failed);
      if (outcome) {
        const c = clip(command, 200);
        testRuns.delete(c);
        testRuns.set(c, { command: c, passed: outcome.passed, evidence: clip(outcome.evidence, 200), at });
      }
    }
    const key = familyKey('bash', detachedText(command.trim().slice(0, 2000)));
    if (failed) {
      const lines = output.trim().split('\n');
      const lastLine = lines.length ? lines[lines.length - 1].trim() : '';
      fail(t, {
        error: clip(lastLine || `exit code ${exit}`, 200),
        what: `\`${clip(command, 100)}\` (run by the user) exited with code ${exit}`,
        key,
        target: command.trim().slice(0, 2000),
        at,
        turn: t.seq,
        resolved: false,
      });
    } else if (!m.cancelled) {
      succeed(key, at);
      addRecent(t.commands, clip(command.trim(), 300), at);
    }
  };

  const add = (m: AgentMessage, entryId?: string | null): void => {
    if (finished) throw new Error('the fact reading is finished');
    const at = ++index;
    // An id of digits only ("30517857") is a number a summary may name.
    if (typeof entryId === 'string' && entryId.length <= 32 && /^\d+$/.test(entryId)) numbers.addAll(entryId);
    if (!m || typeof m !== 'object') return;
    switch (m.role) {
      case 'user': {
        const text = textOfContent(m.content);
        numbers.addAll(text);
        const image = Array.isArray(m.content) && m.content.some(isImageBlock);
        flushCustom(false);
        if (!text.trim() && !image) break;
        start('user', clip(text, 2000), at);
        sawRevert(text, at);
        for (const c of constraintSentences(text)) {
          const item = { text: clip(c, 240), at };
          const k = item.text.toLowerCase();
          if (!constraints.has(k) && constraints.size < CONSTRAINTS) constraints.set(k, item);
        }
        break;
      }
      case 'custom': {
        const text = textOfContent(m.content);
        numbers.addAll(text);
        pendingCustom = text.trim() ? { text: clip(text, 2000), at } : null;
        break;
      }
      case 'bashExecution':
        onBash(m, at);
        break;
      case 'assistant':
        onAssistant(m, at);
        break;
      case 'toolResult':
        onToolResult(m, at);
        break;
      case 'branchSummary': {
        const summary = typeof m.summary === 'string' ? m.summary : '';
        numbers.addAll(summary);
        sawRevert(summary, at);
        flushCustom(false);
        if (turn) close(turn, false);
        turn = null;
        statuses.push({ status: 'abandoned', subject: goalOf(summary) || '(a branch left behind)', detail: 'a branch left behind', at });
        if (statuses.length > STATUSES * 2) statuses.splice(0, statuses.length - STATUSES);
        break;
      }
      case 'compactionSummary': {
        const summary = typeof m.summary === 'string' ? m.summary : '';
        numbers.addAll(summary);
        sawRevert(summary, at);
        break;
      }
      default:
        break;
    }
  };

  const finish = (): FactReading => {
    if (finished) throw new Error('the fact reading is finished');
    finished = true;
    flushCustom(false);
    if (turn) close(turn, true);
    const unresolved: Failure[] = [];
    for (const list of open.values()) for (const f of list) if (!f.resolved) unresolved.push(f);
    unresolved.sort((a, b) => a.at - b.at);
    const openErrors: ReadError[] = [];
    const openTexts = new Set<string>();
    for (let k = unresolved.length - 1; k >= 0 && openErrors.length < OPEN_ERRORS; k--) {
      const f = unresolved[k];
      if (openTexts.has(f.error)) continue;
      openTexts.add(f.error);
      openErrors.unshift({ error: f.error, what: f.what, at: f.at });
    }
    for (const f of unresolved) openTexts.add(f.error);
    const resolvedErrors: ReadResolved[] = [];
    const seen = new Set<string>();
    for (let k = resolved.length - 1; k >= 0 && resolvedErrors.length < RESOLVED_ERRORS; k--) {
      const r = resolved[k];
      if (seen.has(r.error) || openTexts.has(r.error)) continue;
      seen.add(r.error);
      resolvedErrors.unshift(r);
    }
    return {
      messages: index + 1,
      turns,
      socialTurns,
      work,
      constraints: [...constraints.values()],
      lastRequest,
      lastOpen,
      results: resultTurns.flat(),
      statuses: statuses.slice(-STATUSES),
      openErrors,
      resolvedErrors,
      decisions: decisions.slice(-DECISIONS),
      modified: [...modified].map(([text, at]) => ({ text, at })),
      failedWrites: [...failedWrites.keys()],
      recent,
      testRuns: [...testRuns.values()],
      revert,
      numbers,
    };
  };
  return { add, finish };
}

/** The fact reading of messages in hand. */
export function readFacts(messages: Iterable<AgentMessage>, options: FactReaderOptions = {}): FactReading {
  const reader = createFactReader(options);
  for (const m of messages) reader.add(m);
  return reader.finish();
}
