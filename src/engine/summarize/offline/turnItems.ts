import { callPath, isModifying, isShell, sameTarget, type Call, type Turn } from './extract';
import { clip, code, isQuestion, latest, sentences, squash, trimEndChars, unique } from './text';
import { isConstraintSentence } from './userText';

/**
 * One turn as a checkpoint item: its trigger (the request, an extension's
 * message, the user's own command), how it ended, what it answered (whole
 * when short), the results the answer points at, and what it changed, ran,
 * found and introduced. Every item is bound to its own turn, so an answer is
 * never filed under another request.
 */

/** A request as an objective: its sentences minus the constraint ones (those go to Constraints). */
/** A sentence that asks for nothing by itself ("Not now.", "Thanks!"): the request is what follows it. */
const BARE_REPLY = /^(?:not now|no|nope|thanks|thank you|thx|ok|okay|great|good|perfect|nice|cool|sure|yes|yep)\b[\s.!,]*$/i;

export function objective(request: string, max: number): string {
  const said = sentences(request, 20);
  const asking = said.filter((s) => !BARE_REPLY.test(s));
  const all = asking.length ? asking : said;
  const constraintFree = all.filter((s) => !isConstraintSentence(s));
  const chosen = (constraintFree.length ? constraintFree : all).slice(0, 2).join(' ');
  return clip(chosen || squash(request), max);
}

