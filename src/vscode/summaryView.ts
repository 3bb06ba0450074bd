import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { parseSummary, type ParsedSummary } from '../engine/summarize/parseSummary';
import { Projection } from '../engine/context/projection';
import { estimateProjectedContextTokens, usageTotal } from '../engine/tokens/contextTokens';
import { projectedEntryTokens } from '../engine/tokens/entryTokens';
import { estimatorByName, type EstimatorName } from '../engine/tokens/estimators';
import { collectBranchEntries } from '../engine/branch/planBranch';
import type { SessionIndex } from '../engine/session/sessionIndex';
import type { CompactionEntry, Usage } from '../engine/session/types';
import type { CompactionProposal } from '../engine/operations/compact';
import type { FileLink, ReplacedEntry, SummarySections, SummaryView, UsageView } from '../webview/protocol';
import { entryPreview, oneLine } from './tree/preview';

/** Builds what the summary panel shows, from an entry in a file or from a compaction proposal. */

export function sectionsOf(parsed: ParsedSummary): SummarySections {
  const bullets = (items: string[]) => items.map((t) => `- ${t}`).join('\n');
  const other: string[] = [];
  if (parsed.preamble) other.push(parsed.preamble);
  for (const u of parsed.unknownSections) other.push(`${u.heading ? `### ${u.heading}\n\n` : ''}${u.body}`);
  return {
    goal: bullets(parsed.goal),
    constraints: bullets(parsed.constraints),
    done: parsed.done.map((t) => `- [x] ${t}`).join('\n'),
    inProgress: parsed.inProgress.map((t) => `- [ ] ${t}`).join('\n'),
    blocked: bullets(parsed.blocked),
    decisions: parsed.decisions.map((d) => (d.rationale ? `- **${d.title}**: ${d.rationale}` : `- **${d.title}**`)).join('\n'),
    nextSteps: parsed.nextSteps.map((t, i) => `${i + 1}. ${t}`).join('\n'),
    criticalContext: bullets(parsed.criticalContext),
    turnContext: parsed.turnContext ?? '',
    other: other.join('\n\n'),
  };
}

/** Where a session's relative paths point: its cwd, or (a session from another machine) the workspace folder. */
export function baseDirFor(cwd: string): string {
  if (cwd && fs.existsSync(cwd)) return cwd;
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
  return folder?.uri.fsPath ?? cwd ?? '';
}

export function fileLinks(paths: readonly string[], cwd: string): FileLink[] {
  const base = baseDirFor(cwd);
  return paths.map((p) => {
    const resolved = path.isAbsolute(p) ? p : path.resolve(base, p);
    let exists = false;
    try {
      exists = fs.statSync(resolved).isFile();
    } catch {
      exists = false;
    }
    return { path: p, resolved, exists };
  });
}

function detailsLists(details: unknown, parsed: ParsedSummary): { readFiles: string[]; modifiedFiles: string[] } {
  const d = details as { readFiles?: unknown; modifiedFiles?: unknown } | undefined;
  const list = (v: unknown, fallback: string[]) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : fallback);
  return { readFiles: list(d?.readFiles, parsed.readFiles), modifiedFiles: list(d?.modifiedFiles, parsed.modifiedFiles) };
}

export function usageView(usage: Usage | undefined): UsageView | undefined {
  if (!usage || typeof usage !== 'object') return undefined;
  const cost = usage.cost && typeof (usage.cost as { total?: unknown }).total === 'number' ? ((usage.cost as { total: number }).total) : undefined;
  return {
    input: usage.input || 0,
    output: usage.output || 0,
    cacheRead: usage.cacheRead || 0,
    cacheWrite: usage.cacheWrite || 0,
    totalTokens: usageTotal(usage),
    cost,
  };
}

function replacedEntry(index: SessionIndex, i: number): ReplacedEntry {
  const p = entryPreview(index.entry(i));
  const id = index.record(i).id;
  const label = index.labelOf(id);
  return { id, title: p.title, text: oneLine(p.text, 120), ...(label ? { label: oneLine(label, 120) } : {}) };
}

