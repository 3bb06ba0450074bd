import { printJson, shortField, type Io } from '../output';
import { openSummaryEntry, SUMMARY_ENTRY_OPTION } from './summary';
import { FILE_POSITIONAL, JSON_OPTION, type CommandSpec } from '../commandSpec';
import { checkRetention, deriveFacts, entrySourceWalk } from '../../engine/summarize/retention';
import { runEntryWalk } from '../../engine/session/entryWalkLoads';
import { entryFields } from '../../engine/session/entryKinds';
import { printRetention, retentionJson } from '../retentionOutput';

export const checkSummarySpec: CommandSpec = {
  name: 'check-summary',
  summary:
    'which facts of the span a summary already in the file keeps, which it drops and what it states that the span contradicts (exit 0 whatever it finds)',
  positionals: [FILE_POSITIONAL],
  options: { ...SUMMARY_ENTRY_OPTION, ...JSON_OPTION },
  examples: ['arbor check-summary session.jsonl', 'arbor check-summary session.jsonl --entry 3f2a9c1d --json'],
};

/**
 * Issues 19 and 32: the retention check of a summary already in the file (one
 * Pi or a model wrote, say): which facts of the span it summarized it keeps,
 * which it drops, what it states that the span contradicts; or why the span
 * cannot be checked. Exit 0 whatever it finds.
 */
export async function checkSummaryCommand(argv: string[], io: Io): Promise<number> {
  const { p, index, i } = await openSummaryEntry(checkSummarySpec, argv, io);
  // The summarized span is read a batch at a time (the entry itself, a summary, is in memory).
  const source = await runEntryWalk(index, entrySourceWalk(index, i));
  const entry = entryFields(index.entry(i));
  const facts = deriveFacts(source);
  const report = checkRetention(String(entry.summary ?? ''), facts, { cwd: index.header.cwd });
  if (p.flags.json) {
    await printJson(io, {
      entryId: entry.id,
      type: entry.type,
      summarizedMessages: source.messages.length,
      spanNote: facts.note,
      retention: retentionJson(report),
    });
    return 0;
  }
  io.out(
    `${entry.type} ${shortField(String(entry.id))}: ` +
      (report.cannotCheck ? 'its summarized span cannot be checked' : `${source.messages.length} summarized messages`),
  );
  if (facts.note) io.out(`note: ${shortField(facts.note, 400)}`);
  printRetention(io, report, { kept: true });
  return 0;
}