export function requestIsQuestion(request: string): boolean {
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

/** Filler that carries no fact ("Done.", "Sure!", "Let me know if you need anything else!"). */
function isFiller(sentence: string): boolean {
  if (/[0-9`/]/.test(sentence)) return false;
  return sentence.split(' ').length <= 2 || PADDING.test(sentence);
}

/** The facts of an answer: whole when it fits, else its sentences with numbers, names or paths first, in the answer's order. */
export function answerFacts(answer: string, max: number): string {
  const all = sentences(answer, 60).filter((s) => !isFiller(s));
  const joined = joinSentences(all);
  if (joined.length <= max) return joined;
  const factual = all.filter((s) => /[0-9`/]/.test(s));
  const rest = all.filter((s) => !/[0-9`/]/.test(s));
  const chosen = new Set<string>();
  let used = 0;
  for (const s of [...factual, ...rest]) {
    if (used + s.length + 1 > max) {
      if (!chosen.size) return clip(s, max);
      continue;
    }
    chosen.add(s);
    used += s.length + 1;
  }
  return joinSentences(all.filter((s) => chosen.has(s))) || clip(joined, max);
}

/** A request for the rules a file sets ("which rules do I have to follow", "the conventions"). */
const RULES_REQUEST = /\b(?:rules?|guidelines?|conventions?|polic(?:y|ies)|requirements?|constraints?)\b/i;

/**
 * What was learned from a file the user pointed at, as rules: the answer's
 * sentences when the request asked for a file's rules and the turn read it
 * (at most `max`, each with the file it came from).
 */
export function learnedRules(turn: Turn, cwd: string | undefined, max: number): string[] {
  if (!turn.request || !turn.answer || !RULES_REQUEST.test(turn.request)) return [];
  const read = turn.calls.find(
    (c) => c.tool === 'read' && c.result && !c.result.isError && c.path && turn.request!.includes(basenameOf(c.path)),
  );
  if (!read?.path) return [];
  const file = sameTarget(read.path, cwd);
  return sentences(turn.answer, 40)
    .filter((x) => !isFiller(x) && x.length >= 12 && !x.endsWith('?') && !x.endsWith(':'))
    .slice(0, max)
    .map((x) => `From \`${file}\`: ${x}`);
}

function basenameOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash >= 0 ? path.slice(slash + 1) : path;
}

/** A request to be shown something (rows, a listing, totals), whose answer the output is. */
const SHOW_REQUEST = /\b(?:show|list|print|give me|what(?:'s| is) in|first (?:rows|lines)|totals?|count)\b/i;

/** An answer that points at output rather than stating it ("Those are the totals", "here are", a colon before nothing). */
function pointsAtOutput(answer: string, output: string): boolean {
  if (/\b(?:th(?:ose|ese) are|here (?:are|is)|as (?:shown|listed) (?:above|below)|below|above|the output)\b/i.test(answer)) return true;
  // An answer without the output's numbers leaves them to the output.
  const numbers = new Set(output.match(/\b\d+(?:\.\d+)?\b/g) ?? []);
  const said = new Set(answer.match(/\b\d+(?:\.\d+)?\b/g) ?? []);
  let missing = 0;
  for (const n of numbers) if (!said.has(n)) missing++;
  return missing >= Math.max(1, Math.ceil(numbers.size / 2));
}

/**
 * An output short enough to quote, as one line: whole when it fits, else its
 * first line and its last ones (where a test run or a count says how it came
 * out), or null when not even those fit.
 */
export function shortOutput(text: string | undefined, maxLines: number, maxChars: number): string | null {
  const out = (text ?? '').trim();
  if (!out) return null;
  const lines = out
    .split('\n', 2000)
    .map((l) => squash(l))
    .filter(Boolean);
  const whole = lines.join('; ');
  if (lines.length <= maxLines && whole.length <= maxChars) return whole;
  const last = lines[lines.length - 1];
  const gist = lines.length > 2 ? `${lines[0]}; …; ${last}` : whole;
  return gist.length <= maxChars ? gist : last.length <= maxChars ? `…; ${last}` : null;
}

/** What a turn's tool work came to: files created and changed, commands run with their short results. */
export function turnWork(turn: Turn, maxRuns: number, cwd?: string, shownOutputOf?: string): string {
  const created = new Set(turn.created);
  const changed = unique(
    turn.calls
      .filter((c) => isModifying(c.tool) && c.result && !c.result.isError)
      .map((c) => callPath(c))
      .filter((p): p is string => !!p)
      .map((p) => sameTarget(p, cwd))
      .filter((p) => !created.has(p)),
  );
  // One entry per command, with its latest result (a re-run after a fix replaces the earlier one).
  const runs = new Map<string, string>();
  const run = (command: string, text: string) => {
    runs.delete(command);
    runs.set(command, text);
  };
  for (const c of turn.calls) {
    if (!isShell(c.tool) || !c.result || c.result.isError || !c.target || clip(c.target, 80) === shownOutputOf) continue;
    const out = shortOutput(c.result.text, 3, 160);
    run(c.target, out ? `${code(clip(c.target, 80))} → ${clip(out, 160)}` : code(clip(c.target, 80)));
  }
  const parts: string[] = [];
  if (created.size) parts.push(`created ${[...created].map(code).join(', ')}`);
  if (changed.length)
    parts.push(`changed ${latest(changed, 6).map(code).join(', ')}${changed.length > 6 ? ` and ${changed.length - 6} more` : ''}`);
  const shown = latest([...runs.values()], maxRuns);
  if (shown.length) parts.push(`ran ${shown.join('; ')}`);
  return parts.join('; ');
}

/** A user's own command (`!cmd`) as what it did. */
export function userRunsText(turn: Turn): string {
  const out: string[] = [];
  for (const r of turn.userRuns) {
    if (r.cancelled) out.push(`${code(clip(r.command, 80))} (cancelled)`);
    else if (typeof r.exitCode === 'number' && r.exitCode !== 0) out.push(`${code(clip(r.command, 80))} exited with code ${r.exitCode}`);
    else {
      const o = shortOutput(r.output, 4, 240);
      out.push(`${code(clip(r.command, 80))}${o ? ` → ${clip(o, 240)}` : ''}`);
    }
  }
  return out.join('; ');
}

/** The words for a turn that ended without an answer. */
export function statusText(turn: Turn): string {
  const began = turn.partial ? ` (it began: "${clip(turn.partial, 80)}")` : '';
  switch (turn.outcome) {
    case 'aborted':
      return `interrupted by the user before a final answer${began}`;
    case 'length':
      return `the answer was cut off at the output limit${began}`;
    case 'refused':
      return "refused by the provider's content filter; no answer";
    case 'error':
      return `the model request failed (${clip(turn.errorMessage ?? 'no message', 100)}); no answer`;
    case 'open':
      return 'stopped before a final answer';
    default:
      return '';
  }
}

/** How a turn is named: its request, the extension message it replied to, the user's command. */
export function turnHead(turn: Turn, kind: 'branch' | 'history' | 'update' | 'turnPrefix'): string {
  const t = turn.trigger;
  if (t.kind === 'custom') return `Replied to an extension message (${t.customType || 'extension'}): "${clip(t.text, 100)}"`;
  if (t.kind === 'bash') return 'The user ran';
  if (t.kind === 'outside' || !turn.request)
    return kind === 'branch' ? 'Continued the request made before the branch point' : 'Continued a request made before this span';
  if (requestIsQuestion(turn.request)) return `Answered "${clip(turn.request, 110)}"`;
  return trimEndChars(objective(turn.request, 120), '.');
}

export interface ItemOptions {
  kind: 'branch' | 'history' | 'update' | 'turnPrefix';
  /** Longest item. */
  max: number;
  cwd?: string;
}

/** A finished turn as one Done item; a turn that ended without an answer starts with "[ ] " (not done) and says how it ended. */
export function doneItem(turn: Turn, o: ItemOptions): string {
  if (turn.trigger.kind === 'bash') return `The user ran ${userRunsText(turn)}`;
  const head = turnHead(turn, o.kind);
  const parts: string[] = [];
  let shownOutputOf: string | undefined;
  if (turn.answer) {
    parts.push(answerFacts(turn.answer, Math.max(120, Math.floor(o.max * 0.6))));
    const output = latest(turn.outputs, 1)[0];
    if (output) {
      const [command, text] = output.split('\u0000');
      const shown = shortOutput(text, 12, 500);
      // A file's or a listing's content only when the request asked to be shown something.
      const asked = !/^(?:read|ls|find) /.test(command) || SHOW_REQUEST.test(turn.request ?? '');
      if (shown && asked && pointsAtOutput(turn.answer, text)) {
        parts.push(`(output of ${code(command)}: ${clip(shown, 400)})`);
        shownOutputOf = command;
      }
    }
  }
  const work = turnWork(turn, 2, o.cwd, shownOutputOf);
  if (work) parts.push(`(${work})`);
  // A file's title, unless the request or the answer already speak of that file.
  const said = `${turn.request ?? ''}\n${turn.answer ?? ''}`;
  const titles = unique(
    turn.calls
      .filter((c) => c.title && !said.includes(sameTarget(c.path, o.cwd)))
      .map((c) => `${code(sameTarget(c.path, o.cwd))} "${c.title}"`),
  );
  if (titles.length) parts.push(`Read: ${latest(titles, 10).join(', ')}`);
  if (turn.retried) parts.push('(answered on a retry after a failed model request)');
  const user = turn.userRuns.length ? userRunsText(turn) : '';
  if (user) parts.push(`(the user ran ${user})`);
  if (turn.found.length) parts.push(`Found: ${latest(turn.found, 6).join('; ')}`);
  if (turn.introduced.length) parts.push(`Introduced: ${latest(turn.introduced, 5).join('; ')}`);
  const body = parts.join(' ');
  if (turn.outcome !== 'answered') return `[ ] ${head} — ${statusText(turn)}${body ? `. ${body}` : ''}`;
  if (turn.proposal) {
    const then = turn.redirectedBy ? `; the user then chose otherwise: "${clip(turn.redirectedBy, 120)}"` : '';
    return `[ ] ${head} — proposed, not done${then}${body ? `. The proposal: ${body}` : ''}`;
  }
  return `${head}${body ? `: ${body}` : ''}`;
}

/** The short name of a Done item, for the line that lists older ones: up to its first ": " or " — " outside quotes. */
export function itemTitle(item: string): string {
  const t = item.startsWith('[ ] ') ? item.slice(4) : item;
  let quoted = false;
  let end = t.length;
  for (let i = 0; i < t.length; i++) {
    const c = t[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && ((c === ':' && t[i + 1] === ' ') || (c === ' ' && t[i + 1] === '—'))) {
      end = i;
      break;
    }
  }
  return clip(t.slice(0, end), 70);
}

export function pendingItem(call: Call): string {
  return `${code(call.name)}${call.target ? ` on ${code(clip(call.target, 100))}` : ''} (started, no result yet)`;
}

/**
 * Markup no cut may break: an item with an odd number of `**` or of
 * backticks loses its unpaired marker (the last one), so bold and code
 * spans never run into the next item.
 */
export function balanceMarkup(item: string): string {
  let text = item;
  const count = (s: string, m: string) => s.split(m).length - 1;
  if (count(text, '**') % 2) {
    const at = text.lastIndexOf('**');
    text = text.slice(0, at) + text.slice(at + 2);
  }
  if (count(text, '`') % 2) {
    const at = text.lastIndexOf('`');
    text = text.slice(0, at) + text.slice(at + 1);
  }
  return text;
}
