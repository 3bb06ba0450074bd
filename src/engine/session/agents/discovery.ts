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

/** Listing options: `onSkipped` hears of each file or folder that could not be read (the listing goes on without it). */
export interface AgentListingOptions {
  onSkipped?: (file: string, reason: string) => void;
}

/** Why a file or folder could not be read, in a few words. */
function unreadable(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'EACCES' || e?.code === 'EPERM') return 'permission denied';
  if (e?.code === 'EISDIR') return 'a folder, not a session file';
  return e instanceof Error ? e.message : String(err);
}

async function readdirOrEmpty(dir: string, options: AgentListingOptions = {}): Promise<import('node:fs').Dirent[]> {
  try {
    return await fsp.readdir(dir, { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    options.onSkipped?.(dir, unreadable(err));
    return [];
  }
}

/** The first JSON line of a file (at most 64 KB read), or undefined; a file that cannot be opened as a regular file is skipped (and said). */
async function firstRecord(file: string, options: AgentListingOptions): Promise<Record<string, unknown> | undefined> {
  let fh: Awaited<ReturnType<typeof openRegularFile>>;
  try {
    fh = await openRegularFile(file);
  } catch (err) {
    options.onSkipped?.(file, unreadable(err));
    return undefined;
  }
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
export async function claudeCodeSessions(
  cwd: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  options: AgentListingOptions = {},
): Promise<SessionFileInfo[]> {
  let dirs: string[];
  if (cwd !== undefined) dirs = claudeProjectDirs(cwd, env);
  else {
    const root = claudeProjectsDir(env);
    dirs = (await readdirOrEmpty(root, options)).filter((d) => d.isDirectory()).map((d) => path.join(root, d.name));
  }
  const out: SessionFileInfo[] = [];
  for (const dir of dirs) {
    for (const d of await readdirOrEmpty(dir, options)) {
      if (!d.name.endsWith('.jsonl') || !(d.isFile() || d.isSymbolicLink())) continue;
      const file = path.join(dir, d.name);
      const found = await info(file, 'claude-code', path.basename(d.name, '.jsonl'), cwd === undefined ? '' : path.resolve(cwd), '');
      if (found) out.push(found);
    }
  }
  return out;
}

/** Codex's rollouts (`sessions/YYYY/MM/DD/rollout-*.jsonl`) whose `session_meta` names `cwd` (all when undefined). */
export async function codexSessions(
  cwd: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  options: AgentListingOptions = {},
): Promise<SessionFileInfo[]> {
  const root = codexSessionsDir(env);
  const want = cwd === undefined ? undefined : path.resolve(cwd);
  const out: SessionFileInfo[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    for (const d of await readdirOrEmpty(dir, options)) {
      const p = path.join(dir, d.name);
      if (d.isDirectory() && depth < 3) await walk(p, depth + 1);
      else if (depth === 3 && d.name.startsWith('rollout-') && d.name.endsWith('.jsonl')) {
        const first = await firstRecord(p, options);
        if (first === undefined && !d.isFile()) continue;
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
export async function otherAgentSessions(
  cwd: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  options: AgentListingOptions = {},
): Promise<SessionFileInfo[]> {
  const [claude, codex] = await Promise.all([claudeCodeSessions(cwd, env, options), codexSessions(cwd, env, options)]);
  return [...claude, ...codex];
}

/**
 * The rollout of session `id` in the same Codex sessions folder as `file` (`sessions/YYYY/MM/DD/`), or
 * undefined. Only names are read: `rollout-<time>-<id>.jsonl` in the day folders.
 */
export async function codexRolloutById(file: string, id: string, signal?: AbortSignal): Promise<string | undefined> {
  if (!/^[0-9a-f-]{8,64}$/i.test(id)) return undefined;
  const root = path.resolve(path.dirname(file), '..', '..', '..');
  const suffix = `-${id}.jsonl`;
  const walk = async (dir: string, depth: number): Promise<string | undefined> => {
    signal?.throwIfAborted();
    for (const d of await readdirOrEmpty(dir)) {
      const p = path.join(dir, d.name);
      if (depth < 3 && d.isDirectory()) {
        const found = await walk(p, depth + 1);
        if (found) return found;
      } else if (depth === 3 && d.name.startsWith('rollout-') && d.name.endsWith(suffix) && d.isFile()) return p;
    }
    return undefined;
  };
  return walk(root, 0);
}
