import * as vscode from 'vscode';
import { agentName, type AgentKind } from '../../engine/session/agents/agentKind';
import type { PiState } from '../../engine/livePi/protocol';
import { branchChanges, branchNameEntry } from './branchRows';
import type { SessionIndex } from '../../engine/session/sessionIndex';
import { entryFields, entryTypeOf } from '../../engine/session/entryKinds';
import { isRecord } from '../../engine/session/jsonObject';
import { isTextBlock, isThinkingBlock } from '../../engine/session/contentBlocks';
import { usageTotal } from '../../engine/context/contextTokens';
import type { SessionModel } from '../sessions/sessionStore';
import type { SessionLayout } from '../../engine/tree/layout';
import type { BranchNode, EntryNode, MoreNode, NoticeNode } from './nodes';
import { PAGE_SIZE } from '../../engine/tree/pages';
import { nodeKey } from './nodes';
import type { EntryKind } from '../../engine/tree/entryPreview';
import { formatTokens } from '../../engine/tokens/formatTokens';
import { oneLine } from '../../engine/tree/oneLine';
import { byLastActivity, relativeTime } from '../../engine/tree/sessionOrder';
import { countsText, titleLine, type SessionTitle } from '../../engine/tree/sessionTitle';
import { isPinLabel, unpinLabel } from '../../engine/compaction/pins';
import { cachedPreview } from './previewCache';
import { entryTokens } from '../../engine/context/entryTokens';
import { estimatorByName, type EstimatorName } from '../../engine/tokens/estimators';
import { compactionNumbers } from '../../engine/context/contextNumbers';
import { counted } from '../../engine/text/plural';
import { changesBefore, isJumpTarget, type ShownLeaf, type TreeFilter } from '../../engine/tree/rowFilter';
import type { ContextBoundary } from '../../engine/tree/contextBoundary';

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

/** The codicon id of each entry kind (for QuickPick labels: `$(id)`). */
export const ICON_IDS = Object.fromEntries(Object.entries(ICONS).map(([k, [id]]) => [k, id])) as Record<EntryKind, string>;

function icon(kind: EntryKind): vscode.ThemeIcon {
  const [id, color] = ICONS[kind];
  return new vscode.ThemeIcon(id, color ? new vscode.ThemeColor(color) : undefined);
}

/** "34 KB", "101 MB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${Math.round(n / 1024)} KB`;
  return `${(n / (1024 * 1024)).toFixed(n < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}

/** When the session was last active: its last entry's time (loaded index, else the peek), else the file's mtime. */
export function lastActivityOf(model: SessionModel): number {
  const index = model.index;
  if (index && index.entryCount > 0) {
    const t = Date.parse(String(index.entry(index.entryCount - 1).timestamp));
    if (!Number.isNaN(t)) return t;
  }
  return model.peek?.lastActivityMs ?? model.mtimeMs;
}

/** Sessions in the one list order (engine/tree/sessionOrder.ts): newest activity first. */
export function sessionsByActivity(models: readonly SessionModel[]): SessionModel[] {
  return byLastActivity(models, (m) => ({ lastActivityMs: lastActivityOf(m), file: m.file }));
}

/** When the session was first active: its first entry's time (the peek), else its header's. */
export function firstActivityOf(model: SessionModel): number | undefined {
  const first = model.peek?.firstActivityMs;
  if (first !== undefined) return first;
  const started = Date.parse(model.timestamp);
  return Number.isNaN(started) ? undefined : started;
}

/** The counts a session row shows: the title facts' (loaded index, else the peek), else the peek's entry count. */
function rowCounts(model: SessionModel): string | undefined {
  const f = model.titleFacts;
  if (f?.entries !== undefined) return countsText(f);
  const n = model.peek?.entryCount;
  return n === undefined ? undefined : countsText({ entries: n, entriesApprox: !model.peek?.entryCountExact });
}

/**
 * A session row's text, built in one place: the label (the title, cut short with what tells it apart when titles
 * collide: sessionTitle.ts titleLine), then the facts of the description, most telling first so the sidebar's width
 * cuts the least useful: agent, live state, last activity, [one short fact more fits here], counts, size, "opened".
 */
