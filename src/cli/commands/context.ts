import { parseCommand, requireFile } from '../args';
import { openSession, estimatorFrom, leafIndexFrom } from '../sessionArgs';
import { printJson, reportDiagnostics, type Io } from '../output';
import { buildContext } from '../../engine/context/buildContext';
import { estimateContextTokens } from '../../engine/tokens/contextTokens';
import { entryPreview } from '../../engine/tree/entryPreview';

const USAGE = 'arbor context FILE [--leaf ID] [--estimator chars|tokenizer] [--json]';

export async function contextCommand(argv: string[], io: Io): Promise<number> {
  const p = parseCommand(argv, { leaf: { type: 'string' }, estimator: { type: 'string' } });
  const index = await openSession(requireFile(p, USAGE));
  reportDiagnostics(io, index);
  const estimator = estimatorFrom(p.flags);
  const ctx = buildContext(index, leafIndexFrom(index, p.flags));
  const est = estimateContextTokens(ctx.messages.map((m) => m.message), estimator);
  const messages = ctx.messages.map((m) => ({ entryId: index.record(m.entryIndex).id, role: m.message.role, tokens: estimator.estimate(m.message) }));
  if (p.flags.json) {
    printJson(io, {
      leafId: ctx.leafId,
      model: ctx.model,
      thinkingLevel: ctx.thinkingLevel,
      estimator: estimator.name,
      messages,
      contextTokens: { tokens: est.tokens, usageTokens: est.usageTokens, trailingTokens: est.trailingTokens },
    });
    return 0;
  }
  io.out(`leaf ${ctx.leafId}  model ${ctx.model ? `${ctx.model.provider}/${ctx.model.modelId}` : '-'}  thinking ${ctx.thinkingLevel}`);
  ctx.messages.forEach((m, k) => {
    const pv = entryPreview(index.entry(m.entryIndex), 70);
    io.out(`${messages[k].entryId} ${m.message.role.padEnd(17)} ${String(messages[k].tokens).padStart(7)}  ${pv.text}`);
  });
  io.out(`context tokens: ${est.tokens} (${est.usageTokens} reported by the provider + ${est.trailingTokens} estimated, ${estimator.name})`);
  return 0;
}
