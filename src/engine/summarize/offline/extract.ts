import type { AgentMessage } from '../../session/types';
import { clip, code, firstLine, sentences, unique } from './text';
import { constraintSentences } from './userText';
import { isTextBlock, textOfContent } from '../../session/contentBlocks';
import { detachedText } from '../../text/detachedText';
import { decisionOf, userDecisionOf, workaroundOf } from './decisions';
import { exitAnswer, outputWithoutStatus, reportedExitCode } from './commandStatus';
import {
  argString,
  errorLine,
  MODIFYING_TOOLS,
  NO_TEXT_ERROR,
  NO_TEXT_OK,
  NONE,
  PATH_ARGS,
  sameTarget,
  SHELL_TOOLS,
  SHORT_RESULT_CHARS,
  TARGET_ARGS,
  type Call,
  type Extraction,
  type Problem,
  type Turn,
} from './extraction';
import { answerReports, changeFacts, lastOffer, postponeFixes, proposesOnly, sameGoal } from './turnJudgement';
export type { Decision } from './decisions';
export type { Call, Extraction, Problem, TriggerKind, Turn, TurnOutcome } from './extraction';
export { callPath, errorLine, isModifying, isShell, sameTarget } from './extraction';

/**
 * What the offline summarizer reads out of a span of messages, turn by turn:
 * the requests, what each turn changed and ran and answered, the errors that
 * no later step resolved, the user's constraints and the assistant's choices.
 * One pass over the messages (plus maps), linear in their size; what it
 * keeps of a call is its name, target and path and a short result (never
 * the call's arguments or a long output), so a 1 GB span can stream through.
 */

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

