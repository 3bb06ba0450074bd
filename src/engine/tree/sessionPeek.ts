import { contentText } from './entryPreview';
import { baseTitle, labelFact, titleText, type TitleFacts } from './sessionTitle';
import { checkEntryObject } from '../session/parseLine';
import { isRecord } from '../session/jsonObject';
import { openRegularFile } from '../session/sessionFile';
import { agentOfHead, type AgentKind } from '../session/agents/agentKind';
import { foreignPeekFacts } from '../session/agents/peekFacts';

/**
 * What a session list shows about a session, from a bounded read of its
 * file: the header and first user message from its head, its name
 * (session_info) and last activity from its tail, its size from stat, and its
 * entry count (exact for files up to `exactCountBytes`, else estimated from
 * the average line length of the bytes read, and marked as such).
 */
export interface SessionPeek {
  id: string;
  cwd: string;
  /** Header timestamp (ms since epoch); undefined when missing or invalid. */
  startedMs: number | undefined;
  /** The newest session_info name seen in the head or the tail. */
  name: string | undefined;
  firstUserMessage: string | undefined;
  /** The newest user message seen (in the whole file when it is read whole, else in the head and the tail). */
  latestUserMessage: string | undefined;
  /** Timestamp of the first entry with one (ms since epoch), else undefined: the header's time may be later (a copy). */
  firstActivityMs: number | undefined;
  /** Timestamp of the last entry (ms since epoch), else undefined. */
  lastActivityMs: number | undefined;
  /** The newest label set (sessionTitle.ts labelFact), in the head and the tail. */
  latestLabel: string | undefined;
  /** Branch tips (entries no other entry continues): counted in files read whole, else undefined. */
  branchCount: number | undefined;
  size: number;
  /** Entry lines (the header not counted). */
  entryCount: number;
  entryCountExact: boolean;
  /** The agent that wrote the file (told from its first lines). */
  agent: AgentKind;
}

export interface PeekOptions {
  headBytes?: number;
  tailBytes?: number;
  /** Files up to this size have their lines counted (one read); larger ones get an estimate. */
  exactCountBytes?: number;
  signal?: AbortSignal;
}

function parse(line: string): Record<string, unknown> | undefined {
  try {
    const o: unknown = JSON.parse(line);
    return isRecord(o) ? o : undefined;
  } catch {
    return undefined;
  }
}

function timeOf(o: Record<string, unknown>): number | undefined {
  if (typeof o.timestamp !== 'string') return undefined;
  const t = Date.parse(o.timestamp);
  return Number.isNaN(t) ? undefined : t;
}

function countNewlines(buf: Buffer, length: number): number {
  let n = 0;
  for (let at = buf.indexOf(10, 0); at >= 0 && at < length; at = buf.indexOf(10, at + 1)) n++;
  return n;
}

/** The name, first and latest request an entry gives (entries seen in file order). */
function noteTitleFacts(peek: SessionPeek, o: Record<string, unknown>, head: boolean): void {
  if (o.type === 'label' && Object.hasOwn(o, 'label')) peek.latestLabel = labelFact(o.label) ?? peek.latestLabel;
  if (o.type === 'session_info' && typeof o.name === 'string' && o.name.trim()) peek.name = titleText(o.name);
  const m = isRecord(o.message) ? o.message : undefined;
  if (o.type !== 'message' || m?.role !== 'user') return;
  const text = titleText(contentText(m.content)) || undefined;
  if (!text) return;
  if (head && !peek.firstUserMessage) peek.firstUserMessage = text;
  peek.latestUserMessage = text;
}

