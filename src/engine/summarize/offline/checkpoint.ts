import { emptySummary, formatSummary } from '../parseSummary';
import { sameTarget, type Decision, type Turn } from './extract';
import { CONTINUES_IN_KEPT } from './earlier';
import { backticked, clip, latest, unique } from './text';
import { isSocial, onlyConstraints } from './userText';
import { mentionsFocus, pick } from './instructions';
import { RECENT_IDENTIFIERS } from './recent';
import { criticalContext, resolvedBy } from './criticalContext';
import type { Caps, Parts } from './parts';
export type { Caps, Parts } from './parts';
import { sameSaying } from './distinctItems';
import { userDecisionOf } from './decisions';
import { lastOffer, postponeFixes } from './turnJudgement';
import {
  balanceMarkup,
  doneItem,
  itemTitle,
  learnedRules,
  objective,
  pendingItem,
  requestIsQuestion,
  statusText,
  turnWork,
  userRunsText,
} from './turnItems';

/**
 * The offline checkpoint (spec 7) from a span's turns: Goal is the open
 * objective (finished requests are one history line); Done is each finished
 * turn in order with its result and status, older ones collapsed into one
 * line of names; In Progress, Blocked and Next Steps hold only what is open
 * at the span's end; decisions are what the session stated (the user's
 * redirections, the assistant's choices and workarounds with their reasons);
 * Critical Context holds the files, the extension messages the model saw and
 * the errors still open. An update replaces the earlier checkpoint's
 * momentary lines with their outcomes, so its size stays bounded.
 */

export const FULL_CAPS: Caps = {
  constraints: 8,
  done: 16,
  inProgress: 4,
  blocked: 6,
  decisions: 6,
  nextSteps: 5,
  files: 25,
  commands: 5,
  errors: 5,
  notes: 4,
  item: 700,
};

export function shrink(caps: Caps): Caps {
  const half = (n: number) => Math.max(1, Math.floor(n / 2));
  return {
    constraints: Math.max(6, half(caps.constraints)),
    done: Math.max(3, half(caps.done)),
    inProgress: Math.max(2, half(caps.inProgress)),
    blocked: Math.max(2, half(caps.blocked)),
    decisions: half(caps.decisions),
    nextSteps: Math.max(2, half(caps.nextSteps)),
    files: Math.max(5, half(caps.files)),
    commands: Math.max(RECENT_IDENTIFIERS, half(caps.commands)),
    errors: Math.max(2, half(caps.errors)),
    notes: Math.max(2, half(caps.notes)),
    item: Math.max(160, Math.floor(caps.item * 0.75)),
  };
}

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

/** Longest line naming the older Done items. */
const EARLIER_LINE = 500;

/** A turn worth a Done item: it did something, answered, or ended in a way the user must know. */
function counts(t: Turn): boolean {
  if (t.trigger.kind === 'bash') return t.userRuns.length > 0;
  if (t.trigger.kind === 'custom') return t.answer !== null || t.calls.length > 0;
  // Thanks, or a rule with nothing asked ("Prefer X."), is no request of its own; one the model answered is ("Keep it short.").
  if (t.request && isSocial(t.request) && !t.calls.length) return false;
  if (t.request && onlyConstraints(t.request) && !t.calls.length && !t.answer) return false;
  return t.calls.some((c) => c.result) || t.userRuns.length > 0 || t.answer !== null || t.outcome !== 'open' || !!t.request;
}