export function sessionRowText(model: SessionModel, options: { live: boolean; now: number; title?: SessionTitle; pi?: PiState }) {
  const title = options.title ?? { title: model.title, differs: undefined };
  const label = titleLine(title, model.file, { narrow: true });
  const last = lastActivityOf(model);
  const counts = rowCounts(model);
  const size = model.index?.size ?? model.size ?? model.peek?.size;
  const parts: string[] = [];
  // Another agent's session is marked with its agent (and is read-only: its write commands are hidden, see package.json).
  if (model.agent !== 'pi') parts.push(agentName(model.agent));
  if (options.pi) parts.push(options.pi.idle ? '● Pi idle' : '● Pi busy');
  else if (options.live) parts.push('● live');
  parts.push(relativeTime(last, options.now) || 'no activity');
  if (counts) parts.push(counts);
  if (size) parts.push(formatBytes(size));
  if (model.source === 'opened') parts.push('opened');
  return { label, fullTitle: titleLine(title, model.file), description: parts.join(' · '), last, counts, size };
}

export function sessionItem(model: SessionModel, live: boolean, now = Date.now(), title?: SessionTitle, pi?: PiState): vscode.TreeItem {
  const row = sessionRowText(model, { live, now, title, pi });
  const { label, last, counts: count, size } = row;
  const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.Collapsed);
  item.id = nodeKey({ type: 'session', file: model.file });
  item.description = row.description;
  item.iconPath = pi
    ? new vscode.ThemeIcon(pi.idle ? 'pulse' : 'sync~spin', new vscode.ThemeColor(pi.idle ? 'charts.green' : 'charts.yellow'))
    : live
      ? new vscode.ThemeIcon('pulse', new vscode.ThemeColor('charts.green'))
      : new vscode.ThemeIcon('comment-discussion');
  item.contextValue = `arborSession${live || pi ? ':live' : ''}${pi ? ':pi' : ''}${readOnlyFlags(model.agent)}${model.source === 'opened' ? ':opened' : ''}`;
  const tip = new vscode.MarkdownString(undefined, true);
  tip.appendMarkdown('$(comment-discussion) **');
  tip.appendText(row.fullTitle);
  tip.appendMarkdown('**');
  if (model.agent !== 'pi') tip.appendMarkdown(`\n\n${agentName(model.agent)} session: read-only (Arbor reads it, never writes it)`);
  const facts = model.titleFacts;
  if (facts?.name && facts.firstRequest) {
    tip.appendMarkdown('\n\n');
    tip.appendText(`First request: ${facts.firstRequest}`);
  }
  if (facts?.latestRequest && facts.latestRequest !== (facts.name || facts.firstRequest)) {
    tip.appendMarkdown('\n\n');
    tip.appendText(`Latest request: ${facts.latestRequest}`);
  }
  const line = (name: string, value: string) => {
    tip.appendMarkdown('\n\n');
    tip.appendText(`${name}: ${value}`);
  };
  if (facts?.latestLabel) line('Latest label', facts.latestLabel);
  line('File', model.file);
  if (model.cwd) line('Working directory', model.cwd);
  const first = firstActivityOf(model);
  if (first !== undefined) line('First activity', `${new Date(first).toLocaleString()} (${relativeTime(first, now)})`);
  if (last) line('Last activity', `${new Date(last).toLocaleString()} (${relativeTime(last, now)})`);
  if (count || size)
    line(
      'Size',
      [count && (count.includes('~') ? `${count} (estimated from the first and last 64 KB)` : count), size && formatBytes(size)]
        .filter(Boolean)
        .join(', '),
    );
  if (model.source === 'opened') tip.appendMarkdown('\n\nAdded with Open Session File (Remove from List takes it off).');
  if (pi) {
    tip.appendMarkdown('\n\n$(pulse) ');
    tip.appendText(
      `Pi ${pi.piVersion} (pid ${pi.pid}) has this session open and is ${pi.idle ? 'idle' : 'busy'}. Compact, Jump Here ` +
        `and labels go through Pi (Arbor's bridge), so Pi's memory follows. Pi's leaf: ${pi.leafId ?? '(root)'}.`,
    );
  } else if (live) tip.appendMarkdown('\n\n$(pulse) Another process wrote to this session in the last few seconds.');
  item.tooltip = tip;
  return item;
}

