import type { SessionIndex } from '../session/sessionIndex';
import type { AgentMessage } from '../session/types';
import { extract, type Extraction } from './offline/extract';
import type { BranchPlan } from '../branch/planBranch';

/**
 * The offline extraction of a branch summary's span: the prepared messages
 * (spec 6.3: what a model is sent, tool results left out) with the tool
 * results that answered their calls put back in their place. A summarizer
 * without a model cannot read a result off a call, so without them every
 * edit, write and test run of the branch would be of unknown outcome. Reads
 * the branch from its oldest prepared message on (the budget bounds it), a
 * load that keeps nothing once read.
 */
export async function branchExtraction(
  index: SessionIndex,
  plan: BranchPlan,
  options: { cwd?: string; signal?: AbortSignal },
): Promise<Extraction> {
  const prepared = new Map<number, AgentMessage>(plan.prepared.map((m) => [m.entryIndex, m.message]));
  const first = plan.prepared.length ? plan.entryIndexes.indexOf(plan.prepared[0].entryIndex) : -1;
  if (first < 0) return extract([], { cwd: options.cwd });
  const range = plan.entryIndexes.slice(first);
  const results = range.filter((i) => {
    const rec = index.record(i);
    return rec.type === 'message' && rec.role === 'toolResult';
  });
  return index.withLoaded(
    results,
    () => {
      const messages: AgentMessage[] = [];
      for (const i of range) {
        const m = prepared.get(i);
        if (m) messages.push(m);
        else {
          const e = index.record(i).type === 'message' ? index.entryOfType(i, 'message') : undefined;
          if (e?.message?.role === 'toolResult') messages.push(e.message);
        }
      }
      return extract(messages, { cwd: options.cwd });
    },
    { keep: false, signal: options.signal },
  );
}
