import { emptySummary, parseSummary, type ParsedSummary } from '../parseSummary';
import { BRANCH_SUMMARY_PREAMBLE } from '../prompts';
import { stripPinned } from '../../compaction/pins';
import type { Extraction } from './extract';
import { backticked, clip } from './text';
import type { SummaryRequest } from '../summarizer';

/**
 * The earlier checkpoints a summary builds on: the previous compaction's
 * summary (an update) and the compaction summaries inside the span. What
 * held then is carried; what was only true then is not: an In Progress item
 * of a turn the checkpoint split ("continues in the kept messages") becomes
 * that turn's outcome, and lines Arbor re-derives every time (its file and
 * command lists) are made anew. Branch summaries inside the span are another
 * line of work, left behind: they are read apart (`abandoned`).
 */

/** Critical Context items Arbor writes and re-derives at every checkpoint (an earlier checkpoint's copies are merged, not repeated). */
export const LABELS = {
  modified: 'Modified files:',
  created: 'Created files:',
  commands: 'Recent commands:',
  error: 'Unresolved error:',
  note: 'Extension message',
  abandoned: 'Left behind on another branch:',
  focus: 'On the focus, as the session read it:',
  paths: 'Paths:',
  allCommands: 'Commands:',
  earlierErrors: 'Errors seen (fixed or not):',
} as const;

/** Items older Arbor versions (or this one) wrote that are re-derived or noise now. */
const DROPPED_LABELS = [
  'Names mentioned:',
  'Files read:',
  'Commands run:',
  'Files the last turns used:',
  LABELS.commands,
  LABELS.created,
  LABELS.focus,
  LABELS.paths,
  LABELS.allCommands,
  LABELS.earlierErrors,
];
/** Older versions listed every error seen under this label (and in Blocked): history, not an open problem. */
const OLD_ERROR_LABEL = 'Error seen:';

/** A split turn's In Progress line: true only in the compaction that split it. */
export const CONTINUES_IN_KEPT = '(continues in the messages kept after this summary)';
const CONTINUES_FORMS = [CONTINUES_IN_KEPT, '(this turn continues in the kept messages)'];

export interface Earlier {
  summary: ParsedSummary;
  /** The request of a turn an earlier checkpoint split (its turn-context part), which the span continues. */
  openRequest: string | null;
  modified: string[];
  created: string[];
  errors: string[];
  other: string[];
  /** Branch summaries inside the span: work left behind on another branch. */
  abandoned: string[];
}

/** A placeholder item of a model-written summary ("(none)", "(nothing completed yet)"). */
export function isPlaceholder(item: string): boolean {
  const t = item.trim();
  return t.startsWith('(') && t.endsWith(')') && t.length < 60;
}

