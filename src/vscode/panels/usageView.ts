import { usageTotal } from '../../engine/context/contextTokens';
import type { Usage } from '../../engine/session/types';
import type { UsageView } from '../../webview/protocol';

/** A provider's usage report as the panels show it (no vscode import: unit-testable). */
export function usageView(usage: Usage | undefined): UsageView | undefined {
  if (!usage || typeof usage !== 'object') return undefined;
  const total = usage.cost?.total;
  const cost = typeof total === 'number' ? total : undefined;
  return {
    input: usage.input || 0,
    output: usage.output || 0,
    cacheRead: usage.cacheRead || 0,
    cacheWrite: usage.cacheWrite || 0,
    totalTokens: usageTotal(usage),
    cost,
  };
}