export interface EntryItemContext {
  index: SessionIndex;
  layout: SessionLayout;
  estimator: EstimatorName;
  filter: TreeFilter;
  /** The entry shown as current (the leaf, or its nearest ancestor that is a row under the filter). */
  shownLeaf: ShownLeaf;
  /** Where the model's context starts on the active path (undefined: no compaction on it). */
  boundary: ContextBoundary | undefined;
}

/** Scheme of the resourceUri a summarized row carries, for its label to be dimmed (see SummarizedDecorations). */
export const SUMMARIZED_SCHEME = 'arbor-summarized';

/** The command a click on an entry row runs: the entry opened in the panel. */
export const SHOW_ENTRY_COMMAND = 'arbor.showEntry';

export function entryItem(node: EntryNode, ctx: EntryItemContext): vscode.TreeItem {
  const { index, layout } = ctx;
  const entry = index.entry(node.index);
  const preview = cachedPreview(index, node.index);
  // The row standing for the leaf; when the filter hides conversation entries below it, it says so (and is not the leaf for
  // the menus: Jump Here to it is a real move back).
  const isCurrent = node.index === ctx.shownLeaf.index;
  const hiddenBelow = isCurrent ? ctx.shownLeaf.hidden : 0;
  const isLeaf = isCurrent && hiddenBelow === 0;
  const branches = layout.branchesAt(node.index);
  // Conversation rows show their text; metadata rows say what they are; summaries are named as such.
  const isSummary = preview.kind === 'compaction' || preview.kind === 'branchSummary';
  const conversational = ['user', 'assistant', 'toolCalls', 'toolResult', 'toolError', 'bash', 'assistantError', 'customMessage'].includes(
    preview.kind,
  );
  const text = isSummary || !preview.text ? preview.title : conversational ? preview.text : `${preview.title}: ${preview.text}`;
  // A label (a pin's name) leads the row's text, where the sidebar's width does not cut it (the description is cut first).
  const entryLabel = index.labelOf(node.entryId);
  const pinned = isPinLabel(entryLabel);
  const tag = pinned ? unpinLabel(entryLabel) : entryLabel;
  const label = tag ? `#${oneLine(tag, 40)} · ${text}` : text;
  const item = new vscode.TreeItem(
    label,
    branches.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
  );
  item.id = nodeKey(node);
  const tokens = entryTokens(index, node.index, ctx.estimator);
  const desc: string[] = [];
  const summarized = ctx.boundary?.isSummarized(node.index) ?? false;
  if (isLeaf) desc.push('● current');
  else if (isCurrent) desc.push(`● current leaf below: ${hiddenBelow} entr${hiddenBelow === 1 ? 'y' : 'ies'} hidden by the filter`);
  if (summarized) desc.push('summarized');
  if (ctx.boundary?.firstKept === node.index) desc.push('▶ context starts here');
  if (ctx.boundary?.compaction === node.index)
    desc.push(`active compaction: replaces ${counted(ctx.boundary.replacedCount, 'entry', 'entries')}`);
  // A pin is shown by a pin icon and the word, never by the 📌 character alone (no emoji font: a box); its name leads the label.
  if (pinned) desc.push('pinned');
  // What filtered-out bookkeeping says about this row: a jump's leaf move to it, the model/thinking it was sent with.
  if (ctx.filter !== 'all' && isJumpTarget(index, node.index)) desc.push('↩ jumped here');
  desc.push(...changesBefore(index, node.index, ctx.filter));
  if (branches.length) desc.push(`${branches.length} other branch${branches.length === 1 ? '' : 'es'}`);
  if (['toolResult', 'toolError', 'bash', 'customMessage'].includes(preview.kind)) desc.unshift(preview.title);
  if (entry.type === 'compaction') {
    // Before and after as the panel and `arbor context` report them (one function).
    const { tokensBefore, tokensAfter } = compactionNumbers(index, node.index, estimatorByName(ctx.estimator));
    if (tokensBefore !== undefined) desc.push(`${formatTokens(tokensBefore)} → ${formatTokens(tokensAfter)} tokens`);
  } else if (tokens > 0) {
    desc.push(`${formatTokens(tokens)} ${tokens === 1 ? 'token' : 'tokens'}`);
  }
  if (isSummary && preview.text) desc.push(preview.text);
  item.description = desc.join(' · ');
  item.iconPath = isCurrent
    ? new vscode.ThemeIcon(isLeaf ? 'debug-stackframe' : 'debug-stackframe-dot', new vscode.ThemeColor('charts.green'))
    : summarized
      ? new vscode.ThemeIcon(ICONS[preview.kind][0], new vscode.ThemeColor('disabledForeground'))
      : pinned
        ? new vscode.ThemeIcon('pin', new vscode.ThemeColor('charts.orange'))
        : icon(preview.kind);
  // Dims the label too (a file decoration's colour): the model sees only the compaction's summary of this entry.
  if (summarized) item.resourceUri = vscode.Uri.from({ scheme: SUMMARIZED_SCHEME, path: `/${node.entryId}` });
  const flags = [`type=${entryTypeOf(entry)}`, `kind=${preview.kind}`];
  if (isLeaf) flags.push('leaf');
  if (preview.kind === 'compaction' || preview.kind === 'branchSummary') flags.push('summary');
  if (layout.isOnActivePath(node.index)) flags.push('active');
  if (summarized) flags.push('summarized');
  if (pinned) flags.push('pinned');
  item.contextValue = `arborEntry:${flags.join(':')}${readOnlyFlags(index.agent)}`;
  // The tooltip is made on hover (resolveTreeItem): building it for every row slowed down long lines.
  item.accessibilityInformation = {
    label:
      `${preview.title}: ${label}` +
      (isLeaf ? ', current leaf' : isCurrent ? `, current leaf below it, ${hiddenBelow} hidden by the filter` : '') +
      (summarized ? ', summarized by the active compaction' : ''),
  };
  item.command = { command: SHOW_ENTRY_COMMAND, title: 'Show Entry', arguments: [node.file, node.entryId] };
  return item;
}

