/**
 * How a probe (test/fixtures/summary-probes/*.json) is matched against a summary's text, apart from running the engine
 * (summaryProbes.ts) so that the rules can be unit-tested on small texts.
 *
 * Sections: a Markdown heading line (`#` to `######`) starts a section named by its text (`**`, backticks and a trailing
 * colon stripped). Text before any heading is the section "preamble"; so is the text after a `---` rule up to the next
 * heading (the turn-context part of a split-turn summary), whose own headings are sections like any other. A
 * `<read-files>` or `<modified-files>` block is a section of that name ("read-files", "modified-files"), a path a line
 * an item. A section's path is its heading and the headings it sits under (a `###` under a `##`): a probe naming
 * "Progress" searches "Done", "In Progress" and "Blocked" under it too.
 *
 * Items: a line starting with `- `, `* `, `+ `, `N. ` or `N) ` (checkboxes included) starts an item; indented lines after
 * it (nested bullets too) and the lines of a fenced block continue it; any other non-empty line is an item of its own. An
 * item's lines are joined with a space before matching, so `.*` spans its continuation lines.
 *
 * A probe matches when every regex of `all` matches and, if `any` is not empty, one of `any` does: all within one item
 * when `sameItem` is true, else each anywhere in the searched sections (their items joined by newlines). Regexes are
 * JavaScript sources compiled with the flag `i` alone.
 */

export interface Probe {
  id: string;
  what: string;
  all: string[];
  any?: string[];
  /** Only these sections (by heading, or a heading they sit under) are searched. */
  section?: string | string[] | null;
  sameItem?: boolean;
}

export interface SummarySection {
  /** The heading text ("preamble" before any heading and after a `---` rule). */
  name: string;
  /** This section's name and those of the headings it sits under, outermost first. */
  path: string[];
  items: string[];
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^\s{0,3}(?:-{3,}|\*{3,}|_{3,})\s*$/;
const ITEM_START = /^(?:[-*+]\s+|\d+[.)]\s+)/;
const FENCE = /^\s*(?:```|~~~)/;
const FILE_BLOCK = /^\s*<(\/?)(read-files|modified-files)>\s*$/;

/** A heading's text as a section name: markup and a trailing colon stripped. */
export function sectionName(heading: string): string {
  return heading
    .replace(/[*_`]+/g, '')
    .replace(/:\s*$/, '')
    .trim();
}

/** Splits a summary into sections and items (the rules at the top of this file). */
export function parseSummarySections(text: string): SummarySection[] {
  const sections: SummarySection[] = [];
  let levels: { level: number; name: string }[] = [];
  let current: SummarySection = { name: 'preamble', path: ['preamble'], items: [] };
  sections.push(current);
  let item: string[] | null = null;
  let inFence = false;
  let beforeFileBlock: { section: SummarySection; levels: typeof levels } | null = null;
  const flush = () => {
    if (item && item.length > 0) current.items.push(item.join(' ').replace(/\s+/g, ' ').trim());
    item = null;
  };
  const open = (name: string, path: string[]) => {
    flush();
    current = { name, path, items: [] };
    sections.push(current);
  };
  for (const raw of text.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.replace(/\s+$/, '');
    if (inFence) {
      (item ??= []).push(line);
      if (FENCE.test(line)) inFence = false;
      continue;
    }
    if (FENCE.test(line)) {
      inFence = true;
      (item ??= []).push(line);
      continue;
    }
    const block = FILE_BLOCK.exec(line);
    if (block) {
      if (block[1] === '') {
        beforeFileBlock = { section: current, levels };
        open(block[2], [block[2]]);
      } else if (beforeFileBlock) {
        flush();
        current = beforeFileBlock.section;
        levels = beforeFileBlock.levels;
        beforeFileBlock = null;
      }
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const level = heading[1].length;
      const name = sectionName(heading[2]);
      levels = [...levels.filter((l) => l.level < level), { level, name }];
      open(
        name,
        levels.map((l) => l.name),
      );
      continue;
    }
    if (RULE.test(line)) {
      levels = [];
      open('preamble', ['preamble']);
      continue;
    }
    if (line.trim() === '') continue;
    if (/^\s/.test(line) && item) {
      item.push(line.trim());
      continue;
    }
    flush();
    item = [line.trim()];
    if (!ITEM_START.test(line.trim())) flush();
  }
  flush();
  return sections.filter((s) => s.items.length > 0 || s.name !== 'preamble');
}

function compile(source: string): RegExp {
  return new RegExp(source, 'i');
}

/** The sections a probe searches. */
export function searchedSections(sections: readonly SummarySection[], section: Probe['section']): SummarySection[] {
  if (section === undefined || section === null) return [...sections];
  const wanted = (Array.isArray(section) ? section : [section]).map((s) => sectionName(s).toLowerCase());
  return sections.filter((s) => s.path.some((p) => wanted.includes(p.toLowerCase())));
}

/** Whether a probe (a fact kept, or a false statement present) matches the summary. */
export function probeMatches(sections: readonly SummarySection[], probe: Probe): boolean {
  const all = probe.all.map(compile);
  const any = (probe.any ?? []).map(compile);
  const holds = (text: string) => all.every((r) => r.test(text)) && (any.length === 0 || any.some((r) => r.test(text)));
  const searched = searchedSections(sections, probe.section);
  if (probe.sameItem) return searched.some((s) => s.items.some(holds));
  return holds(searched.map((s) => s.items.join('\n')).join('\n'));
}

/** Why a probe is malformed, if it is (each regex must compile; `all` or `any` must hold one). */
export function probeProblems(probe: Probe): string[] {
  const out: string[] = [];
  if (typeof probe.id !== 'string' || probe.id === '') out.push('a probe has no id');
  if (typeof probe.what !== 'string' || probe.what.trim() === '') out.push(`${probe.id}: no "what"`);
  if (!Array.isArray(probe.all)) out.push(`${probe.id}: "all" is not a list`);
  if (probe.any !== undefined && !Array.isArray(probe.any)) out.push(`${probe.id}: "any" is not a list`);
  if ((probe.all?.length ?? 0) + (probe.any?.length ?? 0) === 0) out.push(`${probe.id}: no regex`);
  for (const source of [...(probe.all ?? []), ...(probe.any ?? [])]) {
    try {
      compile(source);
    } catch (err) {
      out.push(`${probe.id}: /${source}/ does not compile (${(err as Error).message})`);
    }
  }
  return out;
}