export async function peekSession(file: string, options: PeekOptions = {}): Promise<SessionPeek> {
  const headBytes = options.headBytes ?? 64 * 1024;
  const tailBytes = options.tailBytes ?? 64 * 1024;
  const exactCountBytes = options.exactCountBytes ?? 8 * 1024 * 1024;
  const fh = await openRegularFile(file);
  try {
    const { size } = await fh.stat();
    const whole = size <= exactCountBytes;
    const head = Buffer.alloc(whole ? size : Math.min(size, headBytes));
    const { bytesRead: headRead } = await fh.read(head, 0, head.length, 0);
    options.signal?.throwIfAborted();
    const peek: SessionPeek = {
      id: '',
      cwd: '',
      startedMs: undefined,
      name: undefined,
      firstUserMessage: undefined,
      latestUserMessage: undefined,
      firstActivityMs: undefined,
      lastActivityMs: undefined,
      latestLabel: undefined,
      branchCount: undefined,
      size,
      entryCount: 0,
      entryCountExact: whole,
      agent: agentOfHead(head.subarray(0, headRead), whole) ?? 'pi',
    };
    const note = peek.agent === 'pi' ? undefined : foreignNoter(peek, peek.agent);

    // Head: complete lines only (the last one may be cut off unless the whole file was read).
    const headText = head.toString('utf8', 0, headRead);
    const headLines = headText.split('\n');
    if (!(whole && headRead === size)) headLines.pop();
    let lineCount = 0;
    // Ids and parents of the entries read, for the branch count of a file read whole.
    const ids = new Set<string>();
    const parents = new Set<string>();
    headLines.forEach((line, k) => {
      if (!line.trim()) return;
      lineCount++;
      // Scanning stops early only for what is already known; still linear in the bytes read.
      const o = parse(line.charCodeAt(0) === 0xfeff ? line.slice(1) : line);
      if (!o) return;
      if (note) return note(o, true);
      if (k === 0 && o.type === 'session') {
        peek.id = typeof o.id === 'string' ? o.id : '';
        peek.cwd = typeof o.cwd === 'string' ? o.cwd : '';
        peek.startedMs = timeOf(o);
        return;
      }
      // An entry whose shape is wrong (see entryShape.ts) gives no title.
      if (checkEntryObject(o, 2).ok) noteTitleFacts(peek, o, true);
      if (typeof o.id === 'string') ids.add(o.id);
      if (typeof o.parentId === 'string') parents.add(o.parentId);
      noteTime(peek, o);
    });

    if (whole) {
      peek.entryCount = Math.max(0, lineCount - 1);
      if (peek.agent === 'pi') {
        let tips = 0;
        for (const id of ids) if (!parents.has(id)) tips++;
        peek.branchCount = tips;
      }
      return peek;
    }

    // Tail: the last complete lines give the newest name and the last activity.
    const tail = Buffer.alloc(Math.min(size, tailBytes));
    const from = size - tail.length;
    const { bytesRead: tailRead } = await fh.read(tail, 0, tail.length, from);
    options.signal?.throwIfAborted();
    const tailLines = tail.toString('utf8', 0, tailRead).split('\n');
    if (from > 0) tailLines.shift(); // cut off at the start
    for (const line of tailLines) {
      if (!line.trim()) continue;
      const o = parse(line);
      if (!o) continue;
      if (note) {
        note(o, false);
        continue;
      }
      noteTitleFacts(peek, o, false);
      noteTime(peek, o);
    }
    // Estimate: the file's size over the average line length of the bytes read.
    const sampledBytes = headRead + tailRead;
    const sampledLines = countNewlines(head, headRead) + countNewlines(tail, tailRead);
    peek.entryCount = sampledLines > 0 ? Math.max(0, Math.round((size * sampledLines) / sampledBytes) - 1) : 0;
    peek.entryCountExact = false;
    return peek;
  } finally {
    await fh.close();
  }
}

/** Notes what a record of another agent's session tells (its records are not Pi entries). */
function foreignNoter(peek: SessionPeek, agent: Exclude<AgentKind, 'pi'>): (o: Record<string, unknown>, head: boolean) => void {
  /** The first prompt's enqueue time: a user message older than it was copied by a fork (not its first request). */
  let enqueuedMs: number | undefined;
  return (o, head) => {
    const f = foreignPeekFacts(agent, o);
    if (f.enqueued) enqueuedMs ??= timeOf({ timestamp: f.enqueued });
    if (!peek.id && f.id) peek.id = f.id;
    if (!peek.cwd && f.cwd) peek.cwd = f.cwd;
    if (peek.startedMs === undefined && f.started) peek.startedMs = timeOf({ timestamp: f.started });
    if (f.name?.trim()) peek.name = titleText(f.name);
    const text = f.userText ? titleText(f.userText) : undefined;
    if (text) {
      const at = f.started ? timeOf({ timestamp: f.started }) : undefined;
      const copied = enqueuedMs !== undefined && at !== undefined && at < enqueuedMs;
      if (head && !peek.firstUserMessage && !copied) peek.firstUserMessage = text;
      peek.latestUserMessage = text;
    }
    noteTime(peek, o);
  };
}

/** The first and last activity an entry's timestamp gives (entries seen in file order). */
function noteTime(peek: SessionPeek, o: Record<string, unknown>): void {
  const t = timeOf(o);
  if (t === undefined) return;
  peek.firstActivityMs ??= t;
  peek.lastActivityMs = t;
}

/** The title of a session in a list: its name, else its first user message (sessionTitle.ts). */
export function peekTitle(peek: SessionPeek): string | undefined {
  return baseTitle({ name: peek.name, firstRequest: peek.firstUserMessage });
}

/** What the session-title rule reads, from a peek. */
export function peekTitleFacts(peek: SessionPeek): TitleFacts {
  return {
    name: peek.name,
    firstRequest: peek.firstUserMessage,
    latestRequest: peek.latestUserMessage,
    startedMs: peek.startedMs,
    ...(peek.latestLabel !== undefined ? { latestLabel: peek.latestLabel } : {}),
    ...(peek.branchCount !== undefined ? { branches: peek.branchCount } : {}),
    entries: peek.entryCount,
    ...(peek.entryCountExact ? {} : { entriesApprox: true }),
  };
}