/** An entry row's tooltip: kind, id, label, time, tokens, model and the text (longer than the row's). */
export function entryTooltip(node: EntryNode, ctx: EntryItemContext): vscode.MarkdownString {
  const { index } = ctx;
  const title = cachedPreview(index, node.index).title;
  const tokens = entryTokens(index, node.index, ctx.estimator);
  const label = index.labelOf(node.entryId);
  const e = index.entry(node.index);
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
  const hidden = node.index === ctx.shownLeaf.index ? ctx.shownLeaf.hidden : 0;
  if (hidden) {
    tip.appendMarkdown('\n\n$(debug-stackframe) ');
    tip.appendText(
      `The current leaf is below this entry: the filter hides the ${hidden} entr${hidden === 1 ? 'y' : 'ies'} after it on the active path.`,
    );
  }
  tip.appendMarkdown('\n\n');
  if (typeof e.timestamp === 'string') tip.appendText(`${new Date(e.timestamp).toLocaleString()} · `);
  tip.appendText(`${formatTokens(tokens)} ${tokens === 1 ? 'token' : 'tokens'} in context`);
  const m = e.type === 'message' ? e.message : undefined;
  if (m && m.role === 'assistant' && m.usage && typeof m.usage === 'object') {
    tip.appendText(` · context at this reply: ${formatTokens(usageTotal(m.usage))} tokens (${String(m.provider)}/${String(m.model)})`);
  }
  tip.appendMarkdown('\n\n---\n\n');
  const full = cachedPreview(index, node.index).text;
  tip.appendText(oneLine(fullText(entryFields(e)) || full, 600));
  return tip;
}