/** Entries a compaction entry replaced: its path from the previous boundary up to its firstKeptEntryId. */
function compactionReplaced(index: SessionIndex, i: number): number[] {
  const e = index.entry(i) as CompactionEntry;
  const path = index.pathTo(i).slice(0, -1);
  let start = 0;
  for (let k = path.length - 1; k >= 0; k--) {
    if (index.record(path[k]).type === 'compaction') {
      const prev = index.entry(path[k]) as CompactionEntry;
      const kept = path.findIndex((x) => index.record(x).id === prev.firstKeptEntryId);
      start = kept >= 0 && kept < k ? kept : k + 1;
      break;
    }
  }
  let end = path.findIndex((x) => index.record(x).id === e.firstKeptEntryId);
  if (end < 0) end = path.length;
  return path.slice(start, end).filter((x) => {
    const rec = index.record(x);
    return rec.type === 'message' ? rec.role !== 'system' : rec.type === 'custom_message' || rec.type === 'branch_summary';
  });
}

export function viewFromEntry(index: SessionIndex, entryId: string, sessionTitle: string, estimator: EstimatorName): SummaryView {
  const i = index.indexOf(entryId);
  if (i < 0) throw new Error(`entry ${entryId} is not in ${index.file}`);
  const e = index.entry(i) as unknown as Record<string, unknown>;
  if (e.type !== 'compaction' && e.type !== 'branch_summary') throw new Error(`entry ${entryId} is a ${String(e.type)} entry, not a summary`);
  const markdown = typeof e.summary === 'string' ? e.summary : '';
  const parsed = parseSummary(markdown);
  const lists = detailsLists(e.details, parsed);
  const cwd = index.header.cwd;
  const base: SummaryView = {
    mode: 'entry',
    kind: e.type,
    file: index.file,
    sessionTitle,
    entryId,
    timestamp: typeof e.timestamp === 'string' ? e.timestamp : undefined,
    markdown,
    sections: sectionsOf(parsed),
    readFiles: fileLinks(lists.readFiles, cwd),
    modifiedFiles: fileLinks(lists.modifiedFiles, cwd),
    usage: usageView(e.usage as Usage | undefined),
    fromHook: e.fromHook === true,
    author: e.fromHook === true ? 'hook' : undefined,
  };
  if (e.type === 'compaction') {
    const replaced = compactionReplaced(index, i);
    base.tokensBefore = typeof e.tokensBefore === 'number' ? e.tokensBefore : undefined;
    base.tokensAfter = estimateProjectedContextTokens(new Projection(index, i), estimatorByName(estimator)).tokens;
    base.replaced = { count: replaced.length, entries: replaced.map((x) => replacedEntry(index, x)), firstKeptEntryId: String(e.firstKeptEntryId ?? '') };
  } else {
    const from = index.indexOf(String(e.fromId ?? ''));
    const parent = index.parentIndex(i);
    const collected = from >= 0 ? collectBranchEntries(index, from, parent >= 0 ? parent : i).entryIndexes : [];
    base.replaced = { count: collected.length, entries: collected.map((x) => replacedEntry(index, x)), fromId: String(e.fromId ?? '') };
  }
  return base;
}

export function viewFromProposal(proposal: CompactionProposal, proposalId: string, sessionTitle: string, author: string, customInstructions: string | undefined): SummaryView {
  const parsed = parseSummary(proposal.summary);
  const lists = detailsLists(proposal.details, parsed);
  const cwd = proposal.index.header.cwd;
  const { plan } = proposal;
  const p = plan.projection;
  const estimator = estimatorByName(proposal.estimator);
  // After: the summary plus everything kept (from firstKeptEntryId to the leaf).
  const firstKeptPos = p.entries.findIndex((i) => p.index.record(i).id === proposal.firstKeptEntryId);
  let after = estimator.estimate({ role: 'compactionSummary', summary: proposal.summary, tokensBefore: proposal.tokensBefore });
  if (firstKeptPos >= 0) for (let pos = firstKeptPos; pos < p.length; pos++) if (p.index.record(p.entries[pos]).type !== 'compaction') after += projectedEntryTokens(p, pos, estimator);
  const positions = [...plan.summarizePositions, ...plan.turnPrefixPositions];
  return {
    mode: 'review',
    kind: 'compaction',
    file: proposal.index.file,
    sessionTitle,
    proposalId,
    markdown: proposal.summary,
    sections: sectionsOf(parsed),
    readFiles: fileLinks(lists.readFiles, cwd),
    modifiedFiles: fileLinks(lists.modifiedFiles, cwd),
    tokensBefore: proposal.tokensBefore,
    tokensAfter: after,
    usage: usageView(proposal.usage),
    author: proposal.fromHook ? 'hook' : author,
    fromHook: proposal.fromHook,
    customInstructions: customInstructions || undefined,
    replaced: {
      count: positions.length,
      entries: positions.map((pos) => replacedEntry(p.index, p.entries[pos])),
      firstKeptEntryId: proposal.firstKeptEntryId,
    },
  };
}
