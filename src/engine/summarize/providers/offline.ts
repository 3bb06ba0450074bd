// Over 400 lines: the offline summarizer's section writers share the extraction and its caps; extraction, text helpers,
// recency and instruction rules are in summarize/offline/.
import { emptySummary, formatSummary, parseSummary, type ParsedSummary } from '../parseSummary';
import { BRANCH_SUMMARY_PREAMBLE, TURN_PREFIX_HEADINGS } from '../prompts';
import { throwIfAborted, type Summarizer, type SummaryRequest, type SummaryResult } from '../summarizer';
import {
  callPath,
  extract,
  isModifying,
  isShell,
  sameTarget,
  type Call,
  type Decision,
  type Extraction,
  type Turn,
} from '../offline/extract';
import { distinctItems, pickDistinct, sameSaying, type DistinctItems, type ItemSource } from '../offline/distinctItems';
import { backticked, clip, code, isQuestion, latest, sentences, squash, trimEndChars, unique } from '../offline/text';
import { isConstraintSentence, isSocial, onlyConstraints } from '../offline/userText';
import { focusOf, pick, type Focus } from '../offline/instructions';
import { RECENT_ERRORS, RECENT_IDENTIFIERS, recentCommands, recentPaths } from '../offline/recent';
import { stripPinned } from '../../compaction/pins';
import { FALLBACK_MODEL_INFO } from './models';

/**
 * A deterministic, extractive summarizer: no network, no key, no model. It
 * writes a checkpoint (spec 7), not a log: the user's objectives, their
 * constraints, each finished request as one outcome with its numbers, the
 * work left open and the errors no later step resolved, the exact paths,
 * commands and error messages that still matter, and the pinned entries.
 * Bounded: at most SUMMARY_MAX_TOKENS (about 4 characters a token) however
 * long the span. The same request always gives byte-identical text. Custom
 * instructions steer what it keeps when it must cut (see offline/instructions.ts).
 * It calls no model, so its result carries no usage.
 */

export interface OfflineSummarizerOptions {
  contextWindow?: number;
  maxOutputTokens?: number;
}

export const OFFLINE_MODEL = 'extractive-v2';

/** The size bound of an offline summary (pinned part included, file lists excluded). */
export const SUMMARY_MAX_TOKENS = 1500;

// ---------------------------------------------------------------------------
// Turns into checkpoint items

/** A request as an objective: its sentences minus the constraint ones (those go to Constraints). */
function objective(request: string, max: number): string {
  const all = sentences(request, 20);
  const constraintFree = all.filter((s) => !isConstraintSentence(s));
  const chosen = (constraintFree.length ? constraintFree : all).slice(0, 2).join(' ');
  return clip(chosen || squash(request), max);
}

function requestIsQuestion(request: string): boolean {
  const s = sentences(request, 20);
  return s.length > 0 && s.every((x) => isQuestion(x));
}

/** Joins sentences, marking the boundary of those (list items, lines) that had no end punctuation. */
function joinSentences(items: readonly string[]): string {
  let out = '';
  for (const s of items) {
    if (!out) out = s;
    else out += /[.!?:;]$/.test(out) ? ` ${s}` : `; ${s}`;
  }
  return out;
}

/** A placeholder item of a model-written summary ("(none)", "(nothing completed yet)"). */
function isPlaceholder(item: string): boolean {
  const t = item.trim();
  return t.startsWith('(') && t.endsWith(')') && t.length < 60;
}

/** Offers and pleasantries around an answer ("Let me know if you need anything else!"). */
const PADDING = new RegExp(
  `^(?:${[
    'let me know',
    'feel free',
    'hope (?:this|that) helps',
    'happy to help',
    'glad to help',
    "if you (?:need|want|have|'d like)",
    'is there anything',
    'anything else',
    'here (?:it is|you go|is what)',
    'sure',
    'of course',
    'certainly',
    'great question',
    'no problem',
  ].join('|')})\\b`,
  'i',
);

