import type { SessionIndex } from '../session/sessionIndex';
import type { AgentMessage } from '../session/types';
import type { SpanMessage } from '../context/messageSpan';
import { extract, type Extraction } from './offline/extract';
import type { BranchPlan } from '../branch/planBranch';

/**
 * A branch summary's span with its tool results: the prepared messages
 * (spec 6.3: what a model is sent, tool results left out) with the results
 * that answered their calls put back in their place. A summarizer without a
 * model cannot read a result off a call, and the retention check needs the
 * outputs as evidence for the numbers a summary states. Reads the branch from
 * its oldest prepared message on (the budget bounds it), a load that keeps
 * nothing once read.
 */
export async function branchMessagesWithResults(
  index: SessionIndex,
  plan: BranchPlan,
  options: { signal?: AbortSignal } = {},
): Promise<SpanMessage[]> {
  const prepared = new Map<number, AgentMessage>(plan.prepared.map((m) => [m.entryIndex, m.message]));
  const first = plan.prepared.length ? plan.entryIndexes.indexOf(plan.prepared[0].entryIndex) : -1;
  if (first < 0) return [];
  const range = plan.entryIndexes.slice(first);
  const results = range.filter((i) => {
    const rec = index.record(i);
    return rec.type === 'message' && rec.role === 'toolResult';
  });
  return index.withLoaded(
    results,
    () => {
      const out: SpanMessage[] = [];
      for (const i of range) {
        const m = prepared.get(i);
        const entryId = index.record(i).id;
        if (m) out.push({ entryId, message: m });
        else {
          const e = index.record(i).type === 'message' ? index.entryOfType(i, 'message') : undefined;
          if (e?.message?.role === 'toolResult') out.push({ entryId, message: e.message });
        }
      }
      return out;
    },
    { keep: false, signal: options.signal },
  );
}

/** The offline extraction of those messages. */
export function branchExtraction(messages: readonly SpanMessage[], options: { cwd?: string }): Extraction {
  return extract(
    messages.map((m) => m.message),
    { cwd: options.cwd },
  );
}
