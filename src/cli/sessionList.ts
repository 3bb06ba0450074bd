import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { listSessions, type SessionFileInfo } from '../engine/session/discovery';
import { piAgentDir } from '../engine/session/piAgentDir';
import { peekSession, peekTitleFacts } from '../engine/tree/sessionPeek';
import { countsText, sessionTitles, titleLine, type SessionTitle } from '../engine/tree/sessionTitle';
import { byLastActivity } from '../engine/tree/sessionOrder';

export interface ListedSession extends SessionFileInfo {
  /** The session's title, told apart from the others of the list (engine/tree/sessionTitle.ts). */
  title: SessionTitle;
  /** The title as one line (`title (what differs)`), the file name when there is none. */
  titleLine: string;
  /** The first and last entries' times (ms since epoch; the file's mtime when its entries have none). */
  firstActivityMs: number | undefined;
  lastActivityMs: number;
  /** "2 branches · 52 entries" (sessionTitle.ts countsText). */
  counts: string | undefined;
}

/** The session folders of every project: Pi's sessions folder's subfolders (or PI_CODING_AGENT_SESSION_DIR alone). */
export async function allSessionDirs(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  if (env.PI_CODING_AGENT_SESSION_DIR) return [env.PI_CODING_AGENT_SESSION_DIR];
  const root = path.join(piAgentDir(env), 'sessions');
  let names: import('node:fs').Dirent[];
  try {
    names = await fsp.readdir(root, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names
    .filter((d) => d.isDirectory())
    .map((d) => path.join(root, d.name))
    .sort();
}

/** The sessions of the folders, newest activity first (sessionOrder.ts), each with its title (a bounded read of its head and tail). */
export async function listedSessions(dirs: string[], others: SessionFileInfo[] = []): Promise<ListedSession[]> {
  const infos = [...(await Promise.all(dirs.map((d) => listSessions(d)))).flat(), ...others];
  const activity = new Map<string, { firstActivityMs: number | undefined; lastActivityMs: number }>();
  const facts = await Promise.all(
    infos.map(async (s) => {
      try {
        const peek = await peekSession(s.file);
        activity.set(s.file, { firstActivityMs: peek.firstActivityMs, lastActivityMs: peek.lastActivityMs ?? s.mtimeMs });
        // Another agent's session: its id, cwd and start come from its records, not a Pi header.
        if (s.agent !== 'pi')
          Object.assign(s, { id: peek.id || s.id, cwd: peek.cwd || s.cwd, timestamp: isoOf(peek.startedMs) ?? s.timestamp });
        return peekTitleFacts(peek);
      } catch {
        const started = Date.parse(s.timestamp);
        return {
          name: undefined,
          firstRequest: undefined,
          latestRequest: undefined,
          startedMs: Number.isNaN(started) ? undefined : started,
        };
      }
    }),
  );
  const titles = sessionTitles(facts);
  const listed = infos.map((s, k) => ({
    ...s,
    title: titles[k],
    titleLine: titleLine(titles[k], s.file),
    firstActivityMs: activity.get(s.file)?.firstActivityMs,
    lastActivityMs: activity.get(s.file)?.lastActivityMs ?? s.mtimeMs,
    counts: countsText(facts[k]),
  }));
  return byLastActivity(listed, (s) => s);
}

function isoOf(ms: number | undefined): string | undefined {
  return ms === undefined ? undefined : new Date(ms).toISOString();
}
