import * as vscode from 'vscode';
import * as path from 'node:path';
import type { SessionIndex } from '../../engine/session/sessionIndex';
import type { AssistantMessage } from '../../engine/session/types';
import { usageTotal } from '../../engine/tokens/contextTokens';
import type { SessionModel } from '../sessionStore';
import type { SessionLayout } from './layout';
import type { BranchNode, EntryNode, MoreNode, NoticeNode } from './nodes';
import { PAGE_SIZE } from './pages';
import { nodeKey } from './nodes';
import { formatTokens, oneLine, type EntryKind } from './preview';
import { cachedPreview } from './previewCache';
import { entryTokens } from './entryTokens';
import type { EstimatorName } from '../../engine/tokens/estimators';

/** Codicon and theme colour per entry kind. */
const ICONS: Record<EntryKind, [string, string?]> = {
  user: ['account', 'charts.blue'],
  assistant: ['hubot'],
  toolCalls: ['tools'],
  toolResult: ['output'],
  toolError: ['error', 'errorForeground'],
  bash: ['terminal'],
  system: ['book'],
  custom: ['extensions'],
  customMessage: ['comment'],
  compaction: ['archive', 'charts.purple'],
  branchSummary: ['note', 'charts.orange'],
  modelChange: ['chip'],
  thinkingLevel: ['lightbulb'],
  label: ['tag'],
  sessionInfo: ['info'],
  contextEdit: ['edit'],
  usage: ['graph'],
  assistantError: ['warning', 'problemsWarningIcon.foreground'],
  unknown: ['question'],
};

function icon(kind: EntryKind): vscode.ThemeIcon {
  const [id, color] = ICONS[kind];
  return new vscode.ThemeIcon(id, color ? new vscode.ThemeColor(color) : undefined);
}

