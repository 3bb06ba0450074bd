import type { SessionIndex } from '../../engine/session/sessionIndex';
import { contextSeriesWalk } from '../../engine/context/contextSeries';
import { runEntryWalk } from '../../engine/session/entryWalkLoads';
import { estimatorByName } from '../../engine/tokens/estimators';
import type { ContextView } from '../../webview/protocol';
import { contextUse } from '../status/contextInfo';
import { readConfig } from '../platform/settings';
import { messagePreview } from '../../engine/tree/entryPreview';
import { formatTokens } from '../../engine/tokens/formatTokens';
import { contextFigureSources, contextFigureStatus } from '../../engine/context/contextNumbers';
import { oneLine } from '../../engine/tree/oneLine';

/**
 * What the context view shows for a session at a leaf: the numbers come from
 * contextUse, the function the status bar shows, so they agree; the chart
 * from contextSeries along the same path, its last point being that number.
 */
export async function buildContextView(index: SessionIndex, leafIndex: number, sessionTitle: string): Promise<ContextView> {
  const use = await contextUse(index, leafIndex, { messages: true });
  const estimatorName = readConfig().estimator;
  const estimator = estimatorByName(estimatorName);
  const messages = use.messages.map((m) => {
    const p = messagePreview(m.message);
    return {
      entryId: index.record(m.entryIndex).id,
      role: m.message.role,
      title: p.title,
      preview: oneLine(p.text, 120),
      tokens: m.tokens,
    };
  });
  // The whole path, read a batch at a time.
  const points = await runEntryWalk(index, contextSeriesWalk(index, leafIndex, estimator));
  const series = points.map((p) => ({
    entryId: index.record(p.entryIndex).id,
    tokens: p.tokens,
    ...(p.marker ? { marker: p.marker } : {}),
  }));
  // The end of the chart is now: exactly the status bar's number.
  const leafId = use.leafId;
  if (leafId !== null) {
    if (series.length && series[series.length - 1].entryId === leafId) series[series.length - 1].tokens = use.tokens.tokens;
    else series.push({ entryId: leafId, tokens: use.tokens.tokens });
  }
  const max = Math.max(use.contextWindow, ...series.map((p) => p.tokens), 1);
  return {
    kind: 'context',
    // The status bar's text, from the same numbers and the same formatter.
    short: {
      status: contextFigureStatus(use.figure),
      source: contextFigureSources(use.figure),
      window: formatTokens(use.contextWindow),
      threshold: formatTokens(use.threshold),
    },
    axis: { max, ticks: [0, 0.25, 0.5, 0.75, 1].map((f) => ({ value: max * f, label: formatTokens(max * f) })) },
    file: index.file,
    sessionTitle,
    leafId,
    model: use.model ? `${use.model.provider}/${use.model.modelId}` : undefined,
    thinkingLevel: use.thinkingLevel,
    estimator: estimatorName,
    tokens: use.tokens.tokens,
    usageTokens: use.tokens.usageTokens,
    trailingTokens: use.tokens.trailingTokens,
    contextWindow: use.contextWindow,
    threshold: use.threshold,
    reserveTokens: use.settings.reserveTokens,
    overThreshold: use.overThreshold,
    settingsError: use.settingsError,
    messages,
    // The figure's parts (contextUse's, as `arbor context` prints them): they add up to `tokens`.
    byRole: use.parts?.byRole ?? [],
    other: { tokens: use.parts?.otherTokens ?? 0, meaning: use.parts?.otherMeaning ?? '' },
    series,
  };
}
