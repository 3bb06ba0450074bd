import { intFlag, stringFlag } from '../args';
import { parseWith, ESTIMATOR_OPTION, FILE_POSITIONAL, JSON_OPTION, type CommandSpec } from '../commandSpec';
import { printJson, reportDiagnostics, type Io, shortField } from '../output';
import { SUMMARIZER_OPTIONS, interruptSignal, summarizerFrom } from '../summarizerArgs';
import { estimatorFrom, openSession } from '../sessionArgs';
import { compactSession } from '../../engine/operations/compact';
import { entryIdsAt } from '../../engine/compaction/planCompaction';
import { counted } from '../../engine/text/plural';

export const compactSpec: CommandSpec = {
  name: 'compact',
  summary: 'summarizes the older part of the session and appends a compaction entry (what Pi would write)',
  positionals: [FILE_POSITIONAL],
  options: {
    instructions: { type: 'string', value: 'TEXT', description: 'what the summary should focus on' },
    ...SUMMARIZER_OPTIONS,
    'keep-recent-tokens': { type: 'string', value: 'N', description: 'tokens of recent messages kept as they are', default: "Pi's compaction.keepRecentTokens (20000)" },
    ...ESTIMATOR_OPTION,
    ...JSON_OPTION,
  },
  examples: ['arbor compact session.jsonl', 'arbor compact session.jsonl --provider openai --model gpt-4.1-mini --instructions "keep the API decisions"'],
};

export async function compactCommand(argv: string[], io: Io): Promise<number> {
  const p = parseWith(compactSpec, argv);
  const [file] = p.positionals;
  const keep = intFlag(p.flags, 'keep-recent-tokens');
  const estimator = estimatorFrom(p.flags);
  const summarizer = summarizerFrom(p.flags);
  const index = await openSession(file);
  reportDiagnostics(io, index);
  const result = await compactSession({
    file,
    index,
    summarizer,
    customInstructions: stringFlag(p.flags, 'instructions'),
    compaction: { keepRecentTokens: keep },
    estimator: estimator.name,
    signal: interruptSignal(),
  });
  if (result.kind !== 'compacted') {
    if (p.flags.json) printJson(io, { nothingToCompact: result.kind === 'nothing', cancelled: result.kind === 'cancelled', reason: result.reason });
    else io.out(`nothing written: ${result.reason}`);
    return 0;
  }
  const { entry, proposal } = result;
  if (p.flags.json) {
    printJson(io, {
      entry,
      summarizedEntryIds: entryIdsAt(proposal.plan.projection, proposal.plan.summarizePositions),
      turnPrefixEntryIds: entryIdsAt(proposal.plan.projection, proposal.plan.turnPrefixPositions),
      isSplitTurn: proposal.plan.isSplitTurn,
      provider: summarizer.provider,
      model: summarizer.model,
    });
    return 0;
  }
  io.out(`compacted ${file} with ${shortField(`${summarizer.provider}/${summarizer.model}`)}: entry ${entry.id}, keeping from ${entry.firstKeptEntryId}, ${counted(entry.tokensBefore, 'token')} before`);
  io.out('');
  io.out(entry.summary);
  return 0;
}
