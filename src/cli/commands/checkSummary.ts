import { printJson, shortField, type Io } from '../output';
import { openSummaryEntry, SUMMARY_ENTRY_OPTION } from './summary';
import { FILE_POSITIONAL, JSON_OPTION, type CommandSpec } from '../commandSpec';
import { checkRetention, deriveFacts, entrySourceWalk } from '../../engine/summarize/retention';
import { runEntryWalk } from '../../engine/session/entryWalkLoads';
import { entryFields } from '../../engine/session/entryKinds';
import { printRetention, retentionJson } from '../retentionOutput';

export const checkSummarySpec: CommandSpec = {
  name: 'check-summary',
  summary: 'which facts of the span a summary already in the file keeps and which it drops (exit 0 whatever it finds)',
  positionals: [FILE_POSITIONAL],
  options: { ...SUMMARY_ENTRY_OPTION, ...JSON_OPTION },
  examples: ['arbor check-summary session.jsonl', 'arbor check-summary session.jsonl --entry 3f2a9c1d --json'],
};

/**
 * Issue 19: the retention check of a summary already in the file (one Pi or
 * a model wrote, say): which facts of the span it summarized it keeps and
 * which it drops. Exit 0 whatever it finds.
 */
export async function checkSummaryCommand(argv: string[], io: Io): Promise<number> {
  const { p, index, i } = await openSummaryEntry(checkSummarySpec, argv, io);
  // The summarized span is read a batch at a time (the entry itself, a summary, is in memory).
  const source = await runEntryWalk(index, entrySourceWalk(index, i));
  const entry = entryFields(index.entry(i));
  const report = checkRetention(String(entry.summary ?? ''), deriveFacts(source), { cwd: index.header.cwd });
  if (p.flags.json) {
    await printJson(io, {
      entryId: entry.id,
      type: entry.type,
      summarizedMessages: source.messages.length,
      retention: retentionJson(report),
    });
    return 0;
  }
  io.out(`${entry.type} ${shortField(String(entry.id))}: ${source.messages.length} summarized messages`);
  printRetention(io, report, { kept: true });
  return 0;
}
