import { intFlag, parseCommand, requireFile, stringFlag } from '../args';
import { printJson, reportDiagnostics, type Io, shortField } from '../output';
import { SUMMARIZER_FLAGS, interruptSignal, summarizerFrom } from '../summarizerArgs';
import { estimatorFrom, openSession } from '../sessionArgs';
import { compactSession } from '../../engine/operations/compact';
import { entryIdsAt } from '../../engine/compaction/planCompaction';
import { printRetention, retentionJson } from '../retentionOutput';

const USAGE = 'arbor compact FILE [--instructions TEXT] [--provider offline|openai|anthropic] [--model ID] [--base-url URL] [--deadline SECONDS] [--max-answer-chars N] [--keep-recent-tokens N] [--estimator chars|tokenizer] [--json]';

export async function compactCommand(argv: string[], io: Io): Promise<number> {
  const p = parseCommand(argv, { ...SUMMARIZER_FLAGS, instructions: { type: 'string' }, 'keep-recent-tokens': { type: 'string' }, estimator: { type: 'string' } });
  const file = requireFile(p, USAGE);
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
      retention: retentionJson(proposal.retention),
    });
    return 0;
  }
  io.out(`compacted ${file} with ${shortField(`${summarizer.provider}/${summarizer.model}`)}: entry ${entry.id}, keeping from ${entry.firstKeptEntryId}, ${entry.tokensBefore} tokens before`);
  io.out('');
  io.out(entry.summary);
  io.out('');
  printRetention(io, proposal.retention);
  return 0;
}
