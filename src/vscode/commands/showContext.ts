import * as vscode from 'vscode';
import * as path from 'node:path';
import type { ArborServices } from '../services';
import { contextUse, type ContextUse } from '../contextInfo';
import { messagePreview, formatTokens } from '../tree/preview';
import { messageParts } from '../../engine/tokens/messageText';
import type { AgentMessage } from '../../engine/session/types';
import { readConfig } from '../settings';

export const CONTEXT_SCHEME = 'arbor-context';
const MAX_CHARS = 4000;

function fence(text: string): string {
  let ticks = 3;
  for (const m of text.matchAll(/`{3,}/g)) ticks = Math.max(ticks, m[0].length + 1);
  const f = '`'.repeat(ticks);
  return `${f}text\n${text}\n${f}`;
}

function messageBody(m: AgentMessage): string {
  if (m.role === 'assistant') {
    const out: string[] = [];
    for (const b of Array.isArray(m.content) ? m.content : []) {
      if (b.type === 'text') out.push(b.text);
      else if (b.type === 'thinking') out.push(`(thinking) ${b.thinking}`);
      else if (b.type === 'toolCall') out.push(`→ ${b.name}(${JSON.stringify(b.arguments)})`);
    }
    return out.join('\n\n');
  }
  if (m.role === 'bashExecution') return `$ ${m.command}\n${m.output}`;
  const parts = messageParts(m);
  const text = parts.texts.join('\n\n');
  return parts.images ? `${text}\n[${parts.images} image(s)]` : text;
}

/** The context as a read-only markdown document: what the LLM sees, with token counts. */
export function renderContext(use: ContextUse, title: string, idOf: (entryIndex: number) => string): string {
  const n = (v: number) => v.toLocaleString('en-US');
  const pct = use.contextWindow > 0 ? Math.round((use.tokens.tokens / use.contextWindow) * 100) : 0;
  const lines: string[] = [];
  lines.push(`# Context of "${title.replace(/[\r\n]+/g, ' ')}"`, '');
  lines.push(`- Leaf: \`${use.leafId ?? '(none)'}\` · model: ${use.model ? `${use.model.provider}/${use.model.modelId}` : 'unknown'} · thinking: ${use.thinkingLevel}`);
  lines.push(`- **Context: ${n(use.tokens.tokens)} tokens** of ${n(use.contextWindow)} (${pct}%) · estimator: ${readConfig().estimator}`);
  if (use.tokens.lastUsageIndex !== null) {
    lines.push(`  - ${n(use.tokens.usageTokens)} reported by the provider for message ${use.tokens.lastUsageIndex + 1}, plus ${n(use.tokens.trailingTokens)} estimated after it`);
  } else {
    lines.push('  - no provider usage on this path: everything is estimated');
  }
  lines.push(`- Compaction threshold: ${n(use.threshold)} (context window − reserveTokens ${n(use.settings.reserveTokens)}) · compaction.enabled: ${use.settings.enabled}${use.overThreshold ? ' · **over the threshold: compaction due**' : ''}`);
  if (use.settingsError) lines.push(`- ⚠ Pi settings could not be read: ${use.settingsError} (defaults used)`);
  lines.push('', `| # | Role | Tokens | Entry |`, `|---:|---|---:|---|`);
  use.messages.forEach((m, i) => {
    const p = messagePreview(m.message);
    lines.push(`| ${i + 1} | ${p.title.replace(/\|/g, '\\|')} | ${formatTokens(m.tokens)} | \`${use.messages[i] ? idOf(m.entryIndex) : ''}\` |`);
  });
  lines.push('');
  use.messages.forEach((m, i) => {
    const p = messagePreview(m.message);
    lines.push(`## ${i + 1}. ${p.title.replace(/[\r\n]+/g, ' ')} · ${n(m.tokens)} tokens · \`${idOf(m.entryIndex)}\``, '');
    let body = messageBody(m.message);
    if (body.length > MAX_CHARS) body = `${body.slice(0, MAX_CHARS)}\n… (${n(body.length - MAX_CHARS)} more characters)`;
    lines.push(fence(body), '');
  });
  return lines.join('\n');
}

/** Serves arbor-context: documents (regenerated on open and when the session changes). */
export class ContextDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;
  private readonly open = new Map<string, vscode.Uri>();
  private readonly sub: vscode.Disposable;

  constructor(private readonly arbor: ArborServices) {
    this.sub = arbor.store.onDidChange((model) => {
      for (const [file, uri] of this.open) if (!model || model.file === file) this.emitter.fire(uri);
    });
  }

  dispose(): void {
    this.sub.dispose();
    this.emitter.dispose();
  }

  static uriFor(file: string, leafId?: string, title?: string): vscode.Uri {
    const query = new URLSearchParams({ file, ...(leafId ? { leaf: leafId } : {}) }).toString();
    const name = (title ?? path.basename(file, '.jsonl')).replace(/[\\/:*?"<>|#%\r\n]+/g, ' ').trim().slice(0, 40).trim() || 'session';
    return vscode.Uri.from({ scheme: CONTEXT_SCHEME, path: `/${name}${leafId ? ` @ ${leafId}` : ''}.context.md`, query });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const q = new URLSearchParams(uri.query);
    const file = q.get('file') ?? '';
    const leaf = q.get('leaf') ?? undefined;
    this.open.set(file, uri);
    const session = await this.arbor.peekSession(file);
    if (!session) return `Session ${file} could not be loaded.`;
    const { index } = session;
    const leafIndex = leaf ? index.indexOf(leaf) : index.leafIndex;
    if (leafIndex < 0 && leaf) return `Entry ${leaf} is not in ${file}.`;
    const use = await contextUse(index, leafIndex, { messages: true });
    return renderContext(use, session.title, (i) => index.record(i).id);
  }
}

/** Arbor: Show Context. What the LLM sees at the selected entry (or the leaf), with token counts. */
export async function showContextCommand(arbor: ArborServices, node?: unknown): Promise<vscode.Uri | undefined> {
  const n = (node ?? arbor.treeView.selection[0]) as { type?: string; file?: unknown; entryId?: unknown } | undefined;
  const model = await arbor.resolveSession(n && typeof n.file === 'string' ? n.file : undefined);
  if (!model) return undefined;
  const entryId = n?.type === 'entry' && typeof n.entryId === 'string' ? n.entryId : undefined;
  const uri = ContextDocuments.uriFor(model.file, entryId, model.title);
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
  await vscode.window.showTextDocument(doc, { preview: true });
  return uri;
}
