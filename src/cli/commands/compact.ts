import { intFlag, stringFlag } from '../args';
import { parseWith, ESTIMATOR_OPTION, FILE_POSITIONAL, JSON_OPTION, type CommandSpec } from '../commandSpec';
import { printJson, reportDiagnostics, type Io, shortField } from '../output';
import { SUMMARIZER_OPTIONS, interruptSignal, piSummarizerFor, summarizerChoice, summarizerFrom } from '../summarizerArgs';
import { estimatorFrom, openSession } from '../sessionArgs';
import { compactSession } from '../../engine/operations/compact';
import { entryIdList } from '../entryIdList';
import { counted } from '../../engine/text/plural';
import { WRITE_ROUTE_OPTIONS, plannedLeaf, reportForced, routeJson, writeRouteFor } from '../writeRouteArgs';
import { printRetention, retentionJson } from '../retentionOutput';
import { DEFAULT_PI_SETTINGS } from '../../engine/settings/piSettings';
import { printNothingToCompact } from '../nothingToCompactOutput';
import { assertSameCompaction } from '../../engine/operations/piMovedOn';

export const compactSpec: CommandSpec = {
  name: 'compact',
  summary:
    'summarizes the older part of the session and appends a compaction entry (what Pi would write; through a running Pi, Pi writes it)',
  positionals: [FILE_POSITIONAL],
  options: {
    instructions: { type: 'string', value: 'TEXT', description: 'what the summary should focus on' },
    ...SUMMARIZER_OPTIONS,
    'keep-recent-tokens': {
      type: 'string',
      value: 'N',
      description: 'tokens of recent messages kept as they are',
      default: `Pi's compaction.keepRecentTokens (${DEFAULT_PI_SETTINGS.compaction.keepRecentTokens})`,
    },
    'allow-larger': {
      type: 'boolean',
      description: 'write the compaction even when it leaves the context no smaller than now (without it, nothing is written then)',
    },
    ...ESTIMATOR_OPTION,
    ...WRITE_ROUTE_OPTIONS,
    ...JSON_OPTION,
  },
  examples: [
    'arbor compact session.jsonl',
    'arbor compact session.jsonl --provider openai --model gpt-4.1-mini --instructions "keep the API decisions"',
    "arbor compact session.jsonl --provider pi   (the running Pi's own model writes it)",
  ],
};

export async function compactCommand(argv: string[], io: Io): Promise<number> {
  const p = parseWith(compactSpec, argv);
  const [file] = p.positionals;
  const keep = intFlag(p.flags, 'keep-recent-tokens');
  const estimator = estimatorFrom(p.flags);
  // --provider pi: Pi's own model, through the running Pi that holds the session (known once the route is).
  const byPi = summarizerChoice(p.flags).provider === 'pi';
  const given = byPi ? undefined : summarizerFrom(p.flags);
  const index = await openSession(file);
  reportDiagnostics(io, index);
  const signal = interruptSignal();
  // Before the summary is made: a running Pi without the bridge stops here (nothing to throw away later).
  const route = await writeRouteFor(index, p.flags, { signal, io, waitFor: 'plan' });
  // Pi was working when asked: its turn is read, and the compaction goes on only if its cut is the one asked for.
  await assertSameCompaction(index, route, { compaction: { keepRecentTokens: keep }, estimator: estimator.name, signal });
  const summarizer = given ?? piSummarizerFor(file, route);
  const result = await compactSession({
    file,
    index,
    route,
    leafId: plannedLeaf(route),
    summarizer,
    customInstructions: stringFlag(p.flags, 'instructions'),
    compaction: { keepRecentTokens: keep },
    estimator: estimator.name,
    allowLarger: p.flags['allow-larger'] === true,
    signal,
  });
  if (result.kind === 'notSmaller') {
    const { tokensBefore, tokensAfter, summaryTokens, replacedTokens } = result.proposal;
    if (p.flags.json)
      await printJson(io, { notSmaller: true, summaryTokens, replacedTokens, tokensBefore, tokensAfter, reason: result.reason });
    else
      io.out(
        `nothing written: ${result.reason}. Keep fewer recent tokens (--keep-recent-tokens, now ` +
          `${result.proposal.settings.keepRecentTokens}) to summarize more, or pass --allow-larger to write it anyway.`,
      );
    return 0;
  }
  if (result.kind === 'nothing') {
    if (p.flags.json) await printJson(io, { nothingToCompact: true, cancelled: false, reason: result.reason, why: result.why });
    else printNothingToCompact(io, result.why, 'nothing written: ');
    return 0;
  }
  if (result.kind !== 'compacted') {
    if (p.flags.json) await printJson(io, { nothingToCompact: false, cancelled: true, reason: result.reason });
    else io.out(`nothing written: ${result.reason}`);
    return 0;
  }
  const { entry, proposal } = result;
  if (p.flags.json) {
    await printJson(io, {
      entry,
      summarizedEntryIds: entryIdList(proposal.plan.projection, proposal.plan.summarizePositions),
      turnPrefixEntryIds: entryIdList(proposal.plan.projection, proposal.plan.turnPrefixPositions),
      isSplitTurn: proposal.plan.isSplitTurn,
      provider: summarizer.provider,
      model: summarizer.model,
      ...routeJson(route),
      retention: retentionJson(proposal.retention),
    });
    return 0;
  }
  io.out(
    `compacted ${file} with ${shortField(`${summarizer.provider}/${summarizer.model}`)}: entry ${entry.id}, keeping ` +
      `from ${entry.firstKeptEntryId}, ${counted(entry.tokensBefore, 'token')} before`,
  );
  if (route.via === 'pi') io.out(`written by the running Pi (pid ${route.state.pid}), which continues from the compaction`);
  reportForced(io, route);
  io.out('');
  io.out(entry.summary);
  io.out('');
  printRetention(io, proposal.retention);
  return 0;
}
