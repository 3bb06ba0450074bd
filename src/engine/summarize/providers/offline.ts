import type { AgentMessage, AssistantMessage, ToolCallBlock, UserContentBlock } from '../../session/types';
import { emptySummary, formatSummary, parseSummary, type ParsedSummary, type SummaryDecision } from '../parseSummary';
import { BRANCH_SUMMARY_PREAMBLE, TURN_PREFIX_HEADINGS } from '../prompts';
import { emptyUsage, throwIfAborted, type Summarizer, type SummaryRequest, type SummaryResult } from '../summarizer';
import { FALLBACK_MODEL_INFO } from './models';

/**
 * A deterministic, extractive summarizer: no network, no key, no model. It
 * fills the spec 7 sections from the structure of the messages (requests,
 * tool calls and their results, errors, the assistant's stated intentions).
 * The same request always gives byte-identical text. Custom instructions
 * cannot steer it and are ignored.
 */

export interface OfflineSummarizerOptions {
  contextWindow?: number;
  maxOutputTokens?: number;
}

export const OFFLINE_MODEL = 'extractive-v1';

// ---------------------------------------------------------------------------
// Text helpers

function contentText(content: string | UserContentBlock[] | undefined, sep = '\n'): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b) => b && b.type === 'text' && typeof (b as { text?: unknown }).text === 'string')
    .map((b) => (b as { text: string }).text)
    .join(sep);
}

function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Shortens to `max` characters at a word boundary, marking the cut with an ellipsis. */
function clip(text: string, max: number): string {
  const t = squash(text);
  if (t.length <= max) return t;
  const cut = t.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, '')}…`;
}

/** Sentences of a text (prose split on . ! ? and line breaks; code fences dropped). */
function sentences(text: string): string[] {
  const noCode = text.replace(/```[\s\S]*?```/g, ' ');
  return noCode
    .split(/\n+|(?<=[.!?])\s+(?=[A-Z`"'(\[])/)
    .map((s) => squash(s.replace(/^[-*+•>\s]+|^\d+[.)]\s+/, '')))
    .filter((s) => s.length >= 3);
}

function firstSentence(text: string): string {
  return sentences(text)[0] ?? squash(text);
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l) ?? ''
  );
}

function code(text: string): string {
  const t = text.replace(/`/g, "'");
  return `\`${t}\``;
}

function unique<T>(items: readonly T[], key: (t: T) => string = (t) => String(t)): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const item of items) {
    const k = key(item);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(item);
  }
  return out;
}

/** The last `n` items (the newest matter most). */
function latest<T>(items: readonly T[], n: number): T[] {
  return n <= 0 ? [] : items.slice(Math.max(0, items.length - n));
}

// ---------------------------------------------------------------------------
// Reading the messages

interface Call {
  block: ToolCallBlock;
  request: string | null;
  result?: { isError: boolean; text: string };
  order: number;
  /** Index of the assistant message that made the call. */
  messageIndex: number;
}

interface Extraction {
  requests: string[];
  constraints: string[];
  done: string[];
  inProgress: string[];
  blocked: string[];
  decisions: SummaryDecision[];
  nextSteps: string[];
  filesRead: string[];
  filesModified: string[];
  commands: string[];
  names: string[];
  errors: string[];
  /** Summaries found inside the span (compaction / branch summary messages). */
  embedded: string[];
  finishedTurn: boolean;
  lastRequest: string | null;
  lastTurnOpen: boolean;
}

