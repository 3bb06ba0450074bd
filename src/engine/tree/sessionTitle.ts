import { contentText } from './entryPreview';
import { oneLine } from './oneLine';
import { isAgentWrittenRequest } from '../session/agents/peekFacts';
import { entryRead, walkInMemory, type EntryWalk } from '../session/entryWalk';
import type { SessionIndex } from '../session/sessionIndex';

/**
 * The one rule for what a session is called, in the sidebar, cross-session
 * search, the status bar and `arbor sessions`: Pi's session name (the newest
 * session_info) when set, else the first request. When several sessions
 * of a list get the same title, each is told apart by what differs: the
 * time of its first entry, else its latest request.
 */
export interface TitleFacts {
  /** The newest session_info name, if any. */
  name: string | undefined;
  firstRequest: string | undefined;
  latestRequest: string | undefined;
  /** Time of the session's first entry (its header), ms since epoch. */
  startedMs: number | undefined;
}

export interface SessionTitle {
  /** The name or first request; undefined when the session has neither. */
  title: string | undefined;
  /** What tells it apart from sessions of the same list with the same title (absent when none shares it). */
  differs: string | undefined;
}

export const TITLE_MAX = 80;

/** Pi's session name when set, else the first request. */
export function baseTitle(f: Pick<TitleFacts, 'name' | 'firstRequest'>): string | undefined {
  return f.name || f.firstRequest || undefined;
}

