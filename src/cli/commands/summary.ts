import { entryFields, entryTypeOf } from '../../engine/session/entryKinds';
import { stringFlag, type ParsedCommand } from '../args';
import { parseWith, FILE_POSITIONAL, JSON_OPTION, type CommandSpec, type OptionSpec } from '../commandSpec';
import { printJson, reportDiagnostics, shortField, type Io } from '../output';
import { openSession } from '../sessionArgs';
import { parseSummary } from '../../engine/summarize/parseSummary';
import { SECTION_TITLES, summarySections } from '../../engine/summarize/summarySections';
import { summaryFileLists } from '../../engine/summarize/summaryFileLists';
import { ArborUsageError } from '../../engine/session/diagnostics';
import type { SessionIndex } from '../../engine/session/sessionIndex';
import { counted } from '../../engine/text/plural';
import { latestSummaryOnPath, newestSummaryInFile } from '../../engine/tree/latestSummary';
import { PIN_EMOJI } from '../../engine/compaction/pinFormat';
import { pinnedPartCaption, pinnedPartView } from '../../engine/compaction/pinnedParts';

/** --entry ID of the commands that read one summary entry. */
export const SUMMARY_ENTRY_OPTION: Record<string, OptionSpec> = {
  entry: { type: 'string', value: 'ID', description: 'the compaction or branch summary entry', default: "the newest on the leaf's path" },
};

export const summarySpec: CommandSpec = {
  name: 'summary',
  summary: 'a compaction or branch summary, parsed into its sections',
  positionals: [FILE_POSITIONAL],
  options: { ...SUMMARY_ENTRY_OPTION, ...JSON_OPTION },
  examples: ['arbor summary session.jsonl', 'arbor summary session.jsonl --entry 3f2a9c1d --json'],
};

/** FILE [--entry ID] [--json]: the session and the summary entry named (default: the newest on the leaf's path). */
export async function openSummaryEntry(
  spec: CommandSpec,
  argv: string[],
  io: Io,
): Promise<{ p: ParsedCommand; index: SessionIndex; i: number }> {
  const p = parseWith(spec, argv);
  const index = await openSession(p.positionals[0]);
  reportDiagnostics(io, index);
  const id = stringFlag(p.flags, 'entry');
  const i = id ? index.indexOf(id) : latestSummaryOnPath(index);
  if (i < 0) throw new ArborUsageError(id ? `entry "${id}" is not in ${index.file}` : noSummaryOnPath(index));
  return { p, index, i };
}

/** Why there is no default summary: none in the file, or none on the leaf's path (naming the newest elsewhere). */
function noSummaryOnPath(index: SessionIndex): string {
  const elsewhere = newestSummaryInFile(index);
  if (elsewhere < 0) return `${index.file} has no compaction or branch summary`;
  const id = index.record(elsewhere).id;
  return `${index.file} has no compaction or branch summary on the leaf's path; the newest on another branch is ${id} (--entry ${id})`;
}

export async function summaryCommand(argv: string[], io: Io): Promise<number> {
  const { p, index, i } = await openSummaryEntry(summarySpec, argv, io);
  // A summary entry is parsed at load and stays; --entry may name a message, whose line is read for the error below.
  const e = await index.withLoaded([i], () => index.entry(i), { keep: false });
  if (e.type !== 'compaction' && e.type !== 'branch_summary') {
    throw new ArborUsageError(`entry "${e.id}" is a ${entryTypeOf(e)}, not a compaction or branch summary`);
  }
  const entry = entryFields(e);
  const text = String(entry.summary ?? '');
  const parsed = parseSummary(text);
  if (p.flags.json) {
    await printJson(io, {
      entryId: entry.id,
      type: entry.type,
      tokensBefore: entry.tokensBefore ?? null,
      firstKeptEntryId: entry.firstKeptEntryId ?? null,
      fromId: entry.fromId ?? null,
      fromHook: entry.fromHook === true,
      usage: entry.usage ?? null,
      details: entry.details ?? null,
      parsed,
      text,
    });
    return 0;
  }
  // The panel's section model: every part the entry holds (pinned part, turn context, other sections), then the file lists.
  const before = entry.tokensBefore;
  const tokensBefore = typeof before === 'number' ? counted(before, 'token') : `${shortField(String(before))} tokens`;
  io.out(`${entry.type} ${entry.id}${before !== undefined ? `, ${tokensBefore} before` : ''}`);
  const sections = summarySections(parsed);
  for (const [key, title] of SECTION_TITLES) {
    if (key === 'criticalContext' && entry.type !== 'compaction' && !sections.criticalContext) continue;
    const body = sections[key].trim();
    if (key === 'turnContext' || key === 'other') {
      if (body) io.out(`${title}:\n${indent(body)}`);
      continue;
    }
    io.out(`${title}:\n${body ? indent(body) : '  (none)'}`);
    if (key === 'criticalContext') printPins(io, parsed);
  }
  const list = (title: string, items: string[]) => {
    if (items.length) io.out(`${title}:\n${indent(items.map((x) => `- ${x}`).join('\n'))}`);
  };
  // The lists the panel shows: the entry's details, else the text's blocks.
  const files = summaryFileLists(entry.details, parsed);
  list('Read files', files.readFiles);
  list('Modified files', files.modifiedFiles);
  return 0;
}

/** The pinned entries the summary carries, as pins: `📌 name · what · entry id`, then the text indented under it. */
function printPins(io: Io, parsed: ReturnType<typeof parseSummary>): void {
  if (!parsed.pins.length && !parsed.pinsNote) return;
  const lines = parsed.pins.map((p) => {
    const pin = pinnedPartView(p);
    return `${PIN_EMOJI} ${pinnedPartCaption(pin)}\n${indent(pin.text.trim() || '(empty)')}`;
  });
  if (parsed.pinsNote) lines.push(parsed.pinsNote);
  io.out(`Pinned:\n${indent(lines.join('\n'))}`);
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => (l ? `  ${l}` : l))
    .join('\n');
}