/** Filler that carries no fact ("Done.", "Sure!", "Here it is:", "Let me know if you need anything else!"). */
function isFiller(sentence: string): boolean {
  if (/[0-9`/]/.test(sentence)) return false;
  return sentence.split(' ').length <= 3 || PADDING.test(sentence);
}

/** The facts of an answer: its sentences without filler, sentences with numbers, names or paths first when it must be cut. */
function answerFacts(answer: string, max: number): string {
  const all = sentences(answer, 40).filter((s) => !isFiller(s));
  const joined = joinSentences(all);
  if (joined.length <= max) return joined;
  const factual = all.filter((s) => /[0-9`/]/.test(s));
  const rest = all.filter((s) => !/[0-9`/]/.test(s));
  const out: string[] = [];
  let used = 0;
  for (const s of [...factual, ...rest]) {
    if (used + s.length + 1 > max) {
      if (!out.length) return clip(s, max);
      continue;
    }
    out.push(s);
    used += s.length + 1;
  }
  // Keep the answer's own order among the chosen sentences.
  const chosen = new Set(out);
  const ordered = joinSentences(all.filter((s) => chosen.has(s)));
  return ordered || clip(joined, max);
}

function shortOutput(text: string | undefined): string | null {
  const out = (text ?? '').trim();
  if (!out) return null;
  const lines = out
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length > 3 || out.length > 120) return null;
  return lines.join('; ');
}

/** What a turn's tool work came to: files changed, commands run with their short results. */
function turnOutcome(turn: Turn, maxRuns: number, cwd?: string): string {
  const changed = unique(
    turn.calls
      .filter((c) => isModifying(c.tool) && c.result && !c.result.isError)
      .map((c) => callPath(c))
      .filter((p): p is string => !!p)
      .map((p) => sameTarget(p, cwd)),
  );
  // One entry per command, with its latest result (a re-run after a fix replaces the earlier one).
  const runs = new Map<string, string>();
  const run = (command: string, text: string) => {
    runs.delete(command);
    runs.set(command, text);
  };
  for (const c of turn.calls) {
    if (!isShell(c.tool) || !c.result || c.result.isError || !c.target) continue;
    const out = shortOutput(c.result.text);
    run(c.target, out ? `${code(clip(c.target, 80))} → ${clip(out, 120)}` : code(clip(c.target, 80)));
  }
  for (const r of turn.userRuns) {
    if (r.cancelled || (typeof r.exitCode === 'number' && r.exitCode !== 0)) continue;
    const out = shortOutput(r.output);
    run(r.command, `${code(clip(r.command, 80))} (by the user)${out ? ` → ${clip(out, 120)}` : ''}`);
  }
  const parts: string[] = [];
  if (changed.length)
    parts.push(`changed ${latest(changed, 6).map(code).join(', ')}${changed.length > 6 ? ` and ${changed.length - 6} more` : ''}`);
  const shown = latest([...runs.values()], maxRuns);
  if (shown.length) parts.push(`ran ${shown.join('; ')}`);
  return parts.join('; ');
}

function doneItem(turn: Turn, itemMax: number, cwd: string | undefined): string {
  const outcome = turnOutcome(turn, 2, cwd);
  const facts = turn.answer ? answerFacts(turn.answer, Math.max(80, itemMax - 160)) : '';
  const req = turn.request;
  let head: string;
  if (!req) head = 'Earlier work';
  else if (requestIsQuestion(req)) head = `Answered ${JSON.stringify(clip(req, 100))}`;
  else head = objective(req, 110);
  const body = [facts, outcome ? `(${outcome})` : ''].filter(Boolean).join(' ');
  const stopped = turn.answer ? '' : ' (stopped before a final answer)';
  return `${trimEndChars(head, '.')}${stopped}${body ? `: ${body}` : ''}`;
}

function pendingItem(call: Call): string {
  return `${code(call.name)}${call.target ? ` on ${code(clip(call.target, 100))}` : ''} (started, no result yet)`;
}

// ---------------------------------------------------------------------------
// The checkpoint

interface Caps {
  goal: number;
  constraints: number;
  done: number;
  inProgress: number;
  blocked: number;
  decisions: number;
  nextSteps: number;
  files: number;
  commands: number;
  errors: number;
  item: number;
}

const FULL_CAPS: Caps = {
  goal: 4,
  constraints: 8,
  done: 10,
  inProgress: 4,
  blocked: 6,
  decisions: 6,
  nextSteps: 5,
  files: 25,
  commands: 5,
  errors: 5,
  item: 360,
};

function shrink(caps: Caps): Caps {
  const half = (n: number) => Math.max(1, Math.floor(n / 2));
  return {
    goal: Math.max(2, half(caps.goal)),
    constraints: Math.max(6, half(caps.constraints)),
    done: half(caps.done),
    inProgress: Math.max(2, half(caps.inProgress)),
    blocked: Math.max(2, half(caps.blocked)),
    decisions: half(caps.decisions),
    nextSteps: Math.max(2, half(caps.nextSteps)),
    files: Math.max(5, half(caps.files)),
    commands: Math.max(RECENT_IDENTIFIERS, half(caps.commands)),
    errors: Math.max(2, half(caps.errors)),
    item: Math.max(120, Math.floor(caps.item * 0.7)),
  };
}

/** Critical Context items Arbor writes and re-derives at every checkpoint (an earlier checkpoint's copies are merged, not repeated). */
const LABELS = {
  modified: 'Modified files:',
  commands: 'Recent commands:',
  error: 'Unresolved error:',
  recentFiles: 'Files the last turns used:',
  paths: 'Paths:',
  allCommands: 'Commands:',
  earlierErrors: 'Errors seen (fixed or not):',
} as const;
/** Items older Arbor versions wrote that are noise now (incidental names, every read, every command). */
const DROPPED_LABELS = [
  'Names mentioned:',
  'Files read:',
  'Commands run:',
  LABELS.recentFiles,
  LABELS.paths,
  LABELS.allCommands,
  LABELS.earlierErrors,
];
/** Older versions listed every error seen under this label (and in Blocked): history, not an open problem. */
const OLD_ERROR_LABEL = 'Error seen:';

/** The file paths a text names: backticked values and bare words that look like paths (`src/a.ts`, `CHANGELOG.md`). */
export function pathsIn(text: string): string[] {
  const out = new Set<string>();
  for (const v of backticked(text)) if (/[./]/.test(v) && !/\s/.test(v)) out.add(v);
  for (const raw of text.split(/\s+/)) {
    const w = raw.replace(/^[("'`[<]+|[)"'`\]>,;:.!?]+$/g, '');
    if (
      w.length >= 3 &&
      w.length <= 200 &&
      /^[\w@~./-]+$/.test(w) &&
      (/\/[\w.-]/.test(w) || /^[\w-]+\.[A-Za-z][\w]{0,7}$/.test(w)) &&
      !/^\d/.test(w)
    )
      out.add(w);
  }
  return [...out];
}

interface Earlier {
  summary: ParsedSummary;
  /** The request of a turn an earlier checkpoint split (its turn-context part), which the span continues. */
  openRequest: string | null;
  modified: string[];
  errors: string[];
  other: string[];
}

/** Reads an earlier checkpoint (the previous summary, or a summary inside the span). */
function readEarlier(texts: readonly string[]): Earlier {
  const into = emptySummary();
  const modified: string[] = [];
  const errors: string[] = [];
  const other: string[] = [];
  let openRequest: string | null = null;
  for (const text of texts) {
    const prev = parseSummary(stripPinned(text));
    if (prev.turnContext) {
      const at = prev.turnContext.indexOf(`${TURN_PREFIX_HEADINGS.request}\n`);
      const body = at >= 0 ? prev.turnContext.slice(at + TURN_PREFIX_HEADINGS.request.length + 1) : '';
      const end = body.indexOf('\n\n');
      const req = (end >= 0 ? body.slice(0, end) : body).trim();
      if (req && !req.startsWith('(')) openRequest = req;
    }
    const real = (items: string[]) => items.filter((i) => !isPlaceholder(i));
    into.goal.push(...real(prev.goal));
    // Older versions wrote the compaction's instructions as a constraint: they were never the user's rule.
    into.constraints.push(...real(prev.constraints).filter((c) => !c.startsWith('Summary focus requested')));
    into.done.push(...real(prev.done));
    into.inProgress.push(...real(prev.inProgress));
    // An older checkpoint listed every failure in Blocked (and under "Error seen"): one whose file its own Done
    // shows as edited or written afterwards was fixed by a retry.
    const legacy = prev.criticalContext.some((i) => i.startsWith(OLD_ERROR_LABEL));
    const doneFiles = legacy
      ? new Set(prev.done.filter((d) => /^(?:edited|wrote|changed|created)\b/i.test(d)).flatMap(pathsIn))
      : new Set<string>();
    into.blocked.push(...real(prev.blocked).filter((b) => !/\(resolved\b/i.test(b) && !pathsIn(b).some((f) => doneFiles.has(f))));
    into.decisions.push(...prev.decisions);
    into.nextSteps.push(...real(prev.nextSteps));
    for (const u of prev.unknownSections) if (!into.unknownSections.some((v) => v.heading === u.heading)) into.unknownSections.push(u);
    modified.push(...prev.modifiedFiles);
    for (const item of prev.criticalContext) {
      if (item.startsWith(LABELS.modified) || item.startsWith('Modified files')) modified.push(...backticked(item));
      else if (item.startsWith(LABELS.error)) errors.push(item.slice(LABELS.error.length).trim());
      else if (item.startsWith(OLD_ERROR_LABEL)) continue;
      else if (item.startsWith(LABELS.commands) || DROPPED_LABELS.some((l) => item.startsWith(l))) continue;
      else other.push(item);
    }
    if (prev.preamble && prev.preamble.trim() !== BRANCH_SUMMARY_PREAMBLE && !prev.goal.length && !prev.done.length) {
      other.push(`Earlier notes: ${clip(prev.preamble, 300)}`);
    }
  }
  return { summary: into, openRequest, modified, errors, other };
}

/** True when a text names (in backticks, or a bare path) a target that later work used successfully. */
function resolvedBy(item: string, x: Extraction, cwd: string | undefined): boolean {
  const names = new Set([...backticked(item), ...pathsIn(item)].map((n) => sameTarget(n, cwd)));
  if (!names.size) return false;
  return x.turns.some((t) =>
    t.calls.some((c) => c.result && !c.result.isError && c.target !== undefined && names.has(sameTarget(c.target, cwd))),
  );
}

interface Parts {
  x: Extraction;
  earlier: Earlier;
  kind: SummaryRequest['kind'];
  focus: Focus;
  /** The request of the turn the compaction splits (its start is summarized apart, its rest kept). */
  openTurnRequest?: string;
  cwd?: string;
  /** What every render of one summary computes alike, kept from the first. */
  memo: { goals?: { source: ItemSource; distinct: DistinctItems } };
}

/**
 * The objectives of the span and of the earlier checkpoints, newest first; a
 * question only while it is still open (answered ones are in Done). Made on
 * demand (distinctItems.ts): the turns that state one, then the earlier goals.
 */
function objectivesOf(turns: readonly Turn[], lastOpen: boolean, earlier: Earlier): ItemSource {
  const lastTurn = turns.length ? turns[turns.length - 1] : null;
  const stating: number[] = [];
  for (let k = turns.length - 1; k >= 0; k--) {
    const t = turns[k];
    if (!t.request) continue;
    const isLast = t === lastTurn;
    if (requestIsQuestion(t.request)) {
      if (isLast && lastOpen) stating.push(k);
      continue;
    }
    if (isSocial(t.request)) continue; // "Thanks, that's all.": never an objective
    if (!isLast && (onlyConstraints(t.request) || squash(t.request).length < 12)) continue; // "go on", "Prefer X.": not objectives
    stating.push(k);
  }
  const turnsStating = Int32Array.from(stating);
  const objectiveOf = (t: Turn) => {
    const isLast = t === lastTurn;
    if (requestIsQuestion(t.request!)) return `Answer the user's question: ${clip(t.request!, 200)}`;
    return objective(t.request!, isLast ? 300 : 200);
  };
  return {
    length: turnsStating.length + earlier.summary.goal.length,
    at: (i) => (i < turnsStating.length ? objectiveOf(turns[turnsStating[i]]) : earlier.summary.goal[i - turnsStating.length]),
  };
}

function build(parts: Parts, caps: Caps): string {
  const { x, earlier, kind, focus, cwd } = parts;
  // A split turn that opened with thanks asks for nothing.
  const openTurnRequest = parts.openTurnRequest && !isSocial(parts.openTurnRequest) ? parts.openTurnRequest : undefined;
  const cut = (items: readonly string[]) => items.map((i) => clip(i, caps.item));
  const s = emptySummary();
  const turns = x.turns;
  const lastTurn = turns.length ? turns[turns.length - 1] : null;
  const lastRequest = [...turns].reverse().find((t) => t.request && !isSocial(t.request))?.request ?? null;
  const lastOpen = !!lastTurn && lastTurn.request !== null && lastTurn.answer === null;
  const unresolved = x.problems.filter((p) => !p.resolved);

  const hasFocus = focus.terms.length > 0;
  if (!parts.memo.goals) {
    const source = objectivesOf(turns, lastOpen, earlier);
    parts.memo.goals = { source, distinct: distinctItems(source, { key: sameSaying, focus }) };
  }
  const goals = parts.memo.goals;
  const goalCount = goals.distinct.positions.length;
  s.goal = cut(pickDistinct(goals.distinct, caps.goal, { focus: hasFocus, newestFirst: true }).map((i) => goals.source.at(i)));
  if (goalCount > caps.goal) s.goal.push(`(${goalCount - caps.goal} earlier objectives, see Done)`);

  s.constraints = cut(pick(unique([...earlier.summary.constraints, ...x.constraints], sameSaying), caps.constraints, focus));

  // Done: one outcome per finished request (and work of requests the user moved on from).
  const finishedNow = turns
    .filter((t) => t !== lastTurn || !lastOpen)
    .filter(
      (t) =>
        t.calls.some((c) => c.result) ||
        t.userRuns.length ||
        (t.answer && !(t.request && (isSocial(t.request) || onlyConstraints(t.request)))),
    );
  // An earlier "in progress" item whose file a Done item (then or now) shows as written is finished.
  const writtenFiles = new Set(
    [
      ...earlier.summary.done.filter((d) => /^(?:edited|wrote|changed|created)\b|\(changed /i.test(d)).flatMap(pathsIn),
      ...x.filesModified,
    ].map((f) => sameTarget(f, cwd)),
  );
  const finishedEarlier = (item: string) => pathsIn(item).some((f) => writtenFiles.has(sameTarget(f, cwd)));
  const movedOn = turns.some((t) => t.answer);
  const earlierInProgress = earlier.summary.inProgress.filter((i) => movedOn || !finishedEarlier(i));
  const carriedDone = [...earlier.summary.done, ...earlier.summary.inProgress.filter((i) => movedOn || finishedEarlier(i))];
  // Without repeats (or an item that only heads a longer one), made on demand: a long span has tens of thousands.
  const doneSource: ItemSource = {
    length: carriedDone.length + finishedNow.length,
    at: (i) => (i < carriedDone.length ? carriedDone[i] : doneItem(finishedNow[i - carriedDone.length], caps.item, cwd)),
  };
  const doneAll = distinctItems(doneSource, { key: sameSaying, dropHeads: true, focus });
  const doneCount = doneAll.positions.length;
  s.done = cut(pickDistinct(doneAll, caps.done, { focus: hasFocus }).map((i) => doneSource.at(i)));
  if (doneCount > caps.done)
    s.done.unshift(`${doneCount - caps.done} earlier ${doneCount - caps.done === 1 ? 'step' : 'steps'} completed (not listed)`);

  // In progress: the open request and its calls without results.
  const inProgress: string[] = movedOn ? [] : [...earlierInProgress];
  if (openTurnRequest) inProgress.push(`Working on: ${clip(openTurnRequest, 240)} (this turn continues in the kept messages)`);
  if (lastOpen && lastTurn) {
    let item = `Working on: ${clip(lastTurn.request!, 240)}`;
    const outcome = turnOutcome(lastTurn, 2, cwd);
    if (lastTurn.lastStop === 'aborted') item += ' (interrupted by the user)';
    else if (lastTurn.lastStop === 'length') item += ' (the last answer was cut off)';
    else if (lastTurn.lastStop === 'error') item += ' (the last model request failed)';
    else if (lastTurn.lastStop === 'none') item += ' (no answer yet)';
    if (outcome) item += `; so far ${outcome}`;
    inProgress.push(item);
  }
  for (const c of x.pending) inProgress.push(pendingItem(c));
  s.inProgress = cut(latest(unique(inProgress), caps.inProgress));

  // Blocked: failures nothing later resolved.
  const blocked = [...earlier.summary.blocked.filter((b) => !resolvedBy(b, x, cwd)), ...unresolved.map((p) => `${p.what}: ${p.error}`)];
  s.blocked = cut(pick(unique(blocked), caps.blocked, focus));

  s.decisions = pick(
    unique([...earlier.summary.decisions, ...x.decisions], (d: Decision) => d.title.toLowerCase()),
    caps.decisions,
    focus,
    (d) => `${d.title} ${d.rationale}`,
  ).map((d) => ({
    title: clip(d.title, Math.min(caps.item, 160)),
    rationale: clip(d.rationale, caps.item),
  }));

  // Next steps: from the last open request, then what is still broken.
  const steps: string[] = [];
  if (openTurnRequest) steps.push(`Finish the current turn's request: ${clip(openTurnRequest, 240)}`);
  if (lastOpen && lastTurn) steps.push(`Finish the open request: ${clip(lastTurn.request!, 240)}`);
  for (const c of x.pending) steps.push(`Get the result of ${pendingItem(c).replace(' (started, no result yet)', '')}`);
  for (const p of latest(unresolved, 3)) steps.push(`Fix: ${p.what} (${clip(p.error, 120)})`);
  if (!turns.length) steps.push(...earlier.summary.nextSteps);
  if (!steps.length) {
    steps.push(
      lastRequest
        ? `Wait for the user's next instruction (the last request was answered: ${clip(lastRequest, 160)})`
        : "Wait for the user's next instruction",
    );
  }
  s.nextSteps = cut(unique(steps).slice(0, caps.nextSteps));

  if (kind !== 'branch') {
    const cc: string[] = [...unique(earlier.other)];
    const modified = unique([...earlier.modified, ...x.filesModified]);
    if (modified.length) {
      const shown = latest(modified, caps.files);
      cc.push(
        `${LABELS.modified} ${shown.map(code).join(', ')}` +
          (modified.length > shown.length ? ` (and ${modified.length - shown.length} earlier ones, all in <modified-files>)` : ''),
      );
    }
    const commands = unique(recentCommands(turns).map((c) => clip(c, 120)));
    if (commands.length) cc.push(`${LABELS.commands} ${latest(commands, caps.commands).map(code).join('; ')}`);
    const modifiedNow = new Set(modified.map((f) => sameTarget(f, cwd)));
    const used = unique(recentPaths(turns, cwd).filter((f) => !modifiedNow.has(f)));
    if (used.length && !focus.keepPaths) cc.push(`${LABELS.recentFiles} ${latest(used, RECENT_IDENTIFIERS).map(code).join(', ')}`);
    const carriedErrors = earlier.errors.filter((e) => !resolvedBy(e, x, cwd));
    for (const e of latest(unique([...carriedErrors, ...unresolved.map((p) => p.error)]), Math.max(caps.errors, RECENT_ERRORS)))
      cc.push(`${LABELS.error} ${e}`);
    // Asked for in the instructions ("keep exact paths", "keep the commands", "keep the errors").
    if (focus.keepPaths) {
      const all = unique(
        turns.flatMap((t) =>
          t.calls
            .map((c) => callPath(c))
            .filter((f): f is string => !!f)
            .map((f) => sameTarget(f, cwd)),
        ),
      );
      if (all.length) cc.push(`${LABELS.paths} ${latest(all, caps.files).map(code).join(', ')}`);
    }
    if (focus.keepCommands) {
      const all = unique(
        turns
          .flatMap((t) => [
            ...t.calls.filter((c) => isShell(c.tool) && c.target).map((c) => c.target!),
            ...t.userRuns.map((r) => r.command),
          ])
          .map((c) => clip(c, 120)),
      );
      if (all.length) cc.push(`${LABELS.allCommands} ${latest(all, caps.files).map(code).join('; ')}`);
    }
    if (focus.keepErrors) {
      const all = unique(x.problems.filter((p) => p.resolved).map((p) => `${p.what}: ${p.error}`));
      if (all.length) cc.push(`${LABELS.earlierErrors} ${latest(all, caps.errors).join('; ')}`);
    }
    s.criticalContext = cut(cc);
  }
  s.unknownSections = earlier.summary.unknownSections;
  return formatSummary(s, { criticalContext: kind !== 'branch', fileLists: false });
}

function buildTurnPrefix(x: Extraction, caps: Caps, cwd: string | undefined): string {
  const out: string[] = [TURN_PREFIX_HEADINGS.request];
  const first = x.turns.find((t) => t.request);
  out.push(first ? clip(first.request!, caps.item) : '(the request is not part of this excerpt)');
  out.push('', TURN_PREFIX_HEADINGS.progress);
  const progress: string[] = [];
  for (const t of x.turns) {
    const outcome = turnOutcome(t, 3, cwd);
    if (outcome) progress.push(`- [x] ${clip(outcome.charAt(0).toUpperCase() + outcome.slice(1), caps.item)}`);
  }
  const reads = unique(
    x.turns
      .flatMap((t) => t.calls.filter((c) => c.tool === 'read' && c.result && !c.result.isError).map((c) => callPath(c) ?? ''))
      .filter(Boolean),
  );
  if (reads.length) progress.push(`- [x] Read ${latest(reads, caps.files).map(code).join(', ')}`);
  for (const c of x.pending) progress.push(`- [ ] ${pendingItem(c)}`);
  for (const p of x.problems.filter((q) => !q.resolved)) progress.push(`- Problem: ${clip(`${p.what}: ${p.error}`, caps.item)}`);
  out.push(...(progress.length ? progress : ['(none)']));
  out.push('', TURN_PREFIX_HEADINGS.needed);
  const needed: string[] = [];
  for (const c of latest(x.constraints, caps.constraints)) needed.push(`- Constraint: ${c}`);
  const commands = unique(recentCommands(x.turns).map((c) => clip(c, 120)));
  if (commands.length) needed.push(`- ${LABELS.commands} ${latest(commands, RECENT_IDENTIFIERS).map(code).join('; ')}`);
  if (x.filesModified.length) needed.push(`- ${LABELS.modified} ${latest(x.filesModified, caps.files).map(code).join(', ')}`);
  for (const d of latest(x.decisions, 3))
    needed.push(`- Decided: ${clip(d.title, caps.item)}${d.rationale ? ` (${clip(d.rationale, 160)})` : ''}`);
  out.push(...(needed.length ? needed : ['(none)']));
  return out.join('\n');
}

/**
 * The earlier checkpoints a summary builds on (summaries inside the span, the
 * previous one), and the extraction as the summary reads it: a span that
 * continues a turn the previous checkpoint split has that turn's request as
 * its first turn's (a copy of that turn: the extraction is shared).
 */
function withEarlier(x: Extraction, request: SummaryRequest): { x: Extraction; earlier: Earlier } {
  const earlierTexts = [...x.embedded, ...(request.kind === 'update' && request.previousSummary ? [request.previousSummary] : [])];
  const earlier = readEarlier(earlierTexts);
  if (!earlier.openRequest || !x.turns.length || x.turns[0].request !== null) return { x, earlier };
  const turns = x.turns.slice();
  turns[0] = { ...turns[0], request: earlier.openRequest };
  return { x: { ...x, turns }, earlier };
}

/** The offline summary text for a request (pure and deterministic). */
export function offlineSummaryText(request: SummaryRequest): string {
  // A compaction's span was read by its run step (shared with the retention facts): read here, never changed.
  if (!request.extraction && !request.messages)
    throw new Error("the offline summarizer reads a span's extraction or its messages: the request has neither");
  const shared = request.extraction ?? extract(request.messages!, { cwd: request.cwd });
  const focus = focusOf(request.customInstructions);
  const pinned = request.kind === 'history' || request.kind === 'update' ? (request.pinned?.trim() ?? '') : '';
  const budgetChars = Math.min(Math.max(1, request.maxOutputTokens), SUMMARY_MAX_TOKENS) * 4 - (pinned ? pinned.length + 2 : 0);
  let checkpoint: { x: Extraction; earlier: Earlier } | undefined;
  const memo = {};
  const render = (caps: Caps) => {
    if (request.kind === 'turnPrefix') return buildTurnPrefix(shared, caps, request.cwd);
    checkpoint ??= withEarlier(shared, request);
    const { x, earlier } = checkpoint;
    return build({ x, earlier, kind: request.kind, focus, openTurnRequest: request.openTurnRequest, cwd: request.cwd, memo }, caps);
  };
  let caps = FULL_CAPS;
  let text = render(caps);
  for (let k = 0; k < 8 && text.length > budgetChars; k++) {
    caps = shrink(caps);
    text = render(caps);
  }
  if (text.length > Math.max(200, budgetChars))
    text = `${text.slice(0, Math.max(200, budgetChars) - 40).trimEnd()}\n[summary cut at its size limit]`;
  return pinned ? `${text}\n\n${pinned}` : text;
}

/** What the offline summarizer did, for the panel and the CLI (it makes no model call, so there is no usage). */

export function createOfflineSummarizer(options: OfflineSummarizerOptions = {}): Summarizer {
  return {
    provider: 'offline',
    model: OFFLINE_MODEL,
    contextWindow: options.contextWindow ?? FALLBACK_MODEL_INFO.contextWindow,
    maxOutputTokens: options.maxOutputTokens ?? FALLBACK_MODEL_INFO.maxOutputTokens,
    readsExtraction: true,
    async summarize(request: SummaryRequest, signal?: AbortSignal): Promise<SummaryResult> {
      throwIfAborted(signal);
      const text = offlineSummaryText(request);
      throwIfAborted(signal);
      return { text };
    },
  };
}
