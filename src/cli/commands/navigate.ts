import { stringFlag } from '../args';
import { parseWith, ESTIMATOR_OPTION, FILE_POSITIONAL, JSON_OPTION, usageError, type CommandSpec } from '../commandSpec';
import { printJson, reportDiagnostics, type Io } from '../output';
import { SUMMARIZER_OPTIONS, interruptSignal, piSummarizerFor, summarizerChoice, summarizerFrom } from '../summarizerArgs';
import { estimatorFrom, openSession } from '../sessionArgs';
import { ARBOR_LEAF_MARKER, navigateSession } from '../../engine/operations/navigate';
import type { SessionEntry } from '../../engine/session/types';
import { WRITE_ROUTE_OPTIONS, plannedLeaf, reportForced, routeJson, writeRouteFor } from '../writeRouteArgs';
import { printRetention, retentionJson } from '../retentionOutput';

export const navigateSpec: CommandSpec = {
  name: 'navigate',
  summary: 'moves the leaf to another entry, optionally with a summary of the branch left behind and a label',
  positionals: [FILE_POSITIONAL],
  options: {
    to: { type: 'string', value: 'ID', description: 'the entry to move to', required: true },
    summarize: { type: 'boolean', description: 'append a summary of the branch left behind' },
    instructions: { type: 'string', value: 'TEXT', description: 'what the branch summary should focus on (with --summarize)' },
    'replace-instructions': {
      type: 'boolean',
      description: "--instructions replace Arbor's own instead of adding to them (with --summarize)",
    },
    label: { type: 'string', value: 'TEXT', description: 'a label for the entry moved to' },
    ...SUMMARIZER_OPTIONS,
    ...ESTIMATOR_OPTION,
    ...WRITE_ROUTE_OPTIONS,
    ...JSON_OPTION,
  },
  examples: ['arbor navigate session.jsonl --to 3f2a9c1d --summarize --label "before the refactor"'],
};

export async function navigateCommand(argv: string[], io: Io): Promise<number> {
  const p = parseWith(navigateSpec, argv);
  const [file] = p.positionals;
  const to = stringFlag(p.flags, 'to');
  if (!to) throw usageError(navigateSpec, '--to ID is required');
  const summarize = p.flags.summarize === true;
  const instructions = stringFlag(p.flags, 'instructions');
  if ((instructions || p.flags['replace-instructions']) && !summarize)
    throw usageError(navigateSpec, '--instructions and --replace-instructions go with --summarize');
  const estimator = estimatorFrom(p.flags);
  // --provider pi: Pi's own model, through the running Pi that holds the session (known once the route is).
  const byPi = summarize && summarizerChoice(p.flags).provider === 'pi';
  const given = summarize && !byPi ? summarizerFrom(p.flags) : undefined;
  // The run step (proposeNavigation) loads what it reads: the branch left behind a batch at a time (loadBranchPlan).
  const index = await openSession(file);
  reportDiagnostics(io, index);
  const signal = interruptSignal();
  const route = await writeRouteFor(index, p.flags, { signal, io, waitFor: 'plan' });
  const summarizer = byPi ? piSummarizerFor(file, route) : given;
  const result = await navigateSession({
    file,
    index,
    route,
    fromId: plannedLeaf(route),
    targetId: to,
    summarize,
    customInstructions: instructions,
    replaceInstructions: p.flags['replace-instructions'] === true,
    label: stringFlag(p.flags, 'label'),
    summarizer,
    estimator: estimator.name,
    signal,
  });
  if ('kind' in result) {
    if (p.flags.json) await printJson(io, { moved: false, reason: result.reason });
    else io.out(`nothing written: ${result.reason}`);
    return 0;
  }
  if (p.flags.json) {
    await printJson(io, {
      moved: true,
      newLeafId: result.newLeafId,
      editorText: result.editorText,
      entries: result.written,
      summaryEntry: result.summaryEntry ?? null,
      ...routeJson(route),
      ...(result.retention ? { retention: retentionJson(result.retention) } : {}),
    });
    return 0;
  }
  if (result.written.length === 0)
    io.out(
      `moved to ${result.newLeafId ?? '(root)'} in the running Pi (pid ${route.via === 'pi' ? route.state.pid : '?'}); ` +
        `nothing written: Pi holds the leaf in memory, as after its own /tree, and its next entry goes there`,
    );
  else
    io.out(
      `moved to ${result.newLeafId ?? '(root)'}; wrote ` +
        `${result.written.map(describeWritten).join(', ')}${route.via === 'pi' ? ` (written by the running Pi, pid ${route.state.pid})` : ''}`,
    );
  reportForced(io, route);
  if (result.editorText !== null) io.out(`text to edit and resend: ${result.editorText}`);
  if (result.summaryEntry) io.out(`\n${result.summaryEntry.summary}`);
  if (result.retention) {
    io.out('');
    printRetention(io, result.retention);
  }
  return 0;
}

/** An entry the jump wrote, in words: "branch summary 3f2a9c1d", "label 77ab01c2", "leaf-move record 6fb58e8b". */
function describeWritten(e: SessionEntry): string {
  if (e.type === 'branch_summary') return `branch summary ${e.id}`;
  if (e.type === 'custom' && e.customType === ARBOR_LEAF_MARKER)
    return `leaf-move record ${e.id} (where the leaf now is, for Pi to resume there)`;
  return `${e.type.replace(/_/g, ' ')} ${e.id}`;
}