/** Done: the carried items and the finished turns, the newest `caps.done` whole, the older ones named in one line. */
function doneSection(
  parts: Parts,
  carried: readonly string[],
  turns: readonly Turn[],
  caps: Caps,
): { items: string[]; total: number; finished: number } {
  const total = carried.length + turns.length;
  const at = (i: number) =>
    i < carried.length ? carried[i] : doneItem(turns[i - carried.length], { kind: parts.kind, max: caps.item, cwd: parts.cwd });
  const keep = Math.min(total, caps.done);
  const items: string[] = [];
  // Focused items first when they must be cut: the newest that mention the focus stay whole.
  const chosen = new Set<number>();
  if (parts.focus.terms.length) {
    for (let i = total - 1; i >= 0 && chosen.size < Math.ceil(keep / 2); i--) if (mentionsFocus(at(i), parts.focus)) chosen.add(i);
  }
  // The span's own turns first (what the earlier checkpoint said is the first to be named in one line), newest first.
  for (let i = total - 1; i >= carried.length && chosen.size < keep; i--) chosen.add(i);
  for (let i = carried.length - 1; i >= 0 && chosen.size < keep; i--) chosen.add(i);
  const older: string[] = [];
  let olderChars = 0;
  const unchosen: number[] = [];
  for (let i = total - 1; i >= carried.length; i--) if (!chosen.has(i)) unchosen.push(i);
  for (let i = carried.length - 1; i >= 0; i--) if (!chosen.has(i)) unchosen.push(i);
  for (const i of unchosen) {
    const item = at(i);
    if (item.startsWith('Earlier: ')) {
      older.unshift(item.slice('Earlier: '.length));
      break;
    }
    const title = itemTitle(item);
    if (olderChars + title.length > EARLIER_LINE) {
      older.unshift('…');
      break;
    }
    olderChars += title.length + 2;
    older.unshift(title);
  }
  if (older.length) items.push(`Earlier: ${clip(unique(older).join('; '), EARLIER_LINE + 80)}`);
  let previous = '';
  for (let i = 0; i < total; i++) {
    if (!chosen.has(i)) continue;
    const item = at(i);
    if (sameSaying(item) === previous) continue;
    previous = sameSaying(item);
    items.push(item);
  }
  // Finished: not the unticked ones (refused, interrupted, only proposed, without an outcome).
  let finished = 0;
  for (let i = 0; i < carried.length; i++) if (!carried[i].startsWith('[ ] ') && !carried[i].startsWith('Earlier: ')) finished++;
  for (const t of turns) if (t.outcome === 'answered' && !t.proposal) finished++;
  return { items, total, finished };
}