export function relativeTime(ms: number, now = Date.now()): string {
  if (!ms) return '';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} h ago`;
  const d = Math.round(h / 24);
  if (d < 30) return `${d} d ago`;
  return new Date(ms).toLocaleDateString();
}

/** "Nov 29, 19:22" (this year) or "Nov 29 2025, 19:22". */
export function shortDate(ms: number, now = Date.now()): string {
  const d = new Date(ms);
  const sameYear = d.getFullYear() === new Date(now).getFullYear();
  const date = d.toLocaleDateString('en-US', { month: 'short', day: 'numeric', ...(sameYear ? {} : { year: 'numeric' }) });
  const time = d.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
  return `${date}, ${time}`;
}

export function sessionItem(model: SessionModel, live: boolean): vscode.TreeItem {
  const label = model.title || path.basename(model.file, '.jsonl');
  const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.Collapsed);
  item.id = nodeKey({ type: 'session', file: model.file });
  const parts: string[] = [];
  if (live) parts.push('● live');
  if (model.index) parts.push(`${model.index.entryCount} entries`);
  const started = Date.parse(model.timestamp);
  parts.push(Number.isNaN(started) ? relativeTime(model.mtimeMs) : shortDate(started));
  if (model.source === 'opened') parts.push('opened');
  item.description = parts.filter(Boolean).join(' · ');
  item.iconPath = live ? new vscode.ThemeIcon('pulse', new vscode.ThemeColor('charts.green')) : new vscode.ThemeIcon('comment-discussion');
  item.contextValue = `arborSession${live ? ':live' : ''}`;
  const tip = new vscode.MarkdownString(undefined, true);
  tip.appendMarkdown('$(comment-discussion) **');
  tip.appendText(label);
  tip.appendMarkdown('**\n\n');
  tip.appendText(`File: ${model.file}\n`);
  tip.appendMarkdown('\n\n');
  if (model.cwd) tip.appendText(`Working directory: ${model.cwd}`);
  tip.appendMarkdown('\n\n');
  if (model.timestamp) tip.appendText(`Started: ${new Date(model.timestamp).toLocaleString()}`);
  tip.appendMarkdown('\n\n');
  if (model.mtimeMs) tip.appendText(`Last written: ${relativeTime(model.mtimeMs)}`);
  if (live) tip.appendMarkdown('\n\n$(pulse) Another process wrote to this session in the last few seconds.');
  item.tooltip = tip;
  return item;
}

export interface EntryItemContext {
  index: SessionIndex;
  layout: SessionLayout;
  estimator: EstimatorName;
}

export function entryItem(node: EntryNode, ctx: EntryItemContext): vscode.TreeItem {
  const { index, layout } = ctx;
  const entry = index.entry(node.index);
  const preview = cachedPreview(index, node.index);
  const isLeaf = node.index === layout.leafIndex;
  const branches = layout.branchesAt(node.index);
  // Conversation rows show their text; metadata rows say what they are; summaries are named as such.
  const isSummary = preview.kind === 'compaction' || preview.kind === 'branchSummary';
  const conversational = ['user', 'assistant', 'toolCalls', 'toolResult', 'toolError', 'bash', 'assistantError', 'customMessage'].includes(preview.kind);
  const label = isSummary || !preview.text ? preview.title : conversational ? preview.text : `${preview.title}: ${preview.text}`;
  const item = new vscode.TreeItem(label, branches.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
  item.id = nodeKey(node);
  const entryLabel = index.labelOf(node.entryId);
  const tokens = entryTokens(index, node.index, ctx.estimator);
  const desc: string[] = [];
  if (isLeaf) desc.push('● current');
  if (entryLabel) desc.push(`#${entryLabel}`);
  if (branches.length) desc.push(`${branches.length} other branch${branches.length === 1 ? '' : 'es'}`);
  if (['toolResult', 'toolError', 'bash', 'customMessage'].includes(preview.kind)) desc.unshift(preview.title);
  if (entry.type === 'compaction') {
    const before = (entry as { tokensBefore?: unknown }).tokensBefore;
    if (typeof before === 'number') desc.push(`${formatTokens(before)} → ${formatTokens(tokens)} tokens`);
  } else if (tokens > 0) {
    desc.push(`${formatTokens(tokens)} tokens`);
  }
  if (isSummary && preview.text) desc.push(preview.text);
  item.description = desc.join(' · ');
  item.iconPath = isLeaf ? new vscode.ThemeIcon('debug-stackframe', new vscode.ThemeColor('charts.green')) : icon(preview.kind);
  const flags = [`type=${entry.type}`, `kind=${preview.kind}`];
  if (isLeaf) flags.push('leaf');
  if (preview.kind === 'compaction' || preview.kind === 'branchSummary') flags.push('summary');
  if (layout.isOnActivePath(node.index)) flags.push('active');
  item.contextValue = `arborEntry:${flags.join(':')}`;
  // The tooltip is made on hover (resolveTreeItem): building it for every row slowed down long lines.
  item.accessibilityInformation = { label: `${preview.title}: ${label}${isLeaf ? ', current leaf' : ''}` };
  if (preview.kind === 'compaction' || preview.kind === 'branchSummary') {
    item.command = { command: 'arbor.showSummary', title: 'Show Summary', arguments: [node] };
  }
  return item;
}

/** An entry row's tooltip: kind, id, label, time, tokens, model and the text (longer than the row's). */
export function entryTooltip(node: EntryNode, ctx: EntryItemContext): vscode.MarkdownString {
  const { index } = ctx;
  const title = cachedPreview(index, node.index).title;
  const tokens = entryTokens(index, node.index, ctx.estimator);
  const label = index.labelOf(node.entryId);
  const e = index.entry(node.index) as unknown as Record<string, unknown>;
  const tip = new vscode.MarkdownString(undefined, true);
  tip.appendMarkdown('**');
  tip.appendText(title);
  tip.appendMarkdown('** `');
  tip.appendText(node.entryId);
  tip.appendMarkdown('`');
  if (label) {
    tip.appendMarkdown(' $(tag) ');
    tip.appendText(label);
  }
  tip.appendMarkdown('\n\n');
  if (typeof e.timestamp === 'string') tip.appendText(`${new Date(e.timestamp).toLocaleString()} · `);
  tip.appendText(`${formatTokens(tokens)} tokens in context`);
  const m = e.message as AssistantMessage | undefined;
  if (m && m.role === 'assistant' && m.usage && typeof m.usage === 'object') {
    tip.appendText(` · context at this reply: ${formatTokens(usageTotal(m.usage))} tokens (${String(m.provider)}/${String(m.model)})`);
  }
  tip.appendMarkdown('\n\n---\n\n');
  const full = cachedPreview(index, node.index).text;
  tip.appendText(oneLine(fullText(e) || full, 600));
  return tip;
}

