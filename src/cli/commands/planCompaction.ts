import { intFlag } from '../args';
import {
  parseWith,
  CONTEXT_WINDOW_OPTION,
  ESTIMATOR_OPTION,
  FILE_POSITIONAL,
  JSON_OPTION,
  LEAF_OPTION,
  type CommandSpec,
} from '../commandSpec';
import { openSession, estimatorFrom, leafIndexFrom } from '../sessionArgs';
import { printJson, reportDiagnostics, type Io } from '../output';
import { entryIdList } from '../entryIdList';
import { planSessionCompaction } from '../../engine/operations/sessionCompactionPlan';
import { compactionThreshold } from '../../engine/context/contextTokens';
import { contextWindowForModel } from '../contextWindow';
import { counted } from '../../engine/text/plural';
import { DEFAULT_PI_SETTINGS } from '../../engine/settings/piSettings';
import { printNothingToCompact } from '../nothingToCompactOutput';
import { nothingToCompactReason } from '../../engine/compaction/nothingToCompact';

export const planCompactionSpec: CommandSpec = {
  name: 'plan-compaction',
  summary: 'where a compaction would cut, what it would summarize, file lists, tokensBefore, whether it is due',
  positionals: [FILE_POSITIONAL],
  options: {
    ...LEAF_OPTION,
    'keep-recent-tokens': {
      type: 'string',
      value: 'N',
      description: 'tokens of recent messages kept as they are',
      default: `Pi's compaction.keepRecentTokens (${DEFAULT_PI_SETTINGS.compaction.keepRecentTokens})`,
    },
    'reserve-tokens': {
      type: 'string',
      value: 'N',
      description: 'tokens kept free under the window (the threshold is window - N)',
      default: `Pi's compaction.reserveTokens (${DEFAULT_PI_SETTINGS.compaction.reserveTokens})`,
    },
    ...CONTEXT_WINDOW_OPTION,
    ...ESTIMATOR_OPTION,
    ...JSON_OPTION,
  },
  examples: ['arbor plan-compaction session.jsonl --keep-recent-tokens 8000'],
};

export async function planCompactionCommand(argv: string[], io: Io): Promise<number> {
  const p = parseWith(planCompactionSpec, argv);
  const [file] = p.positionals;
  const keep = intFlag(p.flags, 'keep-recent-tokens');
  const reserve = intFlag(p.flags, 'reserve-tokens');
  const windowFlag = intFlag(p.flags, 'context-window');
  const estimator = estimatorFrom(p.flags);
  const index = await openSession(file);
  reportDiagnostics(io, index);
  const leafIndex = leafIndexFrom(index, p.flags);
  const planned = await planSessionCompaction(index, {
    compaction: { keepRecentTokens: keep, reserveTokens: reserve },
    estimator,
    leafIndex,
    contextWindowFor: (model) => contextWindowForModel(model, windowFlag),
    previewReadOnly: true,
  });
  const readOnly = index.agent !== 'pi';
  const { plan, settings: compaction } = planned;
  const contextWindow = planned.contextWindow!;
  if (plan.kind === 'nothing') {
    if (p.flags.json) await printJson(io, { nothingToCompact: true, reason: plan.reason, why: plan.why });
    else printNothingToCompact(io, plan.why);
    return 0;
  }
  const result = {
    firstKeptEntryId: plan.firstKeptEntryId,
    isSplitTurn: plan.isSplitTurn,
    turnStartEntryId: plan.turnStartEntryId,
    tokensBefore: plan.tokensBefore,
    summarizeEntryIds: entryIdList(plan.projection, plan.summarizePositions),
    turnPrefixEntryIds: entryIdList(plan.projection, plan.turnPrefixPositions),
    previousSummary: plan.previousSummary,
    readFiles: plan.readFiles,
    modifiedFiles: plan.modifiedFiles,
    shouldCompact: plan.shouldCompact,
    settings: { ...compaction, contextWindow, estimator: estimator.name },
    ...(readOnly ? { readOnly: true } : {}),
  };
  if (p.flags.json) {
    await printJson(io, result);
    return 0;
  }
  io.out(`compaction plan for leaf ${plan.leafId} (keepRecentTokens ${compaction.keepRecentTokens}, ${estimator.name} estimate)`);
  io.out(
    `  context tokens now: ${plan.tokensBefore} of ${contextWindow} (threshold ` +
      `${compactionThreshold(contextWindow, compaction)}): ${plan.shouldCompact ? 'over the threshold, compaction due' : 'under the threshold'}`,
  );
  io.out(
    `  summarize ${counted(result.summarizeEntryIds.length, 'entry', 'entries')}${plan.previousSummary !== null ? ', updating the previous summary' : ''}`,
  );
  if (plan.isSplitTurn)
    io.out(
      `  split turn: the turn starting at ${plan.turnStartEntryId} is cut; ${result.turnPrefixEntryIds.length} entries of it become turn context`,
    );
  io.out(`  keep from ${plan.firstKeptEntryId}`);
  io.out(`  read files: ${plan.readFiles.join(', ') || '-'}`);
  io.out(`  modified files: ${plan.modifiedFiles.join(', ') || '-'}`);
  if (readOnly)
    io.out(`  ${nothingToCompactReason({ kind: 'readOnly', agent: index.agent as Exclude<typeof index.agent, 'pi'> })} (a preview only)`);
  return 0;
}