const CONSTRAINT_CUES =
  /\b(must|mustn't|must not|don't|do not|never|always|should|shouldn't|prefer|preferably|please use|make sure|ensure|without|avoid|keep|need|needs|required?|only)\b/i;
const DECISION_CUES = /\b(I'll|I will|I'm going to|let's|let me|we'll|we will|decided|decide|instead|rather than|chose|choose|opted|going with|switch(?:ed|ing)? to|plan is)\b/i;
const REASON_SPLIT = /\s+(?:because|since|so that|to avoid|in order to)\s+|;\s+|\s+[–—]\s+/i;

const PATH_ARGS = ['path', 'file_path', 'filePath', 'file', 'filename'];
const MODIFYING_TOOLS = new Set(['write', 'edit', 'multiedit', 'multi_edit', 'create', 'apply_patch', 'str_replace', 'patch']);

function argString(args: Record<string, unknown> | undefined, keys: readonly string[]): string | undefined {
  if (!args || typeof args !== 'object') return undefined;
  for (const k of keys) if (typeof args[k] === 'string' && (args[k] as string).trim()) return (args[k] as string).trim();
  return undefined;
}

function callTarget(block: ToolCallBlock): string | undefined {
  const args = block.arguments;
  return argString(args, PATH_ARGS) ?? argString(args, ['command', 'cmd', 'pattern', 'query', 'url', 'glob']) ?? undefined;
}

function describeCall(call: Call): string {
  const { name, arguments: args } = call.block;
  const path = argString(args, PATH_ARGS);
  const lower = name.toLowerCase();
  if (lower === 'bash' || lower === 'shell' || lower === 'exec') {
    const cmd = argString(args, ['command', 'cmd']) ?? '';
    let text = `Ran ${code(clip(cmd, 100))}`;
    const out = call.result?.text.trim() ?? '';
    const lines = out.split('\n').map((l) => l.trim()).filter(Boolean);
    if (out && lines.length <= 3 && out.length <= 100) text += ` (output: ${lines.join('; ')})`;
    return text;
  }
  if (lower === 'read' && path) return `Read ${code(path)}`;
  if (lower === 'write' && path) return `Wrote ${code(path)}`;
  if (lower === 'edit' && path) return `Edited ${code(path)}`;
  const target = callTarget(call.block);
  return target ? `Used ${code(name)} on ${code(clip(target, 80))}` : `Used ${code(name)}`;
}

function errorText(text: string): string {
  return clip(firstLine(text) || text, 200);
}

function backticked(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/`([^`\n]{1,80})`/g)) {
    const v = m[1].trim();
    if (v && !/\s{2,}/.test(v)) out.push(v);
  }
  return out;
}

function extract(messages: readonly AgentMessage[]): Extraction {
  const x: Extraction = {
    requests: [],
    constraints: [],
    done: [],
    inProgress: [],
    blocked: [],
    decisions: [],
    nextSteps: [],
    filesRead: [],
    filesModified: [],
    commands: [],
    names: [],
    errors: [],
    embedded: [],
    finishedTurn: false,
    lastRequest: null,
    lastTurnOpen: false,
  };
  const calls: Call[] = [];
  const byId = new Map<string, Call>();
  let request: string | null = null;
  let lastAssistant: AssistantMessage | null = null;
  let lastAssistantIndex = -1;
  let lastRequestIndex = -1;
  let order = 0;
  const doneItems: { text: string; order: number }[] = [];

  for (let index = 0; index < messages.length; index++) {
    const m = messages[index];
    switch (m.role) {
      case 'user': {
        const text = contentText(m.content);
        if (!text.trim()) break;
        request = clip(text, 240);
        x.requests.push(request);
        lastRequestIndex = index;
        for (const s of sentences(text)) if (CONSTRAINT_CUES.test(s)) x.constraints.push(clip(s, 200));
        x.names.push(...backticked(text));
        break;
      }
      case 'bashExecution': {
        if (m.excludeFromContext) break;
        x.commands.push(clip(m.command, 120));
        if (!m.cancelled && typeof m.exitCode === 'number' && m.exitCode !== 0) {
          const out = m.output.trim().split('\n').filter((l) => l.trim());
          const last = out.length ? `: ${clip(out[out.length - 1], 160)}` : '';
          x.blocked.push(`${code(clip(m.command, 100))} (run by the user) exited with code ${m.exitCode}${last}`);
          if (out.length) x.errors.push(clip(out[out.length - 1], 200));
        } else if (!m.cancelled) {
          doneItems.push({ text: `User ran ${code(clip(m.command, 100))}`, order: order++ });
        }
        break;
      }
      case 'branchSummary':
      case 'compactionSummary':
        x.embedded.push(m.summary);
        break;
      case 'assistant': {
        lastAssistant = m;
        lastAssistantIndex = index;
        const blocks = Array.isArray(m.content) ? m.content : [];
        for (const b of blocks) {
          if (!b || typeof b !== 'object') continue;
          if (b.type === 'toolCall') {
            const call: Call = { block: b, request, order: order++, messageIndex: index };
            calls.push(call);
            if (typeof b.id === 'string') byId.set(b.id, call);
            const path = argString(b.arguments, PATH_ARGS);
            const lower = String(b.name).toLowerCase();
            if (path) (MODIFYING_TOOLS.has(lower) ? x.filesModified : x.filesRead).push(path);
            if (lower === 'bash' || lower === 'shell' || lower === 'exec') {
              const cmd = argString(b.arguments, ['command', 'cmd']);
              if (cmd) x.commands.push(clip(cmd, 120));
            }
          } else if (b.type === 'text' && typeof b.text === 'string') {
            x.names.push(...backticked(b.text));
            for (const s of sentences(b.text)) {
              if (!DECISION_CUES.test(s)) continue;
              const [title, ...why] = s.split(REASON_SPLIT);
              const rationale = why.length ? clip(why.join('; '), 200) : request ? `while working on "${clip(request, 100)}"` : '';
              x.decisions.push({ title: clip(title.replace(/[.:;,]+$/, ''), 160), rationale });
            }
          }
        }
        if (m.stopReason === 'error') {
          const msg = m.errorMessage ? errorText(m.errorMessage) : 'the model request failed';
          x.errors.push(msg);
          x.blocked.push(`Model request failed: ${msg}`);
        }
        const reply = blocks.filter((b) => b && b.type === 'text').map((b) => (b as { text: string }).text).join('\n');
        if ((m.stopReason === 'stop' || m.stopReason === undefined) && !blocks.some((b) => b && b.type === 'toolCall') && reply.trim()) {
          x.finishedTurn = true;
          const what = request ? `Answered "${clip(request, 100)}"` : 'Answered';
          doneItems.push({ text: `${what}: ${clip(firstSentence(reply), 160).replace(/[:;,]$/, '')}`, order: order++ });
        }
        break;
      }
      case 'toolResult': {
        const call = byId.get(m.toolCallId);
        const text = contentText(m.content);
        if (call) call.result = { isError: !!m.isError, text };
        if (m.isError) x.errors.push(errorText(text));
        break;
      }
      case 'custom':
        // Extension messages are context, not requests: only their exact names are kept.
        x.names.push(...backticked(contentText(m.content)));
        break;
      case 'system':
        break;
    }
  }

  // Done: completed calls whose result was not an error. Blocked: failed calls (marked when a later call on the same target succeeded).
  for (const call of calls) {
    // Branch summaries leave tool results out (the calls carry them): a call the assistant moved on from counts as done.
    const movedOn = !call.result && call.messageIndex < lastAssistantIndex;
    if ((call.result && !call.result.isError) || movedOn) doneItems.push({ text: describeCall(call), order: call.order });
    if (call.result?.isError) {
      const target = callTarget(call.block);
      const later = calls.some(
        (c) => c.order > call.order && c.block.name === call.block.name && callTarget(c.block) === target && c.result && !c.result.isError,
      );
      // The "resolved" mark goes before the error text, so that shortening the item never loses it.
      const what = `${code(call.block.name)}${target ? ` on ${code(clip(target, 80))}` : ''} failed${later ? ' (resolved later: a retry succeeded)' : ''}`;
      x.blocked.push(`${what}: ${errorText(call.result.text)}`);
    }
  }
  x.done = unique(doneItems.sort((a, b) => a.order - b.order).map((d) => d.text));

  // In progress: calls still waiting for a result, and a last turn that did not end in a reply.
  for (const call of calls) {
    if (call.result || call.messageIndex < lastAssistantIndex) continue;
    const target = callTarget(call.block);
    x.inProgress.push(`${code(call.block.name)}${target ? ` on ${code(clip(target, 80))}` : ''} (started, no result yet)`);
  }
  const last = lastAssistant as AssistantMessage | null;
  const endedWithReply =
    last !== null &&
    lastAssistantIndex > lastRequestIndex &&
    (last.stopReason === 'stop' || last.stopReason === undefined) &&
    !(last.content ?? []).some((b) => b && b.type === 'toolCall');
  x.lastRequest = request;
  x.lastTurnOpen = request !== null && !endedWithReply;
  if (x.lastTurnOpen && request) {
    let item = `Working on "${clip(request, 160)}"`;
    if (last && lastAssistantIndex > lastRequestIndex) {
      if (last.stopReason === 'aborted') item += ' (interrupted by the user)';
      else if (last.stopReason === 'length') item += ' (the last answer was cut off)';
      else if (last.stopReason === 'error') item += ' (the last model request failed)';
    } else if (lastAssistantIndex < lastRequestIndex) item += ' (no answer yet)';
    x.inProgress.push(item);
  }
  x.blocked = unique(x.blocked);
  x.errors = unique(x.errors);
  x.constraints = unique(x.constraints);
  x.decisions = unique(x.decisions, (d) => d.title);
  x.names = unique(x.names.filter((n) => n.length <= 60));
  x.filesRead = unique(x.filesRead);
  x.filesModified = unique(x.filesModified);
  x.commands = unique(x.commands);
  return x;
}

// ---------------------------------------------------------------------------
// Building the summary

interface Caps {
  goal: number;
  constraints: number;
  done: number;
  inProgress: number;
  blocked: number;
  decisions: number;
  nextSteps: number;
  list: number;
  errors: number;
  item: number;
}

const FULL_CAPS: Caps = { goal: 10, constraints: 15, done: 40, inProgress: 10, blocked: 12, decisions: 15, nextSteps: 8, list: 30, errors: 8, item: 400 };

const CONTEXT_LABELS = {
  modified: 'Modified files:',
  read: 'Files read:',
  commands: 'Commands run:',
  names: 'Names mentioned:',
  error: 'Error seen:',
} as const;

function listItem(label: string, values: readonly string[]): string {
  return `${label} ${values.map(code).join(', ')}`;
}

/** The backticked values of a "Label: `a`, `b`" item. */
function listValues(item: string): string[] {
  return backticked(item);
}

/** Merges an earlier summary (previous checkpoint or a summary inside the span) into `into`. */
function absorb(into: ParsedSummary, text: string): void {
  const prev = parseSummary(text);
  into.goal.push(...prev.goal);
  into.constraints.push(...prev.constraints);
  into.done.push(...prev.done);
  into.inProgress.push(...prev.inProgress);
  // A problem an earlier summary recorded as resolved does not block anything any more.
  into.blocked.push(...prev.blocked.filter((b) => !/\(resolved\b/i.test(b)));
  into.decisions.push(...prev.decisions);
  into.nextSteps.push(...prev.nextSteps);
  into.criticalContext.push(...prev.criticalContext);
  if (prev.preamble && prev.preamble.trim() !== BRANCH_SUMMARY_PREAMBLE && !prev.goal.length && !prev.done.length) {
    into.criticalContext.push(`Earlier notes: ${clip(prev.preamble, 300)}`);
  }
  for (const u of prev.unknownSections) if (!into.unknownSections.some((v) => v.heading === u.heading)) into.unknownSections.push(u);
}

function mergeContext(earlier: readonly string[], x: Extraction, caps: Caps): string[] {
  const lists: Record<keyof typeof CONTEXT_LABELS, string[]> = { modified: [], read: [], commands: [], names: [], error: [] };
  const other: string[] = [];
  for (const item of earlier) {
    const key = (Object.keys(CONTEXT_LABELS) as (keyof typeof CONTEXT_LABELS)[]).find((k) => item.startsWith(CONTEXT_LABELS[k]));
    if (!key) other.push(item);
    else if (key === 'error') lists.error.push(item.slice(CONTEXT_LABELS.error.length).trim());
    else lists[key].push(...listValues(item));
  }
  lists.modified.push(...x.filesModified);
  lists.read.push(...x.filesRead);
  lists.commands.push(...x.commands);
  lists.names.push(...x.names);
  lists.error.push(...x.errors);
  const modified = unique(lists.modified);
  const read = unique(lists.read).filter((f) => !modified.includes(f));
  const out = [...unique(other)];
  if (modified.length) out.push(listItem(CONTEXT_LABELS.modified, latest(modified, caps.list)));
  if (read.length) out.push(listItem(CONTEXT_LABELS.read, latest(read, caps.list)));
  const commands = unique(lists.commands);
  if (commands.length) out.push(`${CONTEXT_LABELS.commands} ${latest(commands, Math.min(caps.list, 10)).map(code).join('; ')}`);
  const names = unique(lists.names).filter((n) => !modified.includes(n) && !read.includes(n) && !commands.includes(n));
  if (names.length) out.push(listItem(CONTEXT_LABELS.names, latest(names, Math.min(caps.list, 25))));
  for (const e of latest(unique(lists.error), caps.errors)) out.push(`${CONTEXT_LABELS.error} ${e}`);
  return out;
}

function build(request: SummaryRequest, caps: Caps): string {
  const x = extract(request.messages);
  const seed = emptySummary();
  for (const s of x.embedded) absorb(seed, s);
  if (request.kind === 'update' && request.previousSummary) absorb(seed, request.previousSummary);
  const cut = (items: readonly string[]) => items.map((i) => clip(i, caps.item));

  if (request.kind === 'turnPrefix') return buildTurnPrefix(x, caps);

  const s = emptySummary();
  // Goal: the user's requests (the first ones frame the work, the latest steer it).
  const goals = unique([...seed.goal, ...x.requests]);
  const firstGoals = Math.floor(caps.goal / 3);
  s.goal = goals.length > caps.goal ? [...goals.slice(0, firstGoals), ...latest(goals, caps.goal - firstGoals)] : goals;
  s.goal = cut(unique(s.goal));
  s.constraints = cut(latest(unique([...seed.constraints, ...x.constraints]), caps.constraints));

  // Earlier in-progress work counts as done once a later turn was finished.
  const carriedInProgress = x.finishedTurn ? [] : seed.inProgress;
  const movedToDone = x.finishedTurn ? seed.inProgress : [];
  s.done = cut(latest(unique([...seed.done, ...movedToDone, ...x.done]), caps.done));
  s.inProgress = cut(latest(unique([...carriedInProgress, ...x.inProgress]), caps.inProgress));
  s.blocked = cut(latest(unique([...seed.blocked, ...x.blocked]), caps.blocked));
  s.decisions = latest(
    unique([...seed.decisions, ...x.decisions], (d) => d.title),
    caps.decisions,
  ).map((d) => ({ title: clip(d.title, Math.min(caps.item, 160)), rationale: clip(d.rationale, caps.item) }));

  // Next steps: the latest request first, then open work, then unresolved problems.
  const steps: string[] = [];
  if (x.lastRequest) {
    steps.push(
      x.lastTurnOpen
        ? `Finish the latest request: "${clip(x.lastRequest, 200)}"`
        : `Check with the user that the latest request is settled: "${clip(x.lastRequest, 200)}", then take the next instruction`,
    );
  } else {
    steps.push(...seed.nextSteps);
  }
  for (const item of s.inProgress) if (!item.startsWith('Working on')) steps.push(`Complete: ${item}`);
  for (const b of s.blocked) if (!/\(resolved\b/i.test(b)) steps.push(`Resolve: ${b}`);
  if (!steps.length) steps.push('Wait for the next instruction from the user');
  s.nextSteps = cut(unique(steps).slice(0, caps.nextSteps));

  if (request.kind !== 'branch') s.criticalContext = cut(mergeContext(seed.criticalContext, x, caps));
  s.unknownSections = seed.unknownSections;
  return formatSummary(s, { criticalContext: request.kind !== 'branch', fileLists: false });
}

function buildTurnPrefix(x: Extraction, caps: Caps): string {
  const out: string[] = [TURN_PREFIX_HEADINGS.request];
  out.push(x.requests.length ? clip(x.requests[0], caps.item) : '(the request is not part of this excerpt)');
  out.push('', TURN_PREFIX_HEADINGS.progress);
  const progress = [
    ...latest(x.done, caps.done).map((d) => `- [x] ${clip(d, caps.item)}`),
    ...latest(x.inProgress, caps.inProgress).map((d) => `- [ ] ${clip(d, caps.item)}`),
    ...latest(x.blocked, caps.blocked).map((b) => `- Problem: ${clip(b, caps.item)}`),
  ];
  out.push(...(progress.length ? progress : ['(none)']));
  out.push('', TURN_PREFIX_HEADINGS.needed);
  const needed = mergeContext([], x, caps).map((c) => `- ${clip(c, caps.item)}`);
  const decisions = latest(x.decisions, Math.min(caps.decisions, 5)).map((d) => `- Intended: ${clip(d.title, caps.item)}`);
  out.push(...(needed.length || decisions.length ? [...needed, ...decisions] : ['(none)']));
  return out.join('\n');
}

/** Smaller caps, for summaries that would not fit the output budget. */
function shrink(caps: Caps): Caps {
  const half = (n: number) => Math.max(1, Math.floor(n / 2));
  return {
    goal: half(caps.goal),
    constraints: half(caps.constraints),
    done: half(caps.done),
    inProgress: half(caps.inProgress),
    blocked: half(caps.blocked),
    decisions: half(caps.decisions),
    nextSteps: half(caps.nextSteps),
    list: half(caps.list),
    errors: half(caps.errors),
    item: Math.max(60, Math.floor(caps.item * 0.75)),
  };
}

/** The offline summary text for a request (pure and deterministic). */
export function offlineSummaryText(request: SummaryRequest): string {
  const budgetChars = Math.max(1, request.maxOutputTokens) * 4;
  let caps = FULL_CAPS;
  let text = build(request, caps);
  for (let k = 0; k < 8 && text.length > budgetChars; k++) {
    caps = shrink(caps);
    text = build(request, caps);
  }
  return text;
}

export function createOfflineSummarizer(options: OfflineSummarizerOptions = {}): Summarizer {
  return {
    provider: 'offline',
    model: OFFLINE_MODEL,
    contextWindow: options.contextWindow ?? FALLBACK_MODEL_INFO.contextWindow,
    maxOutputTokens: options.maxOutputTokens ?? FALLBACK_MODEL_INFO.maxOutputTokens,
    async summarize(request: SummaryRequest, signal?: AbortSignal): Promise<SummaryResult> {
      throwIfAborted(signal);
      const text = offlineSummaryText(request);
      throwIfAborted(signal);
      const usage = emptyUsage();
      usage.input = Math.ceil((request.systemPrompt.length + request.prompt.length) / 4);
      usage.output = Math.ceil(text.length / 4);
      usage.totalTokens = usage.input + usage.output;
      return { text, usage };
    },
  };
}