export function build(parts: Parts, caps: Caps): string {
  const { x, earlier, kind, focus, cwd } = parts;
  const cut = (items: readonly string[]) => items.map((i) => balanceMarkup(clip(i, caps.item)));
  const s = emptySummary();
  const turns = x.turns;
  const lastTurn = turns.length ? turns[turns.length - 1] : null;
  // A split turn that opened with thanks asks for nothing.
  const openTurnRequest = parts.openTurnRequest && !isSocial(parts.openTurnRequest) ? parts.openTurnRequest : undefined;
  const lastOpen =
    !parts.keptAfter && !!lastTurn && lastTurn.trigger.kind !== 'bash' && lastTurn.outcome !== 'answered' && !lastTurnIsSocial(lastTurn);
  const lastAsked = [...turns].reverse().find((t) => t.request && !isSocial(t.request));
  // The split turn's request (kept after this summary) may decline the offer that closed the span's last answer.
  const declined = openTurnRequest && lastTurn?.answer ? userDecisionOf(openTurnRequest, lastOffer(lastTurn.answer)) : null;
  if (declined?.declinesOffer && lastTurn) postponeFixes(x.problems, lastTurn, declined.title);
  const unresolved = x.problems.filter((p) => !p.resolved);
  // An error the user put off fixing ("Not now") is still open, but neither a blocker nor the next thing to do.
  const blocking = unresolved.filter((p) => !p.postponed);

  // Done: every finished turn, in order (the open last turn is In Progress).
  const finished = turns.filter((t) => (t !== lastTurn || !lastOpen) && counts(t));
  const movedOn = turns.length > 0;
  // An earlier checkpoint's open item the span moved on from: its outcome is not in the span (the continued turn's is, above).
  // One whose file a Done item (then or now) shows written is finished.
  const written = new Set(
    [
      ...earlier.summary.done.filter((d) => /^(?:edited|wrote|changed|created)\b|\((?:changed|created) /i.test(d)).flatMap(pathsIn),
      ...x.filesModified,
    ].map((f) => sameTarget(f, cwd)),
  );
  const finishedEarlier = (i: string) => pathsIn(i).some((f) => written.has(sameTarget(f, cwd)));
  const carried = movedOn
    ? [
        ...earlier.summary.done,
        ...earlier.summary.inProgress.map((i) => (finishedEarlier(i) ? i : `[ ] ${i} — no outcome recorded since the previous summary`)),
      ]
    : earlier.summary.done;
  const done = doneSection(parts, carried, finished, caps);
  s.done = cut(done.items);

  // Goal: what is open first; the finished requests are one line.
  const goals: string[] = [];
  if (lastOpen && lastTurn) {
    if (lastTurn.trigger.kind === 'custom')
      goals.push(`Reply to the extension message (${lastTurn.trigger.customType}): ${clip(lastTurn.trigger.text, 200)}`);
    else if (lastTurn.request)
      goals.push(
        requestIsQuestion(lastTurn.request)
          ? `Answer the user's question: ${clip(lastTurn.request, 240)}`
          : objective(lastTurn.request, 300),
      );
    else goals.push(kind === 'branch' ? 'Continue the request made before the branch point' : 'Continue the request made before this span');
  }
  if (openTurnRequest && !goals.some((g) => g.includes(clip(objective(openTurnRequest, 80), 60))))
    goals.push(objective(openTurnRequest, 300));
  if (!movedOn) goals.push(...earlier.summary.goal.filter((g) => !g.startsWith('Finished earlier:')));
  else
    goals.push(
      ...stillOpenGoals(earlier.summary.goal, [...carried, ...s.done]).map((g) => `Earlier objective (from the previous summary): ${g}`),
    );
  // A branch summary names the line of work it left (its first request: the tree shows it as the row's label).
  const firstAsked = turns.find((t) => t.request && !isSocial(t.request) && !onlyConstraints(t.request));
  if (kind === 'branch' && firstAsked?.request && !goals.length) {
    goals.push(objective(firstAsked.request, 300));
    if (lastAsked && lastAsked !== firstAsked && lastAsked.request) goals.push(`Then: ${objective(lastAsked.request, 200)}`);
  }
  if (!goals.length && (turns.length || earlier.summary.done.length))
    goals.push(lastAsked?.request ? `Last request, answered: ${clip(objective(lastAsked.request, 200), 200)}` : 'No request is open');
  if (done.finished) goals.push(`Finished earlier: ${done.finished} ${done.finished === 1 ? 'item' : 'items'}, listed under Done`);
  s.goal = cut(unique(goals, sameSaying));

  // The user's rules, and the rules of a file the user asked about ("Read CONTRIBUTING.md: which rules…").
  const learned = turns.flatMap((t) => learnedRules(t, cwd, 6));
  s.constraints = cut(pick(unique([...earlier.summary.constraints, ...x.constraints, ...learned], sameSaying), caps.constraints, focus));

  // In progress: the open request and its calls without results.
  const inProgress: string[] = movedOn ? [] : [...earlier.summary.inProgress];
  if (openTurnRequest) inProgress.push(`Working on: ${clip(openTurnRequest, 240)} ${CONTINUES_IN_KEPT}`);
  if (lastOpen && lastTurn) {
    let item = `Working on: ${clip(lastTurn.request ?? lastTurn.trigger.text ?? '', 240)}`;
    if (lastTurn.outcome !== 'open') item += ` (${statusText(lastTurn)})`;
    else if (!lastTurn.calls.length && lastTurn.lastStop === 'none') item += ' (no answer yet)';
    const work = turnWork(lastTurn, 2, cwd);
    if (work) item += `; so far ${work}`;
    const runs = userRunsText(lastTurn);
    if (runs) item += `; the user ran ${runs}`;
    if (lastTurn.found.length) item += `; found ${latest(lastTurn.found, 6).join('; ')}`;
    inProgress.push(item);
  }
  for (const c of x.pending) inProgress.push(pendingItem(c));
  s.inProgress = cut(latest(unique(inProgress), caps.inProgress));

  // Blocked: failures still open at the span's end.
  const blocked = [...earlier.summary.blocked.filter((b) => !resolvedBy(b, x, cwd)), ...blocking.map((p) => `${p.what}: ${p.error}`)];
  s.blocked = cut(pick(unique(blocked), caps.blocked, focus));

  s.decisions = pick(
    unique([...earlier.summary.decisions, ...x.decisions, ...(declined ? [declined] : [])], (d: Decision) => d.title.toLowerCase()),
    caps.decisions,
    focus,
    (d) => `${d.title} ${d.rationale}`,
  ).map((d) => ({ title: balanceMarkup(clip(d.title, Math.min(caps.item, 200))), rationale: balanceMarkup(clip(d.rationale, 240)) }));

  // Next steps: the open request, then what is still broken.
  const steps: string[] = [];
  if (openTurnRequest) steps.push(`Finish the current turn's request: ${clip(openTurnRequest, 240)}`);
  if (lastOpen && lastTurn) {
    const what = clip(lastTurn.request ?? lastTurn.trigger.text, 240);
    if (lastTurn.outcome === 'aborted') steps.push(`Ask the user whether to resume the interrupted request: ${what}`);
    else if (lastTurn.outcome === 'refused') steps.push(`The provider refused the last request; wait for the user: ${what}`);
    else if (lastTurn.outcome === 'length') steps.push(`Finish the answer that was cut off: ${what}`);
    else if (lastTurn.outcome === 'error') steps.push(`Retry the request whose model call failed: ${what}`);
    else steps.push(`Finish the open request: ${what}`);
  }
  for (const c of x.pending) steps.push(`Get the result of ${pendingItem(c).replace(' (started, no result yet)', '')}`);
  for (const p of latest(blocking, 3)) if (p.what !== 'The model request failed') steps.push(`Fix: ${p.what} (${clip(p.error, 120)})`);
  if (!turns.length) steps.push(...earlier.summary.nextSteps);
  // A jump undoes no file: what the branch left behind changed is still on disk.
  const changedHere = unique(x.filesModified.map((f) => sameTarget(f, cwd)));
  if (kind === 'branch' && changedHere.length)
    steps.push(
      `The files this branch changed keep its changes on disk: ${latest(changedHere, 8)
        .map((f) => `\`${f}\``)
        .join(', ')}` + ' (Restore Files can put them back to an earlier entry if the new line of work must not see them)',
    );
  if (!steps.length && kind !== 'branch') {
    steps.push(
      lastAsked?.request
        ? `Wait for the user's next instruction (the last request was answered: ${objective(lastAsked.request, 160)})`
        : "Wait for the user's next instruction",
    );
  }
  s.nextSteps = cut(unique(steps).slice(0, caps.nextSteps));

  const abandoned = unique(earlier.abandoned);
  if (kind !== 'branch')
    s.criticalContext = cut(
      criticalContext(
        parts,
        caps,
        unresolved.map((p) => (p.postponed ? `${p.error} (the user put off fixing it: "${clip(p.postponed, 80)}")` : p.error)),
        abandoned,
      ),
    );
  else if (abandoned.length)
    s.unknownSections = [
      {
        heading: 'Earlier Branches',
        body: abandoned.map((a) => `- Left behind earlier (a branch summary): ${balanceMarkup(clip(a, 300))}`).join('\n'),
      },
    ];
  if (kind !== 'branch') s.unknownSections = earlier.summary.unknownSections;
  return formatSummary(s, { criticalContext: kind !== 'branch', fileLists: false });
}

/**
 * The earlier checkpoint's objectives no Done item shows finished (an item
 * starts with an objective it finished), when the checkpoint named one or
 * two objectives rather than listing every request.
 */
function stillOpenGoals(goals: readonly string[], done: readonly string[]): string[] {
  // Three or more are a list of the requests made (how older summaries wrote Goal): history, which Done holds.
  if (goals.length >= 3) return [];
  const doneKeys = done.map((d) => sameSaying(d.startsWith('[ ] ') ? d.slice(4) : d));
  const open = goals.filter((g) => {
    if (g.startsWith('Answer the user')) return false;
    const key = sameSaying(g).slice(0, 40);
    return key.length > 0 && !doneKeys.some((d) => d.startsWith(key) || d.includes(key));
  });
  return open.slice(0, 2);
}

function lastTurnIsSocial(t: Turn): boolean {
  return !!t.request && isSocial(t.request) && !t.calls.length;
}
