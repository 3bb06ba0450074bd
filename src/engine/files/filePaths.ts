import * as path from 'node:path';

/**
 * Where a tool's `path` argument points, resolved like Pi does: a leading
 * "@" is dropped, "~" is the user's home (which the session does not name,
 * so such paths stay as written and count as outside the working directory),
 * relative paths are joined to the session's cwd. Windows-style cwds use
 * Windows path rules.
 */
export interface ResolvedPath {
  absPath: string;
  /** Relative to cwd with "/" separators when inside it, else the absolute path. */
  path: string;
  insideCwd: boolean;
}

export function pathApi(cwd: string): typeof path.posix {
  return /^[a-zA-Z]:[\\/]/.test(cwd) || cwd.startsWith('\\\\') ? path.win32 : path.posix;
}

export function resolveToolPath(raw: string, cwd: string): ResolvedPath {
  const api = pathApi(cwd);
  const p = raw.startsWith('@') ? raw.slice(1) : raw;
  if (p === '~' || p.startsWith('~/')) return { absPath: p, path: p, insideCwd: false };
  const absPath = api.resolve(cwd || api.sep, p);
  return { absPath, ...relativeTo(absPath, cwd) };
}

export function relativeTo(absPath: string, cwd: string): { path: string; insideCwd: boolean } {
  const api = pathApi(cwd);
  if (!cwd) return { path: absPath, insideCwd: false };
  const rel = api.relative(api.resolve(cwd), absPath);
  if (!rel || rel.startsWith('..') || api.isAbsolute(rel)) return { path: absPath, insideCwd: false };
  return { path: rel.split(api.sep).join('/'), insideCwd: true };
}

/** The words under which a command may name the file: its relative path, its name, its parent folders, its absolute path. */
export function mentionKeys(p: ResolvedPath): string[] {
  const keys = new Set<string>([p.absPath, p.path]);
  const parts = p.path.split('/');
  keys.add(parts[parts.length - 1]);
  let prefix = '';
  for (let i = 0; i + 1 < parts.length; i++) {
    prefix = prefix ? `${prefix}/${parts[i]}` : parts[i];
    keys.add(prefix);
  }
  return [...keys].filter((k) => k && k !== '.' && k !== '/');
}
