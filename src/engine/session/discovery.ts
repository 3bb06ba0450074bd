import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { piAgentDir } from './piAgentDir';
import { openRegularFile } from './sessionFile';
import { findHeader } from './lineReader';
import type { SessionHeader } from './types';
import type { AgentKind } from './agents/agentKind';

/** Pi's sessions folder for a working directory (spec 1, "Location"). */
export function sessionsDirFor(cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.PI_CODING_AGENT_SESSION_DIR) return env.PI_CODING_AGENT_SESSION_DIR;
  const safe = `--${path
    .resolve(cwd)
    .replace(/^[/\\]/, '')
    .replace(/[/\\:]/g, '-')}--`;
  return path.join(piAgentDir(env), 'sessions', safe);
}

export interface SessionFileInfo {
  file: string;
  id: string;
  cwd: string;
  timestamp: string;
  /** Session name from the header line only (session_info entries are read when the file is opened). */
  mtimeMs: number;
  size: number;
  /** The agent that wrote it (Pi's folder holds Pi's; engine/session/agents/discovery.ts finds the others'). */
  agent: AgentKind;
}

/** The session files in a folder, newest first. A folder that does not exist holds none. */
export async function listSessions(dir: string): Promise<SessionFileInfo[]> {
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out: SessionFileInfo[] = [];
  for (const name of names.filter((n) => n.endsWith('.jsonl'))) {
    const file = path.join(dir, name);
    try {
      const st = await fsp.stat(file);
      if (!st.isFile()) continue;
      const header = await readSessionHeader(file);
      if (!header) continue;
      out.push({
        file,
        id: String(header.id ?? ''),
        cwd: String(header.cwd ?? ''),
        timestamp: String(header.timestamp ?? ''),
        mtimeMs: st.mtimeMs,
        size: st.size,
        agent: 'pi',
      });
    } catch {
      // unreadable files are not sessions
    }
  }
  return out.sort((a, b) => b.mtimeMs - a.mtimeMs);
}

/** A session file's header line (read from its first 64 KB), or undefined when it has none. */
export async function readSessionHeader(file: string): Promise<SessionHeader | undefined> {
  const fh = await openRegularFile(file);
  try {
    const buf = Buffer.alloc(64 * 1024);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const found = findHeader(file, buf.subarray(0, bytesRead), bytesRead, true);
    return found === 'need-more' ? undefined : found.header;
  } catch {
    return undefined;
  } finally {
    await fh.close();
  }
}
