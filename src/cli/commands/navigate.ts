import { stringFlag, type Flags } from '../args';
import { parseWith, ESTIMATOR_OPTION, FILE_POSITIONAL, JSON_OPTION, usageError, type CommandSpec } from '../commandSpec';
import { printJson, reportDiagnostics, type Io } from '../output';
import { SUMMARIZER_OPTIONS, interruptSignal, piSummarizerFor, summarizerChoice, summarizerFrom } from '../summarizerArgs';
import { estimatorFrom, openSession } from '../sessionArgs';
import { ARBOR_LEAF_MARKER, applyNavigation, proposeNavigation, type NavigationProposal } from '../../engine/operations/navigate';
import { jumpAtLeaf, undoNavigation } from '../../engine/operations/undoNavigation';
import { counted } from '../../engine/text/plural';
import type { WriteRoute } from '../../engine/livePi/writeRoute';
import type { SessionEntry } from '../../engine/session/types';
import { WRITE_ROUTE_OPTIONS, plannedLeaf, reportForced, routeJson, writeRouteFor } from '../writeRouteArgs';
import { printRetention, retentionJson } from '../retentionOutput';
import { assertSameJump } from '../../engine/operations/piMovedOn';

export const navigateSpec: CommandSpec = {
  name: 'navigate',
  summary: 'moves the leaf to another entry, optionally with a summary of the branch left behind and a label',
  positionals: [FILE_POSITIONAL],
  synopsis: 'FILE (--to ID [--summarize [--dry-run]] | --undo)',
  options: {
    to: { type: 'string', value: 'ID', description: 'the entry to move to' },
    summarize: { type: 'boolean', description: 'append a summary of the branch left behind' },
    'dry-run': {
      type: 'boolean',
      description: 'print the proposed jump (the branch summary, its figures and retention check) and write nothing',
    },
    undo: {
      type: 'boolean',
      description: 'move the leaf back to where the jump that left it here came from (one more append; nothing is removed)',
    },
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
  examples: [
    'arbor navigate session.jsonl --to 3f2a9c1d --summarize --label "before the refactor"',
    'arbor navigate session.jsonl --to 3f2a9c1d --summarize --dry-run',
    'arbor navigate session.jsonl --undo',
  ],
};

export async function navigateCommand(argv: string[], io: Io): Promise<number> {
  const p = parseWith(navigateSpec, argv);
  const [file] = p.positionals;
  const to = stringFlag(p.flags, 'to');
  const dryRun = p.flags['dry-run'] === true;
  if (p.flags.undo) {
    if (to !== undefined || dryRun || p.flags.summarize || p.flags.label !== undefined)
      throw usageError(navigateSpec, '--undo goes without --to, --summarize, --dry-run and --label');
    return undoCommand(file, p.flags, io);
  }
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
  // Pi was working when asked: its turn is read, and the jump goes on only if it is still the one asked for.
  await assertSameJump(index, route, to, signal);
  const summarizer = byPi ? piSummarizerFor(file, route) : given;
  const proposal = await proposeNavigation({
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
  if (proposal.kind !== 'proposal') {
    if (p.flags.json) await printJson(io, { moved: false, reason: proposal.reason });
    else io.out(`nothing written: ${proposal.reason}`);
    return 0;
  }
  if (dryRun) {
    await printProposal(io, proposal, p.flags.json === true);
    return 0;
  }
  const result = await applyNavigation(proposal, { signal, route });
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

/** `--dry-run`: the jump as it would be written (the summary, its figures, its retention check); nothing is written. */
async function printProposal(io: Io, proposal: NavigationProposal, json: boolean): Promise<void> {
  const { summary } = proposal;
  if (json) {
    await printJson(io, {
      moved: false,
      dryRun: true,
      oldLeafId: proposal.oldLeafId,
      targetId: proposal.plan.targetId,
      newLeafId: proposal.newLeafId,
      editorText: proposal.editorText,
      label: proposal.label ?? null,
      summary: summary
        ? {
            text: summary.text,
            details: summary.details ?? null,
            usage: summary.usage ?? null,
            fromHook: summary.fromHook,
            tokensBefore: summary.numbers?.tokensBefore ?? null,
            tokensAfter: summary.numbers?.tokensAfter ?? null,
            summaryTokens: summary.numbers?.summaryTokens ?? null,
          }
        : null,
      ...(summary?.retention ? { retention: retentionJson(summary.retention) } : {}),
    });
    return;
  }
  io.out(`dry run: nothing written`);
  io.out(`would move from ${proposal.oldLeafId ?? '(root)'} to ${proposal.newLeafId ?? '(root)'} (target ${proposal.plan.targetId})`);
  if (proposal.label) io.out(`label: ${proposal.label}`);
  if (proposal.editorText !== null) io.out(`text to edit and resend: ${proposal.editorText}`);
  if (!summary) {
    io.out('no branch summary (pass --summarize for one)');
    return;
  }
  const n = summary.numbers;
  if (n)
    io.out(
      `context: ${counted(n.tokensBefore, 'token')} at the leaf left; ${counted(n.tokensAfter, 'token')} after the jump ` +
        `(the branch summary adds ${counted(n.summaryTokens, 'token')})`,
    );
  io.out(`\n${summary.text}`);
  if (summary.retention) {
    io.out('');
    printRetention(io, summary.retention, { kept: true });
  }
}

/** `--undo`: the leaf back where the jump that left it here came from, by one append. */
async function undoCommand(file: string, flags: Flags, io: Io): Promise<number> {
  const index = await openSession(file);
  reportDiagnostics(io, index);
  const signal = interruptSignal();
  const route = await writeRouteFor(index, flags, { signal, io, waitFor: 'write' });
  const leaf = plannedLeaf(route);
  const jump = jumpAtLeaf(index, leaf === undefined ? index.leafId : leaf);
  if ('none' in jump) {
    if (flags.json) await printJson(io, { moved: false, reason: jump.none });
    else io.out(`nothing written: ${jump.none}`);
    return 0;
  }
  const result = await undoNavigation(index, jump, { route, signal });
  if (flags.json) {
    await printJson(io, { moved: true, leafId: result.leafId, entries: result.written, ...routeJson(route) });
    return 0;
  }
  io.out(`moved back to ${result.leafId}; ${describeUndo(result.written, route)}`);
  reportForced(io, route);
  return 0;
}

function describeUndo(written: SessionEntry[], route: WriteRoute): string {
  if (written.length === 0)
    return `nothing written: the running Pi (pid ${route.via === 'pi' ? route.state.pid : '?'}) holds the leaf in memory`;
  const byPi = route.via === 'pi' ? ` (written by the running Pi, pid ${route.state.pid})` : '';
  return `wrote ${written.map(describeWritten).join(', ')}${byPi}; the jump's entries stay in the tree`;
}
