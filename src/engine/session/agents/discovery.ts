import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openRegularFile } from '../sessionFile';
import { isRecord } from '../jsonObject';
import type { SessionFileInfo } from '../discovery';

/**
 * Where Claude Code and Codex CLI keep their sessions, and which of them
 * belong to a working directory. Read only: nothing here creates a folder.
 */

/** Claude Code's projects folder: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`. */
export function claudeProjectsDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.CLAUDE_CONFIG_DIR || path.join(env.HOME || os.homedir(), '.claude'), 'projects');
}

/** Codex's sessions folder: `$CODEX_HOME/sessions`, else `~/.codex/sessions`. */
export function codexSessionsDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.CODEX_HOME || path.join(env.HOME || os.homedir(), '.codex'), 'sessions');
}

/**
 * Claude Code's folder names for a working directory: the path with `/`,
 * `.`, space and `~` as `-`, and (newer versions) every character that is
 * not a letter or digit as `-`; both are looked in.
 */
export function claudeProjectDirs(cwd: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const abs = path.resolve(cwd);
  const names = new Set([abs.replace(/[/\\. ~]/g, '-'), abs.replace(/[^a-zA-Z0-9]/g, '-')]);
  return [...names].map((n) => path.join(claudeProjectsDir(env), n));
}

async function readdirOrEmpty(dir: string): Promise<import('node:fs').Dirent[]> {
  try {
    return await fsp.readdir(dir, { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES') return [];
    throw err;
  }
}

/** The first JSON line of a file (at most 64 KB read), or undefined. */
async function firstRecord(file: string): Promise<Record<string, unknown> | undefined> {
  const fh = await openRegularFile(file);
  try {
    const buf = Buffer.alloc(64 * 1024);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const nl = buf.subarray(0, bytesRead).indexOf(10);
    const text = buf.toString('utf8', 0, nl < 0 ? bytesRead : nl).replace(/^\uFEFF/, '');
    const v: unknown = JSON.parse(text);
    return isRecord(v) ? v : undefined;
  } catch {
    return undefined;
  } finally {
    await fh.close();
  }
}

async function info(
  file: string,
  agent: 'claude-code' | 'codex',
  id: string,
  cwd: string,
  timestamp: string,
): Promise<SessionFileInfo | undefined> {
  try {
    const st = await fsp.stat(file);
    if (!st.isFile()) return undefined;
    return { file, id, cwd, timestamp, mtimeMs: st.mtimeMs, size: st.size, agent };
  } catch {
    return undefined;
  }
}

/** Claude Code's sessions in its project folders (of `cwd`, or every project when undefined). */
export async function claudeCodeSessions(cwd: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<SessionFileInfo[]> {
  let dirs: string[];
  if (cwd !== undefined) dirs = claudeProjectDirs(cwd, env);
  else {
    const root = claudeProjectsDir(env);
    dirs = (await readdirOrEmpty(root)).filter((d) => d.isDirectory()).map((d) => path.join(root, d.name));
  }
  const out: SessionFileInfo[] = [];
  for (const dir of dirs) {
    for (const d of await readdirOrEmpty(dir)) {
      if (!d.name.endsWith('.jsonl') || !(d.isFile() || d.isSymbolicLink())) continue;
      const file = path.join(dir, d.name);
      const found = await info(file, 'claude-code', path.basename(d.name, '.jsonl'), cwd === undefined ? '' : path.resolve(cwd), '');
      if (found) out.push(found);
    }
  }
  return out;
}

/** Codex's rollouts (`sessions/YYYY/MM/DD/rollout-*.jsonl`) whose `session_meta` names `cwd` (all when undefined). */
export async function codexSessions(cwd: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<SessionFileInfo[]> {
  const root = codexSessionsDir(env);
  const want = cwd === undefined ? undefined : path.resolve(cwd);
  const out: SessionFileInfo[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    for (const d of await readdirOrEmpty(dir)) {
      const p = path.join(dir, d.name);
      if (d.isDirectory() && depth < 3) await walk(p, depth + 1);
      else if (depth === 3 && d.name.startsWith('rollout-') && d.name.endsWith('.jsonl')) {
        const first = await firstRecord(p);
        const meta = first?.type === 'session_meta' && isRecord(first.payload) ? first.payload : undefined;
        const metaCwd = typeof meta?.cwd === 'string' ? meta.cwd : '';
        if (want !== undefined && (!metaCwd || path.resolve(metaCwd) !== want)) continue;
        const found = await info(p, 'codex', String(meta?.id ?? ''), metaCwd, String(meta?.timestamp ?? ''));
        if (found) out.push(found);
      }
    }
  };
  await walk(root, 0);
  return out;
}

/** The Claude Code and Codex sessions of a working directory (every one when `cwd` is undefined). */
export async function otherAgentSessions(cwd: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<SessionFileInfo[]> {
  const [claude, codex] = await Promise.all([claudeCodeSessions(cwd, env), codexSessions(cwd, env)]);
  return [...claude, ...codex];
}