function fullText(e: Record<string, unknown>): string {
  if (typeof e.summary === 'string') return e.summary;
  const m = e.message as { content?: unknown } | undefined;
  if (m && typeof m.content === 'string') return m.content;
  if (m && Array.isArray(m.content)) {
    return m.content
      .map((b: { type?: string; text?: string; thinking?: string }) => (b?.type === 'text' ? b.text : b?.type === 'thinking' ? `(thinking) ${b.thinking}` : ''))
      .filter(Boolean)
      .join(' ');
  }
  return '';
}

export function branchItem(node: BranchNode, ctx: EntryItemContext): vscode.TreeItem {
  const { index, layout } = ctx;
  const line = layout.lineFrom(node.start);
  // Name the branch after its first user message (what the user asked on it), else its first entry.
  const named = line.find((i) => index.record(i).type === 'message' && index.record(i).role === 'user') ?? node.start;
  const preview = cachedPreview(index, named);
  const item = new vscode.TreeItem(preview.text || preview.title, vscode.TreeItemCollapsibleState.Collapsed);
  item.id = nodeKey(node);
  const size = layout.subtreeSize(node.start);
  const labels = line.map((i) => index.labelOf(index.record(i).id)).filter(Boolean);
  const latest = index.entry(layout.latestUnder(node.start)) as { timestamp?: string };
  const desc = [`branch · ${size} entr${size === 1 ? 'y' : 'ies'}`];
  if (labels.length) desc.push(`#${labels[0]}`);
  if (latest.timestamp) desc.push(relativeTime(Date.parse(latest.timestamp)));
  item.description = desc.join(' · ');
  item.iconPath = new vscode.ThemeIcon('git-branch', new vscode.ThemeColor('charts.yellow'));
  item.contextValue = 'arborBranch';
  const tip = new vscode.MarkdownString(undefined, true);
  tip.appendMarkdown('$(git-branch) **Side branch** starting at `');
  tip.appendText(node.startId);
  tip.appendMarkdown('`\n\n');
  tip.appendText(`${size} entries. Jump Here moves to its newest entry.`);
  item.tooltip = tip;
  return item;
}

export function noticeItem(node: NoticeNode): vscode.TreeItem {
  const item = new vscode.TreeItem(node.message, vscode.TreeItemCollapsibleState.None);
  item.id = nodeKey(node);
  item.iconPath = new vscode.ThemeIcon(node.severity === 'error' ? 'error' : 'info', node.severity === 'error' ? new vscode.ThemeColor('errorForeground') : undefined);
  item.contextValue = 'arborNotice';
  item.tooltip = node.message;
  return item;
}

/** The row above (or below) the part of a long line the tree shows; clicking it shows a page more. */
/** A "show more" row; `counting` while the session is shown from a preview (the number before it is not known yet). */
export function moreItem(node: MoreNode, hidden: number, counting = false): vscode.TreeItem {
  const n = Math.min(PAGE_SIZE, counting ? Math.max(hidden, PAGE_SIZE) : hidden);
  const item = new vscode.TreeItem(`Show ${n.toLocaleString('en-US')} ${node.direction} entr${n === 1 ? 'y' : 'ies'}`, vscode.TreeItemCollapsibleState.None);
  item.id = nodeKey(node);
  item.description = counting ? 'indexing the rest of the session…' : `${hidden.toLocaleString('en-US')} not shown`;
  item.iconPath = new vscode.ThemeIcon(node.direction === 'earlier' ? 'fold-up' : 'fold-down');
  item.contextValue = 'arborMore';
  item.tooltip = `This line is long: the tree shows part of it. Click to show ${n} ${node.direction} entries.`;
  item.command = { command: 'arbor.showMore', title: 'Show More Entries', arguments: [node] };
  return item;
}
