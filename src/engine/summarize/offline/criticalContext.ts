import { backticked } from './text';
import { callPath, isShell, sameTarget, type Extraction } from './extract';
import { LABELS } from './earlier';
import { clip, code, latest, squash, unique } from './text';
import { mentionsFocus } from './instructions';
import { RECENT_ERRORS, recentCommands } from './recent';
import { sameSaying } from './distinctItems';
import type { Caps, Parts } from './parts';

/**
 * A compaction summary's Critical Context: the messages extensions and hooks
 * sent the model (those no turn answered: an answered one is its turn's
 * trigger in Done), work left behind on another branch with the files it
 * changed, the lines the session read about the instructions' focus, the
 * created and modified files, the last commands and the errors still open.
 */

/** A file that holds prose, whose lines may state a rule or a format (not code, where a focus word is incidental). */
const PROSE_FILE = /(?:\.(?:md|markdown|txt|rst|adoc)|(?:^|\/)(?:README|CONTRIBUTING|LICENSE|NOTES|TODO)[^/]*)$/i;

/** True when a text names (in backticks) a target that later work used successfully. */
export function resolvedBy(item: string, x: Extraction, cwd: string | undefined): boolean {
  const names = new Set(backticked(item).map((n) => sameTarget(n, cwd)));
  if (!names.size) return false;
  return x.turns.some((t) =>
    t.calls.some((c) => c.result && !c.result.isError && c.target !== undefined && names.has(sameTarget(c.target, cwd))),
  );
}

export function criticalContext(parts: Parts, caps: Caps, openErrors: string[], abandoned: string[]): string[] {
  const { x, earlier, focus, cwd } = parts;
  const turns = x.turns;
  const cc: string[] = [...unique(earlier.other)];
  // A message a turn answered is that turn's trigger in Done: not repeated here.
  const answered = new Set(turns.filter((t) => t.trigger.kind === 'custom').map((t) => t.trigger.text));
  const notes = unique(
    x.notes.filter((n) => !answered.has(n.text)).map((n) => `${LABELS.note} (${n.customType}): ${n.text}`),
    sameSaying,
  );
  cc.push(...latest(notes, caps.notes));
  for (const a of latest(abandoned, 3)) cc.push(`${LABELS.abandoned} ${clip(a, 300)}`);
  // What the span read and said about the instructions' focus (a rule in a file the agent read, a format).
  if (focus.terms.length) {
    // Files read first (a rule, a format), then command output; a test runner's per-test lines say nothing of the focus.
    const read: string[] = [];
    const ran: string[] = [];
    for (const t of turns)
      for (const o of t.outputs) {
        const [command, text] = o.split('\u0000');
        for (const line of text.split('\n', 40)) {
          const l = squash(line);
          if (l.length < 8 || /^(?:not )?ok\b|^#|^at /.test(l) || !mentionsFocus(l, focus)) continue;
          if (command.startsWith('read ')) {
            if (PROSE_FILE.test(command.slice(5).trim())) read.push(l);
          } else ran.push(l);
        }
      }
    const shown = unique([...read, ...latest(ran, 2)]).slice(0, caps.notes + 2);
    if (shown.length) cc.push(`${LABELS.focus} ${shown.map((l) => `"${clip(l, 160)}"`).join('; ')}`);
  }
  const created = unique([...earlier.created, ...turns.flatMap((t) => t.created)]);
  const createdSet = new Set(created.map((f) => sameTarget(f, cwd)));
  const modified = unique([...earlier.modified, ...x.filesModified]).filter((f) => !createdSet.has(sameTarget(f, cwd)));
  if (created.length) cc.push(`${LABELS.created} ${latest(created, caps.files).map(code).join(', ')}`);
  if (modified.length) {
    const shown = latest(modified, caps.files);
    cc.push(
      `${LABELS.modified} ${shown.map(code).join(', ')}` +
        (modified.length > shown.length ? ` (and ${modified.length - shown.length} earlier ones, all in <modified-files>)` : ''),
    );
  }
  const commands = unique(recentCommands(turns).map((c) => clip(c, 120)));
  if (commands.length) cc.push(`${LABELS.commands} ${latest(commands, caps.commands).map(code).join('; ')}`);
  const carriedErrors = earlier.errors.filter((e) => !resolvedBy(e, x, cwd));
  for (const e of latest(unique([...carriedErrors, ...openErrors]), Math.max(caps.errors, RECENT_ERRORS))) cc.push(`${LABELS.error} ${e}`);
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
        .flatMap((t) => [...t.calls.filter((c) => isShell(c.tool) && c.target).map((c) => c.target!), ...t.userRuns.map((r) => r.command)])
        .map((c) => clip(c, 120)),
    );
    if (all.length) cc.push(`${LABELS.allCommands} ${latest(all, caps.files).map(code).join('; ')}`);
  }
  if (focus.keepErrors) {
    const all = unique(x.problems.filter((p) => p.resolved).map((p) => `${p.what}: ${p.error}`));
    if (all.length) cc.push(`${LABELS.earlierErrors} ${latest(all, caps.errors).join('; ')}`);
  }
  return cc;
}
