import { ArborUsageError } from '../../engine/session/diagnostics';
import { intFlag, stringFlag } from '../args';
import { parseWith, ESTIMATOR_OPTION, FILE_POSITIONAL, JSON_OPTION, usageError, type CommandSpec } from '../commandSpec';
import { openSession, estimatorFrom } from '../sessionArgs';
import { printJson, reportDiagnostics, type Io } from '../output';
import { loadBranchPlan } from '../../engine/branch/loadBranchPlan';
import { resolveBranchBudget } from '../../engine/operations/sessionSettings';
import { summarizerContextWindow } from '../../engine/summarize/providers/createSummarizer';
import { SUMMARIZER_CHOICE_OPTIONS, summarizerChoice } from '../summarizerArgs';
import { counted } from '../../engine/text/plural';

export const planBranchSpec: CommandSpec = {
  name: 'plan-branch',
  summary: "a jump's common ancestor, the branch left behind, what fits the summary budget, the new leaf",
  positionals: [FILE_POSITIONAL],
  options: {
    to: { type: 'string', value: 'ID', description: 'the entry to jump to', required: true },
    from: { type: 'string', value: 'ID', description: 'the entry to jump from', default: "the session's leaf" },
    budget: {
      type: 'string',
      value: 'N',
      description: 'tokens of the branch the summary may read',
      default: "the summarizer's context window - Pi's branchSummary.reserveTokens (the budget of navigate --summarize)",
    },
    ...SUMMARIZER_CHOICE_OPTIONS,
    ...ESTIMATOR_OPTION,
    ...JSON_OPTION,
  },
  examples: ['arbor plan-branch session.jsonl --to 3f2a9c1d'],
};

export async function planBranchCommand(argv: string[], io: Io): Promise<number> {
  const p = parseWith(planBranchSpec, argv);
  const [file] = p.positionals;
  const to = stringFlag(p.flags, 'to');
  if (!to) throw usageError(planBranchSpec, '--to ID is required');
  const budgetFlag = intFlag(p.flags, 'budget');
  const estimator = estimatorFrom(p.flags);
  const choice = summarizerChoice(p.flags);
  if (choice.provider === 'pi')
    throw new ArborUsageError('--provider pi: Pi budgets its own branch summary inside Pi; use `arbor navigate --summarize --provider pi`');
  const summarizerWindow = summarizerContextWindow({ ...choice, provider: choice.provider });
  const index = await openSession(file);
  reportDiagnostics(io, index);
  // The budget navigate --summarize would use with the same summarizer (one rule: engine/operations/branchBudget.ts).
  const budget = budgetFlag ?? (await resolveBranchBudget(index.header.cwd, summarizerWindow));
  // The branch left behind is loaded a batch at a time, newest first, until the budget (loadBranchPlan).
  const plan = await loadBranchPlan(index, { targetId: to, fromId: stringFlag(p.flags, 'from'), budget, estimator });
  const id = (i: number) => index.record(i).id;
  const result = {
    commonAncestorId: plan.commonAncestorId,
    entryIds: plan.entryIndexes.map(id),
    preparedEntryIds: plan.prepared.map((m) => id(m.entryIndex)),
    preparedTokens: plan.totalTokens,
    budget,
    readFiles: plan.readFiles,
    modifiedFiles: plan.modifiedFiles,
    newLeafId: plan.newLeafId,
    editorText: plan.editorText,
  };
  if (p.flags.json) {
    await printJson(io, result);
    return 0;
  }
  io.out(`jump from ${plan.oldLeafId} to ${to}`);
  io.out(`  common ancestor: ${plan.commonAncestorId ?? '-'}`);
  io.out(
    `  branch left behind: ${counted(result.entryIds.length, 'entry', 'entries')}; ` +
      `${counted(result.preparedEntryIds.length, 'message')} (${counted(plan.totalTokens, 'token')}) fit the budget of ${budget}`,
  );
  io.out(`  read files: ${plan.readFiles.join(', ') || '-'}`);
  io.out(`  modified files: ${plan.modifiedFiles.join(', ') || '-'}`);
  io.out(`  new leaf: ${plan.newLeafId ?? '(root)'}`);
  if (plan.editorText !== null) io.out(`  text handed back for editing: ${plan.editorText}`);
  return 0;
}
