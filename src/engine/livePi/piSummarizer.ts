import { SummarizationError, type Summarizer } from '../summarize/summarizer';
import { requestSummary } from './client';
import type { PiSummary } from './protocol';
import type { WriteRoute } from './writeRoute';

/**
 * Pi's own model as the summarizer (issue 33 item 2): while a running Pi holds
 * the session through the bridge, the compaction's whole summary is written
 * inside Pi (its preparation, model, credentials and summary functions; see
 * src/piBridge/piSummary.ts) and comes back for review; nothing is written
 * until the approved text goes back through the bridge's `compact` request.
 * A branch summary is Pi's too (its collectEntriesForBranchSummary and
 * generateBranchSummary). `summarize` (the per-request interface) refuses:
 * Pi writes whole summaries, not parts of Arbor's.
 */
export interface PiSummarizer extends Summarizer {
  readonly provider: 'pi';
  /** Pi writes the summary of a compaction at `expectedLeafId`. */
  compactionSummary(args: { expectedLeafId: string; customInstructions?: string; signal?: AbortSignal }): Promise<PiSummary>;
  /** Pi writes the summary of the branch its leaf `expectedLeafId` leaves for `targetId`. */
  branchSummary(args: {
    expectedLeafId: string;
    targetId: string;
    customInstructions?: string;
    replaceInstructions?: boolean;
    signal?: AbortSignal;
  }): Promise<PiSummary>;
}

export function isPiSummarizer(s: Summarizer): s is PiSummarizer {
  return s.provider === 'pi' && typeof (s as Partial<PiSummarizer>).compactionSummary === 'function';
}

export function createPiSummarizer(route: WriteRoute): PiSummarizer {
  if (route.via !== 'pi')
    throw new SummarizationError(
      "Pi's model writes summaries only while a running Pi holds the session through Arbor's bridge " +
        '(`arbor pi-bridge install`, then /reload in Pi); no such Pi holds it; choose another summarizer',
    );
  const model = route.state.model;
  return {
    provider: 'pi',
    model: model ? `${model.provider}/${model.id}` : '(no model selected in Pi)',
    contextWindow: route.state.contextUsage?.contextWindow ?? 128_000,
    maxOutputTokens: 8192,
    summarize() {
      return Promise.reject(new SummarizationError("Pi's model writes whole summaries through the bridge, not parts of Arbor's"));
    },
    compactionSummary: ({ expectedLeafId, customInstructions, signal }) =>
      requestSummary(route.entry, { kind: 'compaction', expectedLeafId, customInstructions, waitMs: route.waitMs }, { signal }),
    branchSummary: ({ signal, ...body }) => requestSummary(route.entry, { kind: 'branch', ...body, waitMs: route.waitMs }, { signal }),
  };
}
