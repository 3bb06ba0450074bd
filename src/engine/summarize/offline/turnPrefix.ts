import { TURN_PREFIX_HEADINGS } from '../prompts';
import { callPath, sameTarget, type Extraction } from './extract';
import { LABELS } from './earlier';
import { clip, code, latest, unique } from './text';
import { RECENT_IDENTIFIERS, recentCommands } from './recent';
import { balanceMarkup, pendingItem, shortOutput, turnWork } from './turnItems';
import type { Caps } from './checkpoint';

/**
 * The turn-context part of a split-turn compaction: the turn's request, what
 * it did before the cut (its later messages are kept after the summary), and
 * what the rest of the turn needs.
 */

/** The turn-context part of a split turn: the request, what the turn did so far (its later messages are kept), what the rest needs. */
export function buildTurnPrefix(x: Extraction, caps: Caps, cwd: string | undefined): string {
  const out: string[] = [TURN_PREFIX_HEADINGS.request];
  const first = x.turns.find((t) => t.request);
  out.push(first ? clip(first.request!, caps.item) : '(the request is not part of this excerpt)');
  out.push('', TURN_PREFIX_HEADINGS.progress);
  const progress: string[] = [];
  for (const t of x.turns) {
    const work = turnWork(t, 3, cwd);
    if (work) progress.push(`- [x] ${balanceMarkup(clip(work.charAt(0).toUpperCase() + work.slice(1), caps.item))}`);
    if (t.found.length) progress.push(`- [x] Found: ${balanceMarkup(clip(latest(t.found, 8).join('; '), caps.item))}`);
    if (t.introduced.length) progress.push(`- [x] Introduced: ${balanceMarkup(clip(latest(t.introduced, 5).join('; '), caps.item))}`);
    // Each command's result once: one the work line already shows with its output is not repeated.
    const results = t.outputs
      .filter((o) => !/^(?:read|ls) /.test(o))
      .map((o) => o.split('\u0000'))
      .filter(([command]) => !work.includes(`${code(clip(command, 80))} →`))
      .map(([command, text]) => `${code(clip(command, 60))} → ${shortOutput(text, 6, 240) ?? '(long output)'}`);
    if (results.length) progress.push(`- [x] Results: ${balanceMarkup(clip(results.join(' | '), caps.item))}`);
    const titles = unique(t.calls.filter((c) => c.title).map((c) => `${code(sameTarget(c.path, cwd))} "${c.title}"`));
    if (titles.length) progress.push(`- [x] Read: ${balanceMarkup(clip(titles.join(', '), caps.item))}`);
  }
  const reads = unique(
    x.turns
      .flatMap((t) => t.calls.filter((c) => c.tool === 'read' && c.result && !c.result.isError).map((c) => callPath(c) ?? ''))
      .filter(Boolean),
  );
  const titled = new Set(x.turns.flatMap((t) => t.calls.filter((c) => c.title).map((c) => callPath(c))));
  const untitled = reads.filter((r) => !titled.has(r));
  if (untitled.length) progress.push(`- [x] Read ${latest(untitled, caps.files).map(code).join(', ')}`);
  for (const c of x.pending) progress.push(`- [ ] ${pendingItem(c)}`);
  // The turn goes on in the kept messages: a failure here is what it tried, not yet an open problem.
  for (const p of x.problems.filter((q) => !q.resolved))
    progress.push(`- Tried, failed so far: ${balanceMarkup(clip(`${p.what}: ${p.error}`, caps.item))}`);
  out.push(...(progress.length ? progress : ['(none)']));
  out.push('', TURN_PREFIX_HEADINGS.needed);
  const needed: string[] = [];
  for (const c of latest(x.constraints, caps.constraints)) needed.push(`- Constraint: ${c}`);
  const commands = unique(recentCommands(x.turns).map((c) => clip(c, 120)));
  if (commands.length) needed.push(`- ${LABELS.commands} ${latest(commands, RECENT_IDENTIFIERS).map(code).join('; ')}`);
  if (x.filesModified.length) needed.push(`- ${LABELS.modified} ${latest(x.filesModified, caps.files).map(code).join(', ')}`);
  for (const d of latest(x.decisions, 3))
    needed.push(`- Decided: ${balanceMarkup(clip(d.title, caps.item))}${d.rationale ? ` (${balanceMarkup(clip(d.rationale, 160))})` : ''}`);
  out.push(...(needed.length ? needed : ['(none)']));
  return out.join('\n');
}
