import { parseCommand, requireFile, stringFlag } from '../args';
import { printJson, reportDiagnostics, type Io } from '../output';
import { SUMMARIZER_FLAGS, interruptSignal, summarizerFrom } from '../summarizerArgs';
import { estimatorFrom, openSession } from '../sessionArgs';
import { navigateSession } from '../../engine/operations/navigate';
import { ArborUsageError } from '../../engine/session/diagnostics';
import { FORCE_FLAG, plannedLeaf, writeRouteFor } from '../writeRouteArgs';

const USAGE = 'arbor navigate FILE --to ID [--summarize] [--instructions TEXT] [--replace-instructions] [--label TEXT] [--provider ...] [--model ID] [--base-url URL] [--deadline SECONDS] [--max-answer-chars N] [--force] [--pi-wait SECONDS] [--json]';

export async function navigateCommand(argv: string[], io: Io): Promise<number> {
  const p = parseCommand(argv, {
    ...SUMMARIZER_FLAGS,
    to: { type: 'string' },
    summarize: { type: 'boolean' },
    instructions: { type: 'string' },
    'replace-instructions': { type: 'boolean' },
    label: { type: 'string' },
    estimator: { type: 'string' },
    ...FORCE_FLAG,
  });
  const file = requireFile(p, USAGE);
  const to = stringFlag(p.flags, 'to');
  if (!to) throw new ArborUsageError(`--to ID is required; usage: ${USAGE}`);
  const summarize = p.flags.summarize === true;
  const instructions = stringFlag(p.flags, 'instructions');
  if ((instructions || p.flags['replace-instructions']) && !summarize) throw new ArborUsageError('--instructions and --replace-instructions go with --summarize');
  const estimator = estimatorFrom(p.flags);
  const summarizer = summarize ? summarizerFrom(p.flags) : undefined;
  const index = await openSession(file);
  reportDiagnostics(io, index);
  const signal = interruptSignal();
  const route = await writeRouteFor(index, p.flags, signal);
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
    if (p.flags.json) printJson(io, { moved: false, reason: result.reason });
    else io.out(`nothing written: ${result.reason}`);
    return 0;
  }
  if (p.flags.json) {
    printJson(io, { moved: true, newLeafId: result.newLeafId, editorText: result.editorText, entries: result.written, summaryEntry: result.summaryEntry ?? null, via: route.via });
    return 0;
  }
  if (result.written.length === 0) io.out(`moved to ${result.newLeafId ?? '(root)'} in the running Pi (pid ${route.via === 'pi' ? route.state.pid : '?'}); nothing written: Pi holds the leaf in memory, as after its own /tree, and its next entry goes there`);
  else io.out(`moved to ${result.newLeafId ?? '(root)'}; wrote ${result.written.map((e) => `${e.type} ${e.id}`).join(', ')}${route.via === 'pi' ? ` (written by the running Pi, pid ${route.state.pid})` : ''}`);
  if (result.editorText !== null) io.out(`text to edit and resend: ${result.editorText}`);
  if (result.summaryEntry) io.out(`\n${result.summaryEntry.summary}`);
  return 0;
}