/** A line an earlier checkpoint wrote about its own moment (a split turn's progress, a count of unlisted steps). */
function isMomentary(item: string): boolean {
  return (
    CONTINUES_FORMS.some((f) => item.includes(f)) ||
    /^Working on:/.test(item) ||
    /^\d+ earlier steps? completed \(not listed\)$/.test(item.trim()) ||
    /^\(\d+ (?:earlier|finished) (?:objectives|requests?)/.test(item.trim())
  );
}

/**
 * What a branch summary was about, for the line that names it: its goal (else
 * its first Done items) and the files that branch changed, which keep its
 * changes on disk (a jump undoes no file).
 */
function gist(summary: ParsedSummary, preamble: string | null): string {
  const real = (items: string[]) => items.filter((i) => !isPlaceholder(i) && !isMomentary(i) && !/^(?:Then:|Finished earlier:)/.test(i));
  const goals = real(summary.goal).slice(0, 2);
  const parts = goals.length ? goals : real(summary.done).slice(0, 2);
  const what = parts.length ? parts.join('; ') : (preamble ?? '');
  const files = summary.modifiedFiles.length
    ? `; it changed ${summary.modifiedFiles
        .slice(0, 6)
        .map((f) => `\`${f}\``)
        .join(', ')}${summary.modifiedFiles.length > 6 ? ` and ${summary.modifiedFiles.length - 6} more` : ''} (those changes stay on disk)`
    : '';
  return clip(`${what}${files}`, 400);
}

/** Reads the earlier checkpoints of a request (`texts` oldest first, `kinds` saying which are branch summaries). */
export function readEarlier(texts: readonly string[], kinds: readonly ('branch' | 'compaction')[] = []): Earlier {
  const into = emptySummary();
  const earlier: Earlier = { summary: into, openRequest: null, modified: [], created: [], errors: [], other: [], abandoned: [] };
  texts.forEach((text, k) => {
    const prev = parseSummary(stripPinned(text));
    if (kinds[k] === 'branch') {
      const preamble = prev.preamble?.trim() === BRANCH_SUMMARY_PREAMBLE ? null : prev.preamble;
      const what = gist(prev, preamble);
      if (what) earlier.abandoned.push(what);
      return;
    }
    if (prev.turnContext) {
      // Arbor's "### Original Request", a model's "## Original Request".
      const heading = /^#{2,4} Original Request[ \t]*\n/m.exec(prev.turnContext);
      const body = heading ? prev.turnContext.slice(heading.index + heading[0].length) : '';
      const end = body.indexOf('\n\n');
      const req = (end >= 0 ? body.slice(0, end) : body).trim();
      if (req && !req.startsWith('(')) earlier.openRequest = req;
    }
    // The split turn's line names its request too (a checkpoint without its turn-context part).
    if (!earlier.openRequest)
      for (const item of prev.inProgress) {
        const form = CONTINUES_FORMS.find((f) => item.includes(f));
        if (form && item.startsWith('Working on: '))
          earlier.openRequest = item.slice('Working on: '.length, item.indexOf(form)).trim() || null;
      }
    const real = (items: string[]) => items.filter((i) => !isPlaceholder(i) && !isMomentary(i));
    into.goal.push(
      ...real(prev.goal)
        .filter((g) => !/^(?:No request is open|Last request, answered:|Then:|Finished earlier:)/.test(g))
        .map((g) => g.replace(/^Earlier objective \(from the previous summary\): /, '')),
    );
    // Older versions wrote the compaction's instructions as a constraint: they were never the user's rule.
    into.constraints.push(...real(prev.constraints).filter((c) => !c.startsWith('Summary focus requested')));
    into.done.push(...real(prev.done));
    into.inProgress.push(...real(prev.inProgress));
    const legacy = prev.criticalContext.some((i) => i.startsWith(OLD_ERROR_LABEL));
    into.blocked.push(...real(prev.blocked).filter((b) => !/\(resolved\b/i.test(b) && !legacy));
    into.decisions.push(...prev.decisions);
    into.nextSteps.push(...real(prev.nextSteps));
    for (const u of prev.unknownSections) if (!into.unknownSections.some((v) => v.heading === u.heading)) into.unknownSections.push(u);
    earlier.modified.push(...prev.modifiedFiles);
    for (const item of prev.criticalContext) {
      if (item.startsWith(LABELS.modified) || item.startsWith('Modified files')) earlier.modified.push(...backticked(item));
      else if (item.startsWith(LABELS.created)) earlier.created.push(...backticked(item));
      else if (item.startsWith(LABELS.error)) earlier.errors.push(item.slice(LABELS.error.length).trim());
      else if (item.startsWith(LABELS.abandoned)) earlier.abandoned.push(item.slice(LABELS.abandoned.length).trim());
      else if (item.startsWith(OLD_ERROR_LABEL) || DROPPED_LABELS.some((l) => item.startsWith(l))) continue;
      else if (!isPlaceholder(item)) earlier.other.push(item);
    }
    if (prev.preamble && prev.preamble.trim() !== BRANCH_SUMMARY_PREAMBLE && !prev.goal.length && !prev.done.length) {
      earlier.other.push(`Earlier notes: ${clip(prev.preamble, 300)}`);
    }
  });
  return earlier;
}

/**
 * The earlier checkpoints a summary builds on (summaries inside the span, the
 * previous one), and the extraction as the summary reads it: a span that
 * continues a turn the previous checkpoint split has that turn's request as
 * its first turn's (a copy of that turn: the extraction is shared).
 * A branch summary reads no compaction inside its branch: the messages it
 * covers after the branch point are in the branch itself, and those before
 * are not the branch's work.
 */
export function withEarlier(x: Extraction, request: SummaryRequest): { x: Extraction; earlier: Earlier } {
  const texts: string[] = [];
  const kinds: ('branch' | 'compaction')[] = [];
  x.embedded.forEach((t, k) => {
    const kind = x.embeddedKinds?.[k] ?? 'compaction';
    if (request.kind === 'branch' && kind === 'compaction') return;
    texts.push(t);
    kinds.push(kind);
  });
  if (request.kind === 'update' && request.previousSummary) {
    texts.push(request.previousSummary);
    kinds.push('compaction');
  }
  const earlier = readEarlier(texts, kinds);
  const first = x.turns[0];
  if (!earlier.openRequest || !first || first.trigger.kind !== 'outside') return { x, earlier };
  const turns = x.turns.slice();
  turns[0] = { ...first, request: earlier.openRequest, trigger: { kind: 'user', text: earlier.openRequest } };
  return { x: { ...x, turns }, earlier };
}