/** Most extension messages kept (the newest). */
const MAX_NOTES = 12;
/** Per turn: outputs an answer may point at, search locations, introduced identifiers, created files. */
const MAX_OUTPUTS = 4;
const MAX_FOUND = 10;
const MAX_INTRODUCED = 8;
/** A finished turn keeps a call's output only when it is this short (its turn's `outputs` keep what an answer points at). */
const KEPT_CALL_TEXT = 160;
/** A `file:line:` location at the start of a search output's line. */
const LOCATION = /^([\w@~.][\w@~./+-]{0,200}):(\d{1,7})(?::\d{1,7})?:(.*)$/;
export function createExtractor(options: ExtractOptions = {}): Extractor {
  const x: Extraction = {
    turns: [],
    constraints: [],
    decisions: [],
    problems: [],
    filesModified: [],
    embedded: [],
    embeddedKinds: [],
    notes: [],
    pending: [],
    messageCount: 0,
  };
  // Calls waiting for their result, by call id (answered ones leave: a 1 GB span has a few hundred thousand calls).
  // Made anew when it empties: a Map's table once in V8's old generation is rehashed there, and a set and a delete per
  // call would fill the old generation with dead tables.
  let byId = new Map<string, Call>();
  const keepAnswers = options.answers ?? true;
  const cwd = options.cwd;
  // A 1 GB span calls the same tools on the same files thousands of times: their names and paths are kept once.
  const strings = new Map<string, string>();
  const once = (text: string | undefined): string | undefined => {
    if (text === undefined) return undefined;
    const known = strings.get(text);
    if (known !== undefined) return known;
    strings.set(text, text);
    return text;
  };
  // Files the span read or changed so far (a write to one of them is not a creation).
  const touched = new Set<string>();
  // What a change call introduces, kept until its result says it succeeded.
  const changes = new Map<Call, string[]>();
  // The calls of the last assistant message that made any (what can still be pending at the end).
  let lastCalls: Call[] = [];
  let turn: Turn | null = null;
  // The open turn's failures with the call that failed (resolved by purpose when the turn closes).
  let turnFailures: { problem: Problem; call: Call | null }[] = [];
  let order = 0;
  const modelErrors: { problem: Problem; index: number }[] = [];
  let lastGoodAssistant = -1;
  // Unresolved failures by what would resolve them (tool family + target): each is resolved at most once.
  const failures = new Map<string, Problem[]>();
  const familyKey = (tool: string, target: string | undefined) =>
    `${MODIFYING_TOOLS.has(tool) ? 'modify' : SHELL_TOOLS.has(tool) ? 'shell' : tool}\u0000${sameTarget(target, cwd)}`;
  const fail = (key: string, p: Problem, call: Call | null) => {
    x.problems.push(p);
    turnFailures.push({ problem: p, call });
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
  /** A turn has ended when its last assistant message stopped without calling tools (or it was the user's own command). */
  const ended = (t: Turn | null) => !t || t.trigger.kind === 'bash' || (t.lastStop !== 'none' && t.lastStop !== 'toolUse');
  const open = (trigger: Turn['trigger'], requestIndex = -1): Turn => {
    if (turn) close(turn, false);
    const t: Turn = {
      request: trigger.kind === 'user' ? trigger.text : null,
      trigger,
      requestIndex,
      calls: [],
      userRuns: [],
      answer: null,
      lastStop: 'none',
      outcome: 'open',
      outputs: NONE,
      found: NONE,
      introduced: NONE,
      created: NONE,
    };
    x.turns.push(t);
    turnFailures = [];
    return t;
  };
  const add1 = (list: string[], value: string, max: number): string[] => {
    const l = list === NONE ? [] : list;
    if (!l.includes(value)) l.push(value);
    if (l.length > max) l.shift();
    return l;
  };
  const outcomeOf = (t: Turn, last: boolean): Turn['outcome'] => {
    if (t.answer !== null) return 'answered';
    if (t.lastStop === 'aborted') return 'aborted';
    if (t.lastStop === 'length') return 'length';
    if (t.lastStop === 'error') return /content[_ -]?filter|content policy|safety|refus/i.test(t.errorMessage ?? '') ? 'refused' : 'error';
    return last || t.trigger.kind !== 'bash' ? 'open' : 'answered';
  };
  // A finished turn's lists in arrays of their size (a growing array keeps room for more); its failures judged by purpose.
  const close = (t: Turn, last: boolean) => {
    t.outcome = t.trigger.kind === 'bash' && !t.calls.length ? 'answered' : outcomeOf(t, last);
    if (proposesOnly(t)) t.proposal = true;
    for (const { problem, call } of turnFailures) {
      if (problem.resolved) continue;
      const after = call ? t.calls.filter((c) => c.order > call.order && c.result && !c.result.isError) : [];
      if (call && after.some((c) => sameGoal(call, c, cwd))) problem.resolved = true;
      else if (t.outcome === 'answered' && t.answer !== null && !answerReports(t.answer, problem, call?.target, after.length > 0))
        problem.resolved = true;
    }
    turnFailures = [];
    if (last) return;
    t.calls = t.calls.length ? t.calls.slice() : NONE;
    t.userRuns = t.userRuns.length ? t.userRuns.slice() : NONE;
    for (const c of t.calls)
      if (c.result && c.result.text.length > KEPT_CALL_TEXT) c.result = c.result.isError ? NO_TEXT_ERROR : NO_TEXT_OK;
  };
  const keepOutput = (t: Turn, command: string, output: string) => {
    // Pi's read tool ends a partial read with how to go on: a hint to the model, not the file.
    const text = output.replace(/\n*\[\d+ more lines in file\. Use offset=\d+ to continue\.\]\s*$/, '').trim();
    if (!text) return;
    let found = t.found;
    for (const line of text.split('\n', 200)) {
      const m = LOCATION.exec(line.trim());
      if (m && m[2] !== '0')
        found = add1(found, detachedText(`${m[1]}:${m[2]}${m[3].trim() ? ` ${clip(m[3].trim(), 60)}` : ''}`), MAX_FOUND);
    }
    t.found = found;
    if (text.length <= SHORT_RESULT_CHARS) t.outputs = add1(t.outputs, detachedText(`${clip(command, 80)}\u0000${text}`), MAX_OUTPUTS);
  };

  let index = -1;
  let finished = false;
  let pendingCustom: (Turn['trigger'] & { index: number }) | null = null;
  const add = (m: AgentMessage): void => {
    if (finished) throw new Error('the extraction is finished');
    index++;
    if (m.role !== 'custom' && m.role !== 'assistant') pendingCustom = null;

    switch (m.role) {
      case 'user': {
        const text = textOfContent(m.content);
        if (!text.trim()) break;
        const kept = text.length > 20_000 ? detachedText(text.slice(0, 20_000)) : text;
        const previous = turn;
        turn = open({ kind: 'user', text: kept }, index);
        x.constraints.push(...constraintSentences(kept).map((s) => detachedText(clip(s, 240))));
        const d = userDecisionOf(kept, previous?.answer ? lastOffer(previous.answer) : null);
        if (d) {
          const { declinesOffer, ...decision } = d;
          x.decisions.push({ ...decision, messageIndex: index });
          if (previous?.proposal) previous.redirectedBy = d.title;
          if (declinesOffer && previous) postponeFixes(x.problems, previous, d.title);
        }
        break;
      }
      case 'custom': {
        const text = textOfContent(m.content as Parameters<typeof textOfContent>[0]);
        if (!text.trim()) break;
        x.notes.push({ customType: String(m.customType ?? 'extension'), text: detachedText(clip(text, 300)) });
        if (x.notes.length > MAX_NOTES) x.notes.shift();
        // A message from an extension that the model answers starts its own turn (its answer is not the user's request's):
        // opened when the answer comes, so a message nobody answered does not hide the turn before it.
        if (ended(turn))
          pendingCustom = { kind: 'custom', text: detachedText(clip(text, 300)), customType: String(m.customType ?? ''), index };
        break;
      }
      case 'bashExecution': {
        if (m.excludeFromContext) break;
        if (ended(turn)) turn = open({ kind: 'bash', text: detachedText(clip(m.command, 300)) }, index);
        const t = turn!;
        const output = typeof m.output === 'string' ? m.output : '';
        const kept = output.trim().length > SHORT_RESULT_CHARS ? '' : output;
        t.userRuns.push({ command: m.command, exitCode: m.exitCode, output: kept, cancelled: !!m.cancelled });
        const answer = exitAnswer(m.command, m.exitCode);
        if (!m.cancelled && typeof m.exitCode === 'number' && m.exitCode !== 0 && !answer) {
          const lines = output
            .trim()
            .split('\n')
            .filter((l) => l.trim());
          fail(
            familyKey('bash', m.command.trim()),
            {
              what: `${code(clip(m.command, 100))} (run by the user) exited with code ${m.exitCode}`,
              error: lines.length ? detachedText(clip(lines[lines.length - 1], 200)) : `exit code ${m.exitCode}`,
              resolved: false,
              order: order++,
              messageIndex: index,
            },
            null,
          );
        } else if (!m.cancelled) {
          // A command that now succeeds resolves its earlier failures.
          succeed(familyKey('bash', m.command.trim()));
          keepOutput(t, m.command, output);
        }
        break;
      }
      case 'branchSummary':
      case 'compactionSummary':
        if (typeof m.summary === 'string') {
          x.embedded.push(m.summary);
          x.embeddedKinds.push(m.role === 'branchSummary' ? 'branch' : 'compaction');
        }
        break;
      case 'assistant': {
        if (pendingCustom) {
          const { index: at, ...trigger } = pendingCustom;
          pendingCustom = null;
          turn = open(trigger, at);
        }
        turn ??= open({ kind: 'outside', text: '' });
        const t = turn;
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
            const call: Call = { name, path, tool, target, result: undefined, title: undefined, order: order++, messageIndex: index };
            t.calls.push(call);
            if (lastCalls.length && lastCalls[0].messageIndex !== index) lastCalls = [];
            lastCalls.push(call);
            if (typeof b.id === 'string') byId.set(b.id, call);
            if (path && MODIFYING_TOOLS.has(tool)) changes.set(call, changeFacts(tool, path, b.arguments, cwd));
          } else if (b.type === 'text' && typeof b.text === 'string') {
            for (const s of sentences(b.text, 60)) {
              const failed = turnFailures.map(({ problem, call }) => ({ ...problem, name: call?.name, target: call?.target }));
              const d = decisionOf(s) ?? (failed.length ? workaroundOf(s, failed) : null);
              if (d) x.decisions.push({ ...d, messageIndex: index });
            }
          }
        }
        t.lastStop = m.stopReason ?? 'stop';
        const reply = blocks
          .filter(isTextBlock)
          .map((b) => b.text)
          .join('\n');
        if (m.stopReason === 'error') {
          const problem: Problem = {
            what: 'The model request failed',
            error: m.errorMessage ? errorLine(m.errorMessage) : 'no error message',
            resolved: false,
            order: order++,
            messageIndex: index,
          };
          t.errorMessage = problem.error;
          x.problems.push(problem);
          modelErrors.push({ problem, index });
        } else if (m.stopReason !== 'aborted') {
          lastGoodAssistant = index;
          if (t.errorMessage && !t.retried) t.retried = t.errorMessage;
        }
        if ((m.stopReason === 'aborted' || m.stopReason === 'length' || m.stopReason === 'error') && reply.trim())
          t.partial = detachedText(clip(reply, 160));
        if ((m.stopReason === 'stop' || m.stopReason === undefined) && !hasCalls && reply.trim()) t.answer = keepAnswers ? reply : '';
        else if (hasCalls) t.answer = null;
        break;
      }
      case 'toolResult': {
        const call = byId.get(m.toolCallId);
        // The first result answers a call (a repeated one is not read again).
        if (call && byId.delete(m.toolCallId) && byId.size === 0) byId = new Map();
        if (!call) break;
        const t = turn!;
        let text = textOfContent(m.content);
        let isError = !!m.isError;
        // `grep` exiting 1 found nothing; `diff` exiting 1 found differences: answers, not failures.
        if (isError && SHELL_TOOLS.has(call.tool) && call.target) {
          const answer = exitAnswer(call.target, reportedExitCode(text));
          if (answer) {
            isError = false;
            const out = outputWithoutStatus(text);
            // `grep -c` prints a zero count per file when nothing matches.
            const zeros = out.split('\n').every((l) => /:0\s*$/.test(l) || !l.trim());
            text = !out ? `(${answer})` : zeros ? `(${answer}: 0 in every file)` : out;
          }
        }
        const kept = text.trim().length > SHORT_RESULT_CHARS ? '' : text;
        call.result = kept ? { isError, text: kept } : isError ? NO_TEXT_ERROR : NO_TEXT_OK;
        const key = familyKey(call.tool, call.target);
        const change = changes.get(call);
        if (change) changes.delete(call);
        if (isError) {
          const what = `${code(call.name)}${call.target ? ` on ${code(clip(call.target, 100))}` : ''} failed`;
          fail(key, { what, error: errorLine(text), resolved: false, order: call.order, messageIndex: index }, call);
          break;
        }
        // A later success on the same target resolves earlier failures there (an edit after a failed edit, a command that now passes).
        succeed(key);
        const rel = call.path ? sameTarget(call.path, cwd) : '';
        if (rel && MODIFYING_TOOLS.has(call.tool)) {
          // A file is modified only by a change that succeeded.
          x.filesModified.push(rel);
          if (call.tool === 'write' && !touched.has(rel)) t.created = add1(t.created, rel, MAX_INTRODUCED);
          for (const v of change ?? []) t.introduced = add1(t.introduced, v, MAX_INTRODUCED);
        }
        if (rel) touched.add(rel);
        if (call.tool === 'read') {
          const first = firstLine(text);
          if (/^#{1,6} \S/.test(first) && first.length <= 80) call.title = detachedText(first.replace(/^#+\s*/, ''));
        }
        if (SHELL_TOOLS.has(call.tool) && call.target) keepOutput(t, call.target, text);
        else if (call.tool === 'grep' || call.tool === 'find' || call.tool === 'search' || call.tool === 'ls' || call.tool === 'read')
          keepOutput(t, `${call.name} ${call.target ?? ''}`.trim(), text);
        break;
      }
      default:
        break;
    }
  };
  const finish = (): Extraction => {
    if (finished) throw new Error('the extraction is finished');
    finished = true;
    if (turn) close(turn, true);
    x.messageCount = index + 1;
    // A failed model request is resolved by any later assistant message that did not fail.
    for (const e of modelErrors) if (lastGoodAssistant > e.index) e.problem.resolved = true;
    // Calls of the last assistant message still waiting for a result.
    const lastIndex = lastCalls.length ? lastCalls[0].messageIndex : -1;
    x.pending = lastCalls.filter((c) => !c.result && lastIndex >= lastGoodAssistant);
    x.constraints = unique(x.constraints, (c) => c.toLowerCase());
    x.decisions = unique(x.decisions, (d) => d.title.toLowerCase());
    x.filesModified = unique(x.filesModified);
    return x;
  };
  return { add, finish };
}
