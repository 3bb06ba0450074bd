import * as path from 'node:path';

/**
 * Where a tool's `path` argument points, resolved like Pi does: no-break
 * and other Unicode spaces read as a space, a leading "@" is dropped, "~" is the user's home (which the session does not name,
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

/** The spaces Pi's tools read as an ordinary space in a path (path-utils normalizeUnicodeSpaces). */
const UNICODE_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;

export function resolveToolPath(raw: string, cwd: string): ResolvedPath {
  const api = pathApi(cwd);
  // As Pi: odd spaces become spaces first, then a leading "@" is dropped. A backslash stays a character of the name on POSIX.
  const spaced = raw.replace(UNICODE_SPACES, ' ');
  const p = spaced.startsWith('@') ? spaced.slice(1) : spaced;
  if (p === '~' || p.startsWith('~/')) return { absPath: p, path: p, insideCwd: false };
  const absPath = api.resolve(cwd || api.sep, p);
  return { absPath, ...relativeTo(absPath, cwd) };
}

export function relativeTo(absPath: string, cwd: string): { path: string; insideCwd: boolean } {
  const api = pathApi(cwd);
  if (!cwd) return { path: absPath, insideCwd: false };
  const rel = api.relative(api.resolve(cwd), absPath);
  // `..` as a whole first component leads out; `..notes.txt` or `...txt` is a name inside.
  const first = rel.split(api.sep)[0];
  if (!rel || first === '..' || api.isAbsolute(rel)) return { path: absPath, insideCwd: false };
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
