import { parseCommand, requireFile, stringFlag } from '../args';
import { printJson, reportDiagnostics, type Io } from '../output';
import { SUMMARIZER_FLAGS, interruptSignal, summarizerFrom } from '../summarizerArgs';
import { estimatorFrom, openSession } from '../sessionArgs';
import { navigateSession } from '../../engine/operations/navigate';
import { ArborUsageError } from '../../engine/session/diagnostics';
import { printRetention, retentionJson } from '../retentionOutput';

const USAGE = 'arbor navigate FILE --to ID [--summarize] [--instructions TEXT] [--replace-instructions] [--label TEXT] [--provider ...] [--model ID] [--base-url URL] [--deadline SECONDS] [--max-answer-chars N] [--json]';

export async function navigateCommand(argv: string[], io: Io): Promise<number> {
  const p = parseCommand(argv, {
    ...SUMMARIZER_FLAGS,
    to: { type: 'string' },
    summarize: { type: 'boolean' },
    instructions: { type: 'string' },
    'replace-instructions': { type: 'boolean' },
    label: { type: 'string' },
    estimator: { type: 'string' },
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
  const result = await navigateSession({
    file,
    index,
    targetId: to,
    summarize,
    customInstructions: instructions,
    replaceInstructions: p.flags['replace-instructions'] === true,
    label: stringFlag(p.flags, 'label'),
    summarizer,
    estimator: estimator.name,
    signal: interruptSignal(),
  });
  if ('kind' in result) {
    if (p.flags.json) printJson(io, { moved: false, reason: result.reason });
    else io.out(`nothing written: ${result.reason}`);
    return 0;
  }
  if (p.flags.json) {
    printJson(io, { moved: true, newLeafId: result.newLeafId, editorText: result.editorText, entries: result.written, summaryEntry: result.summaryEntry ?? null, ...(result.retention ? { retention: retentionJson(result.retention) } : {}) });
    return 0;
  }
  io.out(`moved to ${result.newLeafId ?? '(root)'}; wrote ${result.written.map((e) => `${e.type} ${e.id}`).join(', ')}`);
  if (result.editorText !== null) io.out(`text to edit and resend: ${result.editorText}`);
  if (result.summaryEntry) io.out(`\n${result.summaryEntry.summary}`);
  if (result.retention) {
    io.out('');
    printRetention(io, result.retention);
  }
  return 0;
}