/** The longest text an entry holds (its summary, or its message's text and thinking), from its fields as read. */
function fullText(e: Readonly<Record<string, unknown>>): string {
  if (typeof e.summary === 'string') return e.summary;
  const m = isRecord(e.message) ? e.message : undefined;
  if (m && typeof m.content === 'string') return m.content;
  if (m && Array.isArray(m.content)) {
    return m.content
      .map((b: unknown) => (isTextBlock(b) ? b.text : isThinkingBlock(b) ? `(thinking) ${b.thinking}` : ''))
      .filter(Boolean)
      .join(' ');
  }
  return '';
}

export function branchItem(node: BranchNode, ctx: EntryItemContext): vscode.TreeItem {
  const { index, layout } = ctx;
  const line = layout.lineFrom(node.start);
  // Name the branch after its first user message (what the user asked on it), else its first entry.
  const named = branchNameEntry(index, line, node.start);
  const preview = cachedPreview(index, named);
  const item = new vscode.TreeItem(preview.text || preview.title, vscode.TreeItemCollapsibleState.Collapsed);
  item.id = nodeKey(node);
  const size = layout.subtreeSize(node.start);
  const labels = line.map((i) => index.labelOf(index.record(i).id)).filter(Boolean);
  const latest = index.entry(layout.latestUnder(node.start));
  const desc = [`branch · ${size} entr${size === 1 ? 'y' : 'ies'}`];
  const changedFiles = branchChanges(index, layout, node.start);
  if (changedFiles) desc.push(`${changedFiles} file${changedFiles === 1 ? '' : 's'} changed`);
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
  if (changedFiles) tip.appendText(` It changed ${changedFiles} file${changedFiles === 1 ? '' : 's'} (Show File Changes lists them).`);
  item.tooltip = tip;
  return item;
}

export function noticeItem(node: NoticeNode): vscode.TreeItem {
  const item = new vscode.TreeItem(node.message, vscode.TreeItemCollapsibleState.None);
  item.id = nodeKey(node);
  item.iconPath = new vscode.ThemeIcon(
    node.severity === 'error' ? 'error' : 'info',
    node.severity === 'error' ? new vscode.ThemeColor('errorForeground') : undefined,
  );
  item.contextValue = 'arborNotice';
  item.tooltip = node.message;
  return item;
}

/** The row above (or below) the part of a long line the tree shows; clicking it shows a page more. */
/** A "show more" row; `counting` while the session is shown from a preview (the number before it is not known yet). */
export function moreItem(node: MoreNode, hidden: number, counting = false): vscode.TreeItem {
  const n = Math.min(PAGE_SIZE, counting ? Math.max(hidden, PAGE_SIZE) : hidden);
  const item = new vscode.TreeItem(
    `Show ${n.toLocaleString('en-US')} ${node.direction} entr${n === 1 ? 'y' : 'ies'}`,
    vscode.TreeItemCollapsibleState.None,
  );
  item.id = nodeKey(node);
  item.description = counting ? 'indexing the rest of the session…' : `${hidden.toLocaleString('en-US')} not shown`;
  item.iconPath = new vscode.ThemeIcon(node.direction === 'earlier' ? 'fold-up' : 'fold-down');
  item.contextValue = 'arborMore';
  item.tooltip = `This line is long: the tree shows part of it. Click to show ${n} ${node.direction} entries.`;
  item.command = { command: 'arbor.showMore', title: 'Show More Entries', arguments: [node] };
  return item;
}

/** Dims the labels of summarized rows (their resourceUri has SUMMARIZED_SCHEME). */
export class SummarizedDecorations implements vscode.FileDecorationProvider {
  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (uri.scheme !== SUMMARIZED_SCHEME) return undefined;
    const d = new vscode.FileDecoration(
      undefined,
      'Summarized by the active compaction: the model sees its summary, not this entry',
      new vscode.ThemeColor('disabledForeground'),
    );
    d.propagate = false;
    return d;
  }
}

/** The context-value flags of a row of another agent's session: `:readonly:agent=<kind>` (none for Pi's). */
export function readOnlyFlags(agent: AgentKind): string {
  return agent === 'pi' ? '' : `:readonly:agent=${agent}`;
}
