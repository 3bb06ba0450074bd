import { editReplacements, replayEdits } from './applyEdits';
import { commandWords, isReadOnlyCommand } from './bashEffects';
import { mentionKeys, relativeTo, resolveToolPath, type ResolvedPath } from './filePaths';
import { fullReadText, lossyReadReason } from './readResult';
import { patchFileChanges } from './patchChanges';
import type { FileChange, FileContent, FileHistory, InitialContents } from './types';
import type { SessionEntry } from '../session/types';
import { isToolCallBlock } from '../session/contentBlocks';
import { isRecord } from '../session/jsonObject';
import { piToolCall, wholeFileText } from '../session/agents/toolCalls';
import type { AgentKind } from '../session/agents/agentKind';

/**
 * The history of every file touched along a sequence of entries (a path from
 * the root, or the whole session in file order), in one pass.
 *
 * Tool calls take effect at their result: a write or edit only when the
 * result is not an error (a call without a result changed nothing); a full
 * read establishes the content it shows. A command the session cannot see
 * into (a `bash` call that is not read-only, with or without a result or an
 * error, a user's `!command`, any tool Arbor does not know) may change any
 * file: files it names become unknown, others are only "assumed" (see
 * bashEffects.ts). Work is linear in the entries' size: every replayed edit
 * costs its file's length, paid from a budget that grows with the text the
 * session holds; past it, contents are reported unknown rather than computed.
 */
export interface FileHistoryOptions {
  cwd: string;
  /** Contents before the first entry, by absolute path (files not listed: not shown by the session). */
  initial?: InitialContents;
  /** Absolute paths to report even if no entry touches them (their initial content, after the path's commands). */
  track?: Iterable<string>;
  signal?: AbortSignal;
  /** The agent that wrote the entries: another agent's file tools are read in Pi's terms (agents/toolCalls.ts). */
  agent?: AgentKind;
}

export interface OpaqueEvent {
  entryId: string;
  command: string;
}

export interface FileHistoryResult {
  /** By absolute path, in the order the entries first touch them. */
  files: Map<string, FileHistory>;
  /** Commands that may have changed files, in order. */
  opaque: OpaqueEvent[];
  /** Full reads of files before any change in this sequence: the file's content when the sequence started. */
  firstReads: Map<string, { entryId: string; content: FileContent }>;
}

interface Tracked {
  hist: FileHistory;
  resolved: ResolvedPath;
  content: FileContent;
  /** Number of opaque events already applied to `content`. */
  epoch: number;
  keys: string[];
  changed: boolean;
  /** A read, write or edit of it succeeded earlier in the sequence (it existed). */
  seen: boolean;
}

interface PendingCall {
  name: string;
  args: Record<string, unknown>;
  entryId: string;
}

const FILE_TOOLS_WITHOUT_EFFECT = new Set(['read', 'grep', 'find', 'ls']);
const BUDGET_PER_CHAR = 32;
const BUDGET_PER_EVENT = 1 << 16;

const notShown = (): FileContent => ({ state: 'unknown', reason: 'the session never showed its whole content' });

