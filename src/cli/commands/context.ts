import { intFlag, type ParsedCommand } from '../args';
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
import { withContextLoaded } from '../../engine/operations/entryLoads';
import { printJson, reportDiagnostics, shortField, type Io } from '../output';
import { buildContext } from '../../engine/context/buildContext';
import { estimateContextTokens } from '../../engine/context/contextTokens';
import { rowPreview } from '../../engine/tree/rowPreview';
import type { ContextParts } from '../../engine/context/contextParts';
import { compactionNumbers, contextFigureShort, contextFigureSources } from '../../engine/context/contextNumbers';
import { contextUse } from '../../engine/operations/contextUse';
import { contextWindowSourceForModel } from '../contextWindow';
import type { SessionIndex } from '../../engine/session/sessionIndex';
import type { TokenEstimator } from '../../engine/tokens/estimators';
import { subagentFiles } from '../../engine/session/agents/subagentLinks';
import { shownPath } from './files';

export const contextSpec: CommandSpec = {
  name: 'context',
  summary: 'what the LLM sees at the leaf: its messages with token counts, and the context figure',
  positionals: [FILE_POSITIONAL],
  options: { ...LEAF_OPTION, ...ESTIMATOR_OPTION, ...CONTEXT_WINDOW_OPTION, ...JSON_OPTION },
  examples: ['arbor context session.jsonl', 'arbor context session.jsonl --leaf 3f2a9c1d --json'],
};

/** Every compaction of the session with its before/after, as the tree and the panel show them. */
async function compactions(
  index: SessionIndex,
  estimator: TokenEstimator,
): Promise<{ entryId: string; tokensBefore: number | null; tokensAfter: number }[]> {
  const out = [];
  for (let i = 0; i < index.entryCount; i++) {
    if (index.record(i).type !== 'compaction') continue;
    // Each compaction's "after" reads the context it left: loaded one compaction at a time.
    const n = await withContextLoaded(index, i, () => compactionNumbers(index, i, estimator));
    out.push({ entryId: index.record(i).id, tokensBefore: n.tokensBefore ?? null, tokensAfter: n.tokensAfter });
  }
  return out;
}

export async function contextCommand(argv: string[], io: Io): Promise<number> {
  const p = parseWith(contextSpec, argv);
  const index = await openSession(p.positionals[0]);
  reportDiagnostics(io, index);
  const estimator = estimatorFrom(p.flags);
  const leafIndex = leafIndexFrom(index, p.flags);
  return withContextLoaded(index, leafIndex, () => printContext(p, io, index, leafIndex, estimator));
}

/** The context at `leafIndex`, printed; its entries are loaded (withContextLoaded). */
async function printContext(p: ParsedCommand, io: Io, index: SessionIndex, leafIndex: number, estimator: TokenEstimator): Promise<number> {
  const ctx = buildContext(index, leafIndex);
  // Pi's estimateContextTokens over the context's messages (JSON `contextTokens`, for parity with Pi's function);
  // it counts usage recorded before a compaction, so it is not the figure shown.
  const est = estimateContextTokens(
    ctx.messages.map((m) => m.message),
    estimator,
  );
  // The figure the extension shows (status bar, tree, panel): one function (contextUse), one window resolver.
  const windowFlag = intFlag(p.flags, 'context-window');
  // The messages' counts and the parts they make of the figure come from the same call (the panel shows the same).
  const use = await contextUse(index, leafIndex, {
    estimator,
    contextWindowFor: (model, recorded) => contextWindowSourceForModel(model, windowFlag, process.env, recorded),
    messages: true,
  });
  const { figure } = use;
  const parts = use.parts as ContextParts;
  const numbers = {
    tokens: figure.tokens,
    contextWindow: figure.contextWindow,
    percent: figure.percent,
    estimated: figure.estimated,
    windowSource: figure.windowSource,
  };
  // Claude Code's Agent/Task calls and their results name the subagent's transcript.
  const subagents = subagentFiles(index);
  const messages = use.messages.map((m) => {
    const entryId = index.record(m.entryIndex).id;
    const files = subagents.size ? subagents.get(entryId) : undefined;
    return { entryId, role: m.message.role, tokens: m.tokens, ...(files ? { subagentFiles: files } : {}) };
  });
  if (p.flags.json) {
    await printJson(io, {
      leafId: ctx.leafId,
      model: ctx.model,
      thinkingLevel: ctx.thinkingLevel,
      estimator: estimator.name,
      messages,
      contextTokens: { tokens: est.tokens, usageTokens: est.usageTokens, trailingTokens: est.trailingTokens },
      numbers: { ...numbers, compactions: await compactions(index, estimator) },
      parts: {
        byRole: parts.byRole,
        messagesTokens: parts.messagesTokens,
        other: { tokens: parts.otherTokens, meaning: parts.otherMeaning },
        total: parts.total,
      },
    });
    return 0;
  }
  io.out(
    `leaf ${shortField(String(ctx.leafId))}  model ` +
      `${ctx.model ? shortField(`${ctx.model.provider}/${ctx.model.modelId}`) : '-'}  thinking ${shortField(String(ctx.thinkingLevel))}`,
  );
  use.messages.forEach((m, k) => {
    const pv = rowPreview(index, m.entryIndex, 200);
    const subagent = (messages[k].subagentFiles ?? []).map((f) => `  subagent ${shownPath(f)}`).join('');
    const head = `${shortField(messages[k].entryId)} ${shortField(m.message.role, 24).padEnd(17)} ${String(messages[k].tokens).padStart(7)}`;
    io.out(`${head}  ${shortField(pv.text, 70)}${subagent}`);
  });
  // The parts, which add up to the figure.
  for (const r of parts.byRole)
    io.out(`  ${shortField(r.role, 24).padEnd(17)} ${String(r.tokens).padStart(7)}  (${r.count} message${r.count === 1 ? '' : 's'})`);
  io.out(`  ${'other'.padEnd(17)} ${String(parts.otherTokens).padStart(7)}  (${parts.otherMeaning})`);
  io.out(`context: ${contextFigureShort(figure)}: ${shortField(contextFigureSources(figure), 200)}`);
  return 0;
}
