import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * What a file link in the summary panel may open (no vscode import: unit-
 * testable). The paths come from session files, which anyone could have
 * written, so a link is only ever a local file: anything that looks like a
 * URI (command:, javascript:, file:, http:, vscode:, data: …) or a network
 * path is refused, and so is anything that is not a regular file. A file
 * inside a workspace folder or the session's own folder opens; any other
 * file (after following symlinks) needs the user's yes first.
 */
export type LinkDecision = { kind: 'open'; file: string } | { kind: 'ask'; file: string } | { kind: 'refuse'; reason: string };

export interface LinkRoots {
  /** Folders of the open workspace. */
  workspaceFolders: readonly string[];
  /** The session's working directory (counts only if it exists on this machine). */
  sessionCwd: string;
  /** Where a relative path is resolved (the session's cwd, else the workspace folder). */
  base: string;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const WINDOWS_DRIVE = /^[a-z]:[\\/]/i;

/** Whether the text is a URI (or a network path) rather than a plain file path. */
export function looksLikeUri(p: string, platform: NodeJS.Platform = process.platform): boolean {
  if (p.startsWith('//') || p.startsWith('\\\\')) return true;
  if (!SCHEME.test(p)) return false;
  return !(platform === 'win32' && WINDOWS_DRIVE.test(p));
}

function realpath(p: string): string | undefined {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return undefined;
  }
}

/** `child` is `root` or inside it (both already real paths). */
export function isInside(child: string, root: string): boolean {
  const rel = path.relative(root, child);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}

/**
 * Decides about one link. `linkPath` is the path as written in the session;
 * `resolvedPath` what Arbor resolved it to (the panel sends that back).
 */
export function decideFileLink(linkPath: string, resolvedPath: string, roots: LinkRoots): LinkDecision {
  for (const p of [linkPath, resolvedPath]) {
    if (typeof p !== 'string' || !p.trim()) return { kind: 'refuse', reason: 'an empty path' };
    if (p.includes('\0')) return { kind: 'refuse', reason: 'a path with a NUL character' };
    if (looksLikeUri(p))
      return { kind: 'refuse', reason: `"${p.slice(0, 80)}" is not a file path (Arbor opens only local files from the panel)` };
  }
  const expected = path.isAbsolute(linkPath) ? path.normalize(linkPath) : path.resolve(roots.base, linkPath);
  if (path.normalize(resolvedPath) !== expected) return { kind: 'refuse', reason: `${resolvedPath} is not where ${linkPath} points` };
  const real = realpath(expected);
  if (!real) return { kind: 'refuse', reason: `${expected} does not exist (any more)` };
  let st: fs.Stats;
  try {
    st = fs.statSync(real);
  } catch {
    return { kind: 'refuse', reason: `${expected} cannot be read` };
  }
  if (!st.isFile()) return { kind: 'refuse', reason: `${expected} is not a file` };
  const allowed = [...roots.workspaceFolders, roots.sessionCwd]
    .filter((r) => typeof r === 'string' && r.length > 0)
    .map(realpath)
    .filter((r): r is string => !!r);
  return allowed.some((r) => isInside(real, r)) ? { kind: 'open', file: real } : { kind: 'ask', file: real };
}