export function fileHistory(entries: Iterable<SessionEntry>, options: FileHistoryOptions): FileHistoryResult {
  const files = new Map<string, Tracked>();
  const firstReads = new Map<string, { entryId: string; content: FileContent }>();
  const opaque: OpaqueEvent[] = [];
  const lastMention = new Map<string, number>();
  const pending = new Map<string, PendingCall>();
  let budget = 0;
  let count = 0;

  const track = (raw: string): Tracked => trackResolved(resolveToolPath(raw, options.cwd));
  const trackResolved = (resolved: ResolvedPath): Tracked => {
    let t = files.get(resolved.absPath);
    if (!t) {
      t = {
        hist: { absPath: resolved.absPath, path: resolved.path, insideCwd: resolved.insideCwd, changes: [], final: notShown() },
        resolved,
        content: options.initial?.get(resolved.absPath) ?? notShown(),
        epoch: 0,
        keys: mentionKeys(resolved),
        changed: false,
        seen: false,
      };
      files.set(resolved.absPath, t);
    }
    return t;
  };

  /** The content now: opaque events since it was established are applied. */
  const current = (t: Tracked): FileContent => {
    if (t.epoch < opaque.length) t.content = afterOpaque(t, t.content, t.epoch);
    t.epoch = opaque.length;
    return t.content;
  };

  const afterOpaque = (t: Tracked, c: FileContent, since: number): FileContent => {
    if (since >= opaque.length) return c;
    let named = -1;
    for (const k of t.keys) named = Math.max(named, lastMention.get(k) ?? -1);
    if (named >= since) {
      const ev = opaque[named];
      return { state: 'unknown', reason: `${describe(ev)} at ${ev.entryId} names it`, afterEntryId: ev.entryId };
    }
    if (c.state !== 'known') return c;
    const ev = opaque[since];
    return { state: 'assumed', text: c.text, reason: `${describe(ev)} at ${ev.entryId} may have changed it`, afterEntryId: ev.entryId };
  };

  const addOpaque = (entryId: string, command: string, readOnly: boolean) => {
    if (readOnly) return;
    const at = opaque.length;
    opaque.push({ entryId, command });
    for (const w of commandWords(command)) lastMention.set(w, at);
  };

  const onResult = (call: PendingCall, resultEntryId: string, toolCallId: string, isError: boolean, content: unknown, details: unknown) => {
    const { name, args, entryId } = call;
    if (name === 'bash') {
      const command = typeof args.command === 'string' ? args.command : '';
      addOpaque(entryId, command, command !== '' && isReadOnlyCommand(command));
      return;
    }
    if (name === 'patch') {
      const files = isError ? [] : patchFileChanges(isRecord(details) ? details.fileChanges : undefined);
      if (!files.length) {
        addOpaque(entryId, `apply_patch ${argumentWords(args)}`, false);
        return;
      }
      for (const f of files) {
        const t = track(f.path);
        const before = current(t);
        if (!t.seen && f.kind === 'add' && !options.initial?.has(t.hist.absPath)) t.hist.firstSeenByWrite = { entryId };
        t.seen = true;
        if (f.kind === 'add') {
          budget += f.content.length * BUDGET_PER_CHAR;
          record(t, {
            entryId,
            resultEntryId,
            toolCallId,
            kind: 'write',
            content: f.content,
            before,
            after: { state: 'known', text: f.content },
          });
        } else if (f.kind === 'delete')
          record(t, {
            entryId,
            resultEntryId,
            toolCallId,
            kind: 'write',
            content: '',
            before,
            after: { state: 'absent', reason: `deleted at ${entryId}` },
          });
        else {
          for (const e of f.edits) budget += (e.oldText.length + e.newText.length) * BUDGET_PER_CHAR;
          record(t, {
            entryId,
            resultEntryId,
            toolCallId,
            kind: 'edit',
            edits: f.edits,
            before,
            after: applyEdit(before, f.edits, entryId),
          });
        }
      }
      return;
    }
    if (!FILE_TOOLS_WITHOUT_EFFECT.has(name) && name !== 'write' && name !== 'edit') {
      addOpaque(entryId, `${name} ${argumentWords(args)}`, false);
      return;
    }
    if (isError || typeof args.path !== 'string' || !args.path) return;
    if (name === 'read') {
      const t = track(args.path);

      t.seen = true;
      const text = wholeFileText(details) ?? fullReadText(args, content, details);
      if (text === undefined) return;
      budget += text.length * BUDGET_PER_CHAR;
      const lossy = lossyReadReason(text);
      const shown: FileContent = lossy
        ? { state: 'unknown', reason: `${lossy} at ${entryId}`, afterEntryId: entryId }
        : { state: 'known', text };
      if (!t.changed && !firstReads.has(t.hist.absPath)) {
        firstReads.set(t.hist.absPath, { entryId, content: afterOpaque(t, shown, 0) });
      }
      current(t);
      t.content = shown;
      return;
    }
    if (name === 'write') {
      if (typeof args.content !== 'string') return;
      budget += args.content.length * BUDGET_PER_CHAR;
      const t = track(args.path);
      const before = current(t);
      if (!t.seen && !options.initial?.has(t.hist.absPath)) t.hist.firstSeenByWrite = { entryId };
      t.seen = true;
      const after: FileContent = { state: 'known', text: args.content };
      record(t, { entryId, resultEntryId, toolCallId, kind: 'write', content: args.content, before, after });
      return;
    }
    if (name === 'edit') {
      const edits = editReplacements(args);
      if (!edits) return;
      for (const e of edits) budget += (e.oldText.length + e.newText.length) * BUDGET_PER_CHAR;
      const t = track(args.path);
      t.seen = true;
      const before = current(t);
      record(t, { entryId, resultEntryId, toolCallId, kind: 'edit', edits, before, after: applyEdit(before, edits, entryId) });
    }
  };

  const applyEdit = (before: FileContent, edits: { oldText: string; newText: string }[], entryId: string): FileContent => {
    if (before.state !== 'known' && before.state !== 'assumed') {
      return { state: 'unknown', reason: `edited at ${entryId} while its content was unknown (${before.reason})`, afterEntryId: entryId };
    }
    let cost = before.text.length;
    for (const e of edits) cost += e.oldText.length + e.newText.length;
    if (cost > budget)
      return {
        state: 'unknown',
        reason: `the edit at ${entryId} was not replayed: too much text for the linear work budget`,
        afterEntryId: entryId,
      };
    budget -= cost;
    const r = replayEdits(before.text, edits);
    if (!r.ok)
      return {
        state: 'unknown',
        reason: `the edit at ${entryId} succeeded in the session but does not replay exactly: ${r.reason}`,
        afterEntryId: entryId,
      };
    return before.state === 'known' ? { state: 'known', text: r.text } : { ...before, text: r.text };
  };

  const record = (t: Tracked, change: FileChange) => {
    t.hist.changes.push(change);
    t.content = change.after;
    t.changed = true;
  };

  const flushPending = () => {
    for (const call of pending.values())
      if (call.name !== 'write' && call.name !== 'edit' && call.name !== 'patch' && !FILE_TOOLS_WITHOUT_EFFECT.has(call.name))
        onResult(call, call.entryId, '', true, undefined, undefined);
    pending.clear();
  };

  for (const abs of options.track ?? []) trackResolved({ absPath: abs, ...relativeTo(abs, options.cwd) });

  for (const entry of entries) {
    if ((++count & 1023) === 0) options.signal?.throwIfAborted();
    budget += BUDGET_PER_EVENT;
    if (entry.type !== 'message') continue;
    const m = entry.message;
    if (!m) continue;
    if (m.role === 'assistant' && Array.isArray(m.content)) {
      flushPending();
      for (const b of m.content) {
        if (!isToolCallBlock(b) || typeof b.id !== 'string' || typeof b.name !== 'string') continue;
        const call = piToolCall(options.agent ?? 'pi', b.name, isRecord(b.arguments) ? b.arguments : {});
        pending.set(b.id, { ...call, entryId: entry.id });
      }
    } else if (m.role === 'toolResult') {
      const id = typeof m.toolCallId === 'string' ? m.toolCallId : '';
      const call = pending.get(id) ?? { name: typeof m.toolName === 'string' ? m.toolName : '', args: {}, entryId: entry.id };
      pending.delete(id);
      onResult(call, entry.id, id, m.isError === true, m.content, m.details);
    } else if (m.role === 'bashExecution') {
      const command = typeof m.command === 'string' ? m.command : '';
      addOpaque(entry.id, command, command !== '' && isReadOnlyCommand(command));
    }
  }
  flushPending();

  const out = new Map<string, FileHistory>();
  for (const [abs, t] of files) {
    t.hist.final = current(t);
    out.set(abs, t.hist);
  }
  return { files: out, opaque, firstReads };
}

function describe(ev: OpaqueEvent): string {
  const cmd = ev.command.length > 60 ? `${ev.command.slice(0, 57)}…` : ev.command;
  return `command \`${cmd.split('\n').join(' ')}\``;
}

function argumentWords(args: Record<string, unknown>): string {
  const words: string[] = [];
  for (const v of Object.values(args)) if (typeof v === 'string') words.push(v);
  return words.join(' ');
}