/** A session name or request as one title line (bounded; control characters and line breaks folded). */
export function titleText(text: string): string {
  return oneLine(text, TITLE_MAX);
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** `2026-05-12 14:03` (local time), with seconds when `seconds`. */
export function startedText(ms: number, seconds = false): string {
  const d = new Date(ms);
  const day = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  return `${day} ${pad(d.getHours())}:${pad(d.getMinutes())}${seconds ? `:${pad(d.getSeconds())}` : ''}`;
}

/** Tells the members of one group of equal titles apart: the first way under which each is unique. */
function differences(group: TitleFacts[]): (string | undefined)[] {
  const ways: ((f: TitleFacts) => string | undefined)[] = [
    (f) => (f.startedMs !== undefined ? `started ${startedText(f.startedMs)}` : undefined),
    (f) => (f.startedMs !== undefined ? `started ${startedText(f.startedMs, true)}` : undefined),
    (f) => (f.latestRequest ? `latest: ${f.latestRequest}` : undefined),
  ];
  const counts = ways.map((way) => {
    const n = new Map<string, number>();
    for (const f of group) {
      const k = way(f);
      if (k !== undefined) n.set(k, (n.get(k) ?? 0) + 1);
    }
    return n;
  });
  return group.map((f) => {
    for (let w = 0; w < ways.length; w++) {
      const k = ways[w](f);
      if (k !== undefined && counts[w].get(k) === 1) return k;
    }
    // Nothing unique: the time and the latest request together, whatever they are.
    return [ways[0](f), ways[2](f)].filter(Boolean).join(' · ') || undefined;
  });
}

/** The titles of a list of sessions, each told apart from the others with the same title. Linear in the list. */
export function sessionTitles(list: readonly TitleFacts[]): SessionTitle[] {
  const groups = new Map<string, number[]>();
  const out: SessionTitle[] = list.map((f, k) => {
    const title = baseTitle(f);
    const key = title ?? '';
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(k);
    return { title, differs: undefined };
  });
  for (const members of groups.values()) {
    if (members.length < 2) continue;
    const d = differences(members.map((k) => list[k]));
    members.forEach((k, j) => (out[k].differs = d[j]));
  }
  return out;
}

/**
 * One line for a title: `title (differs)`, or with `timeFirst` (a narrow
 * place: the sidebar), `differs · title` so what tells it apart is not cut
 * off. `fallback` when the session has no title (its file name).
 */
export function titleLine(t: SessionTitle, fallback: string, options: { timeFirst?: boolean } = {}): string {
  const title = t.title ?? fallback;
  if (!t.differs) return title;
  return options.timeFirst ? `${t.differs.replace(/^started /, '')} · ${title}` : `${title} (${t.differs})`;
}

/** The title facts of a session whose entries are in memory (see titleFactsWalk). */
export function titleFactsFromIndex(index: SessionIndex): TitleFacts {
  return walkInMemory(titleFactsWalk(index));
}

/**
 * The title facts of a loaded session as a walk (session/entryWalk.ts): record types are scanned, only the entries
 * used are read (the newest name, the first and the latest user requests).
 */
export function* titleFactsWalk(index: SessionIndex): EntryWalk<TitleFacts> {
  const request = function* (i: number): EntryWalk<string | undefined> {
    yield entryRead([i], 0, 1);
    const m = index.entryOfType(i, 'message')?.message;
    const text = contentText(m?.role === 'user' ? m.content : undefined);
    return isAgentWrittenRequest(index.agent, text) ? undefined : titleText(text) || undefined;
  };
  // Claude Code's `summary` record titles its session (the converter keeps it in the header).
  let name: string | undefined =
    typeof index.header.title === 'string' && index.header.title.trim() ? titleText(index.header.title) : undefined;
  let latestRequest: string | undefined;
  for (let i = index.entryCount - 1; i >= 0 && (name === undefined || latestRequest === undefined); i--) {
    const rec = index.record(i);
    if (name === undefined && rec.type === 'session_info') {
      const n: unknown = index.entryOfType(i, 'session_info')?.name;
      if (typeof n === 'string' && n.trim()) name = titleText(n);
    } else if (latestRequest === undefined && rec.type === 'message' && rec.role === 'user') latestRequest = yield* request(i);
  }
  let firstRequest: string | undefined;
  // A Claude Code fork's first entries are copied from its origin (loadForeign.ts): its first request is its own.
  const copied = index.header.copiedEntries;
  const own = typeof copied === 'number' && Number.isInteger(copied) && copied > 0 ? copied : 0;
  for (let i = own; i < index.entryCount && firstRequest === undefined; i++) {
    const rec = index.record(i);
    if (rec.type === 'message' && rec.role === 'user') firstRequest = yield* request(i);
  }
  const started = Date.parse(String(index.header.timestamp ?? ''));
  return { name, firstRequest, latestRequest, startedMs: Number.isNaN(started) ? undefined : started };
}

/** The title facts after entries from `first` on were appended, from entries in memory (see titleFactsAfterAppendWalk). */
export function titleFactsAfterAppend(index: SessionIndex, first: number, facts: TitleFacts): TitleFacts {
  return walkInMemory(titleFactsAfterAppendWalk(index, first, facts));
}

/** The title facts after entries from `first` on were appended, as a walk: only the new entries are read. */
export function* titleFactsAfterAppendWalk(index: SessionIndex, first: number, facts: TitleFacts): EntryWalk<TitleFacts> {
  const next = { ...facts };
  const users: number[] = [];
  for (let i = Math.max(0, first); i < index.entryCount; i++) {
    const rec = index.record(i);
    if (rec.type === 'message' && rec.role === 'user') users.push(i);
  }
  let k = 0;
  for (let i = Math.max(0, first); i < index.entryCount; i++) {
    const rec = index.record(i);
    if (rec.type === 'session_info') {
      const n: unknown = index.entryOfType(i, 'session_info')?.name;
      if (typeof n === 'string' && n.trim()) next.name = titleText(n);
    } else if (rec.type === 'message' && rec.role === 'user') {
      yield entryRead(users, k++, 1);
      const m = index.entryOfType(i, 'message')?.message;
      const text = titleText(contentText(m?.role === 'user' ? m.content : undefined)) || undefined;
      if (text) {
        next.latestRequest = text;
        next.firstRequest ??= text;
      }
    }
  }
  return next;
}
