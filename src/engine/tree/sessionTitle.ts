import * as path from 'node:path';
import { contentText } from './entryPreview';
import { oneLine } from './oneLine';
import { isAgentWrittenRequest } from '../session/agents/peekFacts';
import { entryRead, walkInMemory, type EntryWalk } from '../session/entryWalk';
import type { SessionIndex } from '../session/sessionIndex';
import { isPinLabel, unpinLabel } from '../compaction/pins';

/**
 * The one rule for what a session is called, in the sidebar, cross-session
 * search, the status bar, the panels and `arbor sessions`: Pi's session name
 * (the newest session_info) when set, else the first request, else its file
 * name (`shownTitle`). When several sessions of a list get the same title,
 * each is told apart by what differs (`sessionTitles`): its newest request,
 * else its newest label, else its branch and entry counts, else when it
 * started.
 */
export interface TitleFacts {
  /** The newest session_info name, if any. */
  name: string | undefined;
  firstRequest: string | undefined;
  latestRequest: string | undefined;
  /** Time of the session's first entry (its header), ms since epoch. */
  startedMs: number | undefined;
  /** The newest label set (a pin's label without its pin), if any. */
  latestLabel?: string;
  /** Branch tips (entries nobody continues); undefined when not counted (a large file not indexed yet). */
  branches?: number;
  /** Entries (the header not counted); `entriesApprox` when estimated from the bytes read. */
  entries?: number;
  entriesApprox?: boolean;
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

/** The title to show for a session: its title (baseTitle), else its file's name without `.jsonl` (the one fallback). */
export function shownTitle(title: string | undefined, file: string): string {
  return title || path.basename(file).replace(/\.jsonl$/i, '') || file;
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

/** "2 branches · 52 entries", "~48,100 entries" (one branch is not said); undefined when nothing is counted. */
export function countsText(f: Pick<TitleFacts, 'branches' | 'entries' | 'entriesApprox'>): string | undefined {
  const parts: string[] = [];
  if (f.branches !== undefined && f.branches > 1) parts.push(`${f.branches.toLocaleString('en-US')} branches`);
  if (f.entries !== undefined)
    parts.push(`${f.entriesApprox ? '~' : ''}${f.entries.toLocaleString('en-US')} entr${f.entries === 1 ? 'y' : 'ies'}`);
  return parts.length ? parts.join(' · ') : undefined;
}

/** Prefix of a `differs` naming the newest request (the narrow title line drops it). */
const LATEST = 'latest: ';

/** Tells the members of one group of equal titles apart: the first way under which each is unique. */
function differences(group: TitleFacts[], title: string | undefined): (string | undefined)[] {
  const ways: ((f: TitleFacts) => string | undefined)[] = [
    // The newest request, when it is not the title itself (a one-request session has nothing newer to say).
    (f) => (f.latestRequest && f.latestRequest !== title ? `${LATEST}${f.latestRequest}` : undefined),
    (f) => (f.latestLabel ? `#${f.latestLabel}` : undefined),
    (f) => countsText(f),
    (f) => (f.startedMs !== undefined ? `started ${startedText(f.startedMs)}` : undefined),
    (f) => (f.startedMs !== undefined ? `started ${startedText(f.startedMs, true)}` : undefined),
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
    // Nothing unique (copies of one file): what it has, the request or label, the counts and the start together.
    return [ways[0](f) ?? ways[1](f), ways[2](f), ways[4](f)].filter(Boolean).join(' · ') || undefined;
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
  for (const [key, members] of groups) {
    if (members.length < 2) continue;
    const d = differences(
      members.map((k) => list[k]),
      key || undefined,
    );
    members.forEach((k, j) => (out[k].differs = d[j]));
  }
  return out;
}

/** The length a shared title is cut to in a narrow line (the sidebar), so what tells it apart shows. */
export const NARROW_SHARED_TITLE = 14;

/** `text` cut at a word boundary to at most `max` characters, "…" marking the cut. */
function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max - 1);
  const space = head.lastIndexOf(' ');
  return `${(space > max / 2 ? head.slice(0, space) : head).replace(/[\s,.;:]+$/, '')}…`;
}

/**
 * One line for a title: `title (differs)`, or with `narrow` (the sidebar at
 * its default width) the shared title cut short and what tells it apart
 * after it: `Take a look… › Add pow(a, b)` (the newest request),
 * `Take a look… · #mul-done`. `file` names a session with no title
 * (shownTitle).
 */
export function titleLine(t: SessionTitle, file: string, options: { narrow?: boolean } = {}): string {
  const title = shownTitle(t.title, file);
  if (!t.differs) return title;
  if (!options.narrow) return `${title} (${t.differs})`;
  const latest = t.differs.startsWith(LATEST);
  return `${cutAtWord(title, NARROW_SHARED_TITLE)} ${latest ? '›' : '·'} ${latest ? t.differs.slice(LATEST.length) : t.differs}`;
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
  let latestLabel: string | undefined;
  for (let i = index.entryCount - 1; i >= 0 && (name === undefined || latestRequest === undefined || latestLabel === undefined); i--) {
    const rec = index.record(i);
    if (latestLabel === undefined && rec.type === 'label') latestLabel = labelFact(index.entryOfType(i, 'label')?.label);
    else if (name === undefined && rec.type === 'session_info') {
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
  return {
    name,
    firstRequest,
    latestRequest,
    startedMs: Number.isNaN(started) ? undefined : started,
    ...(latestLabel !== undefined ? { latestLabel } : {}),
    ...indexCounts(index),
  };
}

/** A label entry's text as a title fact: a pin's label without the pin ("pinned" for a bare pin); nothing when cleared. */
export function labelFact(label: unknown): string | undefined {
  if (typeof label !== 'string' || !label.trim()) return undefined;
  return titleText(isPinLabel(label) ? unpinLabel(label) || 'pinned' : label);
}

/** The branch and entry counts of an indexed session (exact). */
function indexCounts(index: SessionIndex): Pick<TitleFacts, 'branches' | 'entries'> {
  return { branches: index.leaves().length, entries: index.entryCount };
}

/** The title facts after entries from `first` on were appended, from entries in memory (see titleFactsAfterAppendWalk). */
export function titleFactsAfterAppend(index: SessionIndex, first: number, facts: TitleFacts): TitleFacts {
  return walkInMemory(titleFactsAfterAppendWalk(index, first, facts));
}

/** The title facts after entries from `first` on were appended, as a walk: only the new entries are read. */
export function* titleFactsAfterAppendWalk(index: SessionIndex, first: number, facts: TitleFacts): EntryWalk<TitleFacts> {
  const next: TitleFacts = { ...facts, ...indexCounts(index) };
  delete next.entriesApprox;
  const users: number[] = [];
  for (let i = Math.max(0, first); i < index.entryCount; i++) {
    const rec = index.record(i);
    if (rec.type === 'message' && rec.role === 'user') users.push(i);
  }
  let k = 0;
  for (let i = Math.max(0, first); i < index.entryCount; i++) {
    const rec = index.record(i);
    if (rec.type === 'label') {
      const label = labelFact(index.entryOfType(i, 'label')?.label);
      if (label) next.latestLabel = label;
    } else if (rec.type === 'session_info') {
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
